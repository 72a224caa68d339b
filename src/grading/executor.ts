// Executors: where a submission's kernels run for the engine. The grader's is
// a sandboxed child process (runner.ts) it talks to through pipes it owns; a
// child that hangs is killed at its time limit, one that dies is a verdict.
// `fl.check` runs in the notebook's own process, on the notebook's device.
import { ChildProcess, spawn } from "child_process";
import * as os from "os";
import { Device, device as openDevice } from "../device";
import { DeviceError } from "../errors";
import { DTYPE_BYTES } from "../dtype";
import { Executor, SubmissionFailure, verdictOf } from "./engine";
import { TestDevice } from "./exercise";
import { BufferSpec, CANARY_BYTES, Frame, FrameReader, LaunchSpec, encodeFrame } from "./protocol";
import { SandboxOptions, sandboxCommand } from "./sandbox";
import { RunOutput, Workbench } from "./workbench";

/** Time limits of a submission's process, in ms. */
export interface TimeLimits {
  /** Starting the process, opening its devices and compiling. */
  compileMs: number;
  /** One test's launches (a performance test's timed iterations in all). */
  testMs: number;
}

export const DEFAULT_LIMITS: TimeLimits = { compileMs: 90_000, testMs: 30_000 };

/** The CPU emulator stops a launch itself after this (within a test's limit, which also covers making and comparing data). */
const EMULATOR_LAUNCH_MS = 10_000;

/** The most log a submission's process may leave (the rest is cut). */
const LOG_LIMIT = 64 * 1024;

/**
 * A compiler log as the student may see it: the grader's paths and the
 * sandbox's folders removed, the submission's lines as "submission.hip:LINE".
 */
