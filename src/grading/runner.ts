// The submission's process: started by the grader inside the sandbox, it
// compiles the submission, locks itself (seccomp), and then serves the
// grader's requests (run these launches on these buffers, time them, return
// these outputs) until told to stop. Requests come on stdin, replies go out
// on fd 3; whatever the submission prints goes to stdout and stderr, which the
// grader keeps as a log. It holds no reference results and no verdicts.
//
//   node runner.js --device cpu|gpu [--own-pid-namespace]
//   node runner.js --compile-only      (source on stdin; fills the module cache)
import { spawn } from "child_process";
import * as fs from "fs";
import { Device, DeviceOptions, device } from "../device";
import { compile } from "../compile";
import { native } from "../native";
import { BufferSpec, LaunchSpec, encodeFrame } from "./protocol";
import { RunOutput, Workbench } from "./workbench";

const REQUESTS = 0;
const REPLIES = 3;

// The request pipe is non-blocking: an empty pipe is waited on by sleeping,
// briefly while a request streams in (a pipe holds only some 64 KiB, so a
// fixed sleep would cap a transfer at 64 KiB a sleep), longer while idle.
const SLEEP = new Int32Array(new SharedArrayBuffer(4));
const SHORTEST_WAIT_MS = 0.02;
const LONGEST_WAIT_MS = 5;

function readExactly(n: number): Buffer {
  const out = Buffer.alloc(n);
  let got = 0;
  let wait = SHORTEST_WAIT_MS;
  while (got < n) {
    let count: number;
    try {
      count = fs.readSync(REQUESTS, out, got, n - got, null);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "EAGAIN") {
        Atomics.wait(SLEEP, 0, 0, wait);
        wait = Math.min(LONGEST_WAIT_MS, wait * 2);
        continue;
      }
      throw e;
    }
    if (count === 0) process.exit(0);  // the grader closed the pipe: nothing more to do
    got += count;
    wait = SHORTEST_WAIT_MS;
  }
  return out;
}

function readRequest(): { header: Record<string, unknown>; payloads: Buffer[] } {
  const header = JSON.parse(readExactly(readExactly(4).readUInt32LE(0)).toString("utf8"));
  const payloads = ((header.payloads ?? []) as number[]).map((n) => readExactly(n));
  return { header, payloads };
}

function reply(header: Record<string, unknown>, payloads: readonly Buffer[] = []): void {
  for (const part of encodeFrame(header, payloads)) {
    let written = 0;
    while (written < part.length) written += fs.writeSync(REPLIES, part, written);
  }
}

function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

function outputReply(out: RunOutput): void {
  reply({ ok: true, buffers: out.buffers.length }, [...out.buffers, ...out.canaries]);
}

/**
 * Compiles `source` for the CPU in a separate process, which may still start
 * the compiler: the module lands in the cache, and this process, once locked,
 * loads it from there without starting anything. Returns an error message, or "".
 */
async function compileForCpu(source: string, ownPidNamespace: boolean): Promise<string> {
  const result = await new Promise<{ status: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, [__filename, "--compile-only"], { stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => { if (stdout.length < 1 << 22) stdout += d.toString("utf8"); });
    child.stderr.on("data", (d: Buffer) => { if (stderr.length < 1 << 22) stderr += d.toString("utf8"); });
    child.on("close", (status, signal) => resolve({ status, signal, stdout, stderr }));
    child.stdin.end(source);
  });
  // Whatever the submission's code started there does not outlive the compile:
  // in a process namespace of its own, every process but this one and its
  // parent (the namespace's first) is ended.
  if (ownPidNamespace && (process.pid === 1 || process.ppid === 1)) {
    try {
      process.kill(-1, "SIGKILL");
    } catch {
      // nothing else was running
    }
  }
  if (result.status === 0) return "";
  return result.stdout || result.stderr || `the compiler's process ended with ${result.signal ?? result.status}`;
}

async function serve(kind: "cpu" | "gpu", ownPidNamespace: boolean): Promise<void> {
  const benches: Workbench[] = [];
  let locked = false;
  const lock = () => {
    if (locked) return;
    // On a GPU, submitted code runs on the device only; the driver may still start threads.
    native().sandboxLock({ processes: false, threads: kind === "gpu" });
    locked = true;
  };
  reply({ ok: true, ready: true });
  for (;;) {
    const { header, payloads } = readRequest();
    try {
      switch (header.op) {
        case "open": {
          // Every device a test needs is opened before the lock: opening one starts its threads.
          for (const options of header.devices as DeviceOptions[]) {
            const dev: Device = device(kind, kind === "cpu" ? options : undefined);
            benches.push(new Workbench(dev));
          }
          reply({ ok: true, devices: benches.map((b) => b.device.describe()) });
          break;
        }
        case "compile": {
          const source = header.source as string;
          if (kind === "cpu" && !locked) {
            const failure = await compileForCpu(source, ownPidNamespace);
            if (failure) {
              reply({ ok: false, stage: "compile", error: failure });
              break;
            }
          }
          lock();
          let kernels: readonly string[] = [];
          for (const bench of benches) kernels = bench.compile(source);
          reply({ ok: true, kernels });
          break;
        }
        case "run": {
          const bench = benches[header.device as number];
          outputReply(bench.run(header.buffers as BufferSpec[], payloads, header.launches as LaunchSpec[], header.read as number[]));
          break;
        }
        case "stage": {
          benches[header.device as number].stage(header.buffers as BufferSpec[], payloads, header.count as number);
          reply({ ok: true });
          break;
        }
        case "time": {
          const bench = benches[header.device as number];
          const times = await bench.time(header.launches as LaunchSpec[], header.warmup as number);
          reply({ ok: true, times });
          break;
        }
        case "read": {
          outputReply(benches[header.device as number].read(header.set as number, header.read as number[]));
          break;
        }
        case "release":
          for (const bench of benches) bench.release();
          reply({ ok: true });
          break;
        default:
          reply({ ok: false, error: `unknown request ${JSON.stringify(header.op)}` });
      }
    } catch (e) {
      reply({ ok: false, stage: header.op === "compile" ? "compile" : "run", error: errorText(e), log: (e as { log?: string }).log });
    }
  }
}

function compileOnly(): void {
  const source = fs.readFileSync(0, "utf8");
  // The compiler must still start, so processes stay allowed; nothing else does.
  native().sandboxLock({ processes: true, threads: true });
  try {
    // For the device the CPU tests run on: check mode, whose modules are compiled to check alignment.
    compile(source, { device: device("cpu", { check: true }), name: "submission" });
    process.exitCode = 0;
  } catch (e) {
    process.stdout.write(errorText(e));
    process.exitCode = 1;
  }
}

if (require.main === module) {
  const args = process.argv.slice(2);
  if (args[0] === "--compile-only") compileOnly();
  else if (args[0] === "--device" && (args[1] === "cpu" || args[1] === "gpu")) {
    serve(args[1], args[2] === "--own-pid-namespace").catch((e) => {
      process.stderr.write(`runner: ${errorText(e)}\n`);
      process.exit(70);
    });
  } else {
    process.stderr.write("usage: runner.js --device cpu|gpu [--own-pid-namespace] | --compile-only\n");
    process.exit(2);
  }
}