export function studentLog(log: string): string {
  return log
    .split("\n")
    .filter((line) => !/<fuselab exports>|FL_KERNEL_EXPORT|FL_EMU_MODULE_ENTRY/.test(line))
    .map((line) => line
      .replace(/(?:\/[\w.+-]+)*\/kernels\/fuselab\//g, "<fuselab>/")
      .replace(/\/tmp\/cache\/[^\s:]*/g, "<build>")
      .replace(/(?:\/[\w.+-]+)+\/(dist|build)\/[^\s:]*/g, "<fuselab>"))
    .join("\n")
    .trim();
}

/** The line of a compiler log a one-line message shows: its first error. */
export function firstError(log: string): string {
  const lines = log.split("\n");
  return lines.find((l) => /\berror\b/.test(l) && !/^fl\.compile/.test(l)) ?? lines.find((l) => l.trim() !== "") ?? "compilation failed";
}

function outputBytes(spec: BufferSpec): number {
  return spec.elements * DTYPE_BYTES[spec.dtype] + CANARY_BYTES;
}

/** The submission's process in its sandbox. */
export class ChildExecutor implements Executor {
  private child?: ChildProcess;
  private reader?: FrameReader;
  private waiting?: { resolve(f: Frame): void; reject(e: Error): void };
  private expectBytes = 0;
  private ended?: SubmissionFailure;
  private killedForTime = false;
  private logText = "";
  private exitPromise?: Promise<void>;
  private timedBuffers: BufferSpec[] = [];
  private timedSets = 0;
  /** Bytes of replies received so far. */
  private received = 0;

  constructor(private readonly sandbox: SandboxOptions, private readonly limits: TimeLimits = DEFAULT_LIMITS) {}

  get alive(): boolean {
    return this.child !== undefined && this.ended === undefined;
  }

  /** What the process printed, cut at LOG_LIMIT. */
  get log(): string {
    return this.logText;
  }

  async start(devices: readonly TestDevice[], source: string): Promise<readonly string[]> {
    const command = sandboxCommand(this.sandbox);
    // Its own process group: a time limit ends the sandbox and all in it at once.
    const child = spawn(command.command, command.args, { env: command.env, stdio: ["pipe", "pipe", "pipe", "pipe"], detached: true });
    this.child = child;
    this.reader = new FrameReader(() => this.expectBytes + (1 << 16));
    const keep = (chunk: Buffer) => {
      if (this.logText.length < LOG_LIMIT) this.logText += chunk.toString("utf8").slice(0, LOG_LIMIT - this.logText.length);
    };
    child.stdout!.on("data", keep);
    child.stderr!.on("data", keep);
    child.stdin!.on("error", () => undefined);  // a child that died mid-request: its exit says how
    const replies = child.stdio[3] as NodeJS.ReadableStream;
    replies.on("data", (chunk: Buffer) => {
      this.received += chunk.length;
      let frames: Frame[];
      try {
        frames = this.reader!.push(chunk);
      } catch (e) {
        this.fail(new SubmissionFailure("crash", `the submission's process sent a malformed reply (${(e as Error).message})`));
        this.kill();
        return;
      }
      for (const f of frames) {
        const w = this.waiting;
        this.waiting = undefined;
        if (w) w.resolve(f);
        else this.fail(new SubmissionFailure("crash", "the submission's process sent a reply nobody asked for"));
      }
    });
    replies.on("error", () => undefined);
    this.exitPromise = new Promise((resolve) => {
      child.on("exit", (code, signal) => {
        this.fail(this.exitFailure(code, signal));
        resolve();
      });
      child.on("error", (e) => {
        this.fail(new SubmissionFailure("grader_error", `the sandbox could not be started: ${e.message}`));
        resolve();
      });
    });
    const deadline = this.limits.compileMs;
    await this.request({ op: "hello" }, [], 0, deadline).catch((e) => {
      throw e instanceof SubmissionFailure && e.verdict === "time_limit" ? e : new SubmissionFailure("grader_error", `the sandbox did not start: ${(e as Error).message}\n${this.logText}`);
    });
    // The emulator stops a runaway launch itself before the hard limit; the cores are shared among the jobs.
    const threads = Math.max(1, Math.floor(os.cpus().length / this.sandbox.jobs));
    const opened = this.sandbox.device === "cpu" ? devices.map((d) => ({ ...d, threads, timeoutMs: Math.min(EMULATOR_LAUNCH_MS, Math.ceil(this.limits.testMs / 2)) })) : devices;
    await this.request({ op: "open", devices: opened }, [], 0, deadline);
    const compiled = await this.request({ op: "compile", source }, [], 0, deadline);
    if (!compiled.header.ok) {
      const log = studentLog(String(compiled.header.error ?? ""));
      throw new SubmissionFailure("compile_error", firstError(log), log);
    }
    const kernels = compiled.header.kernels;
    return Array.isArray(kernels) ? kernels.filter((k): k is string => typeof k === "string") : [];
  }

  async run(device: number, buffers: BufferSpec[], payloads: Buffer[], launches: LaunchSpec[], read: number[]): Promise<RunOutput> {
    const reply = await this.request({ op: "run", device, buffers, launches, read }, payloads,
      read.reduce((a, i) => a + outputBytes(buffers[i]), 0) + buffers.length * CANARY_BYTES, this.limits.testMs);
    return this.output(reply, read.length, buffers.length);
  }

  async stage(device: number, buffers: BufferSpec[], payloads: Buffer[], count: number): Promise<void> {
    this.timedBuffers = buffers;
    this.timedSets = count;
    await this.request({ op: "stage", device, buffers, count }, payloads, 0, this.limits.testMs);
  }

  async time(device: number, launches: LaunchSpec[], warmup: number): Promise<number[]> {
    const reply = await this.request({ op: "time", device, launches, warmup }, [], 0, this.limits.testMs);
    const times = reply.header.times;
    if (!Array.isArray(times) || times.length !== this.timedSets || !times.every((t) => typeof t === "number" && t > 0)) {
      throw new SubmissionFailure("runtime_error", "the timing came back malformed");
    }
    return times as number[];
  }

  async read(device: number, set: number, read: number[]): Promise<RunOutput> {
    const buffers = this.timedBuffers;
    const reply = await this.request({ op: "read", device, set, read }, [],
      read.reduce((a, i) => a + outputBytes(buffers[i]), 0) + buffers.length * CANARY_BYTES, this.limits.testMs);
    return this.output(reply, read.length, buffers.length);
  }

  async close(): Promise<void> {
    if (!this.child) return;
    this.kill();
    await this.exitPromise;
  }

  private output(reply: Frame, reads: number, buffers: number): RunOutput {
    if (reply.payloads.length !== reads + buffers) throw new SubmissionFailure("crash", "the submission's process sent the wrong number of buffers");
    return { buffers: reply.payloads.slice(0, reads), canaries: reply.payloads.slice(reads) };
  }

  private kill(): void {
    const pid = this.child?.pid;
    if (pid === undefined || this.child?.exitCode !== null || this.child?.signalCode !== null) return;
    try {
      process.kill(-pid, "SIGKILL");
    } catch {
      // already gone
    }
  }

  private fail(failure: SubmissionFailure): void {
    if (!this.ended) this.ended = failure;
    const w = this.waiting;
    this.waiting = undefined;
    w?.reject(this.ended);
  }

  private exitFailure(code: number | null, signal: NodeJS.Signals | null): SubmissionFailure {
    if (this.killedForTime) return new SubmissionFailure("time_limit", `stopped after the ${this.limits.testMs} ms limit`);
    const log = this.logText;
    if (/out of memory|Allocation failed|Cannot allocate memory|std::bad_alloc/i.test(log)) return new SubmissionFailure("resource_limit", "ran out of its memory limit");
    if (signal === "SIGXCPU") return new SubmissionFailure("resource_limit", "used up its CPU time limit");
    if (signal === "SIGXFSZ") return new SubmissionFailure("resource_limit", "wrote a file past its size limit");
    if (signal === "SIGSYS") return new SubmissionFailure("crash", "made a system call the sandbox forbids");
    if (signal) return new SubmissionFailure("crash", `the submission's process was ended by ${signal}`);
    return new SubmissionFailure("crash", `the submission's process exited (status ${code})`);
  }

  private request(header: Record<string, unknown>, payloads: readonly Buffer[], expectBytes: number, timeoutMs: number): Promise<Frame> {
    if (this.ended) return Promise.reject(this.ended);
    if (!this.child) return Promise.reject(new Error("not started"));
    this.expectBytes = expectBytes;
    return new Promise<Frame>((resolve, reject) => {
      const receivedAtSend = this.received;
      // Timers run before pending input is read: when this process was busy past
      // the limit, a reply may be waiting unread. Expiry is decided after the
      // next read (setImmediate), and a reply already coming gets one more period.
      const expire = (extended: boolean) => setImmediate(() => {
        if (this.waiting !== waiting) return;
        if (!extended && this.received !== receivedAtSend) {
          timer = setTimeout(() => expire(true), timeoutMs);
          return;
        }
        this.killedForTime = true;
        this.fail(new SubmissionFailure("time_limit", `no answer within the ${timeoutMs} ms limit`));
        this.kill();
      });
      let timer = setTimeout(() => expire(false), timeoutMs);
      const waiting = {
        resolve: (f: Frame) => {
          clearTimeout(timer);
          if (f.header.ok === false && header.op !== "compile") {
            const message = String(f.header.error ?? "failed");
            reject(new SubmissionFailure(verdictOf(message), message));
          } else resolve(f);
        },
        reject: (e: Error) => {
          clearTimeout(timer);
          reject(e);
        },
      };
      this.waiting = waiting;
      if (header.op !== "hello") {
        for (const part of encodeFrame(header, payloads)) this.child!.stdin!.write(part);
      }
    });
  }
}

/** `fl.check`'s executor: the notebook's process and device. */
export class InProcessExecutor implements Executor {
  private benches: Workbench[] = [];
  readonly alive = true;

  constructor(private readonly device: Device) {}

  async start(devices: readonly TestDevice[], source: string): Promise<readonly string[]> {
    this.benches = devices.map((d) => new Workbench(this.device.kind === "cpu"
      ? openDevice("cpu", { ...d, ...(this.device.options.threads ? { threads: this.device.options.threads } : {}), timeoutMs: this.device.options.timeoutMs ?? 20_000 })
      : this.device));
    try {
      let kernels: readonly string[] = [];
      for (const b of this.benches) kernels = b.compile(source);
      return kernels;
    } catch (e) {
      const log = e instanceof DeviceError && e.log !== undefined ? e.log : (e as Error).message;
      throw new SubmissionFailure("compile_error", firstError((e as Error).message), log);
    }
  }

  async run(device: number, buffers: BufferSpec[], payloads: Buffer[], launches: LaunchSpec[], read: number[]): Promise<RunOutput> {
    return this.guard(() => this.benches[device].run(buffers, payloads, launches, read));
  }

  async stage(device: number, buffers: BufferSpec[], payloads: Buffer[], count: number): Promise<void> {
    this.guard(() => this.benches[device].stage(buffers, payloads, count));
  }

  async time(device: number, launches: LaunchSpec[], warmup: number): Promise<number[]> {
    try {
      return await this.benches[device].time(launches, warmup);
    } catch (e) {
      throw new SubmissionFailure(verdictOf((e as Error).message), (e as Error).message);
    }
  }

  async read(device: number, set: number, read: number[]): Promise<RunOutput> {
    return this.guard(() => this.benches[device].read(set, read));
  }

  async close(): Promise<void> {
    for (const b of this.benches) b.release();
  }

  private guard<T>(fn: () => T): T {
    try {
      return fn();
    } catch (e) {
      throw new SubmissionFailure(verdictOf((e as Error).message), (e as Error).message);
    }
  }
}
