// Devices: what the backends report, the default device, per-options caching,
// GPU requests that cannot be met, and the addon's asynchronous calls.
import { spawn, spawnSync } from "child_process";
import * as os from "os";
import { expect } from "chai";
import * as fl from "../src";
import { native } from "../src/native";
import { FUSELAB_PRELUDE, expectThrows, hasGpu, runScript, testDevice } from "./helpers";


/**
 * Runs `launch` (which makes `out` and queues a faulting launch on `dev`, the
 * default device) in a process of its own: a GPU stays unusable after a fault.
 * Returns what reading `out` threw, and what a later use of the device gave.
 */
function faultThenUse(launch: string): [string, string] {
  const run = runScript(`const dev = fl.device();
${launch}
const attempt = (f) => { try { return String(f()); } catch (e) { return e.message; } };
console.log(JSON.stringify([attempt(() => { out.toArray(); return "no error"; }),
                            attempt(() => fl.ones([2], { device: dev }).toArray().join(","))]));`);
  expect(run.status, run.stderr).to.equal(0);
  return JSON.parse(run.stdout) as [string, string];
}

describe("devices", () => {
  it("lists every backend, with a reason for each one that is not usable", () => {
    const statuses = fl.backends();
    expect(statuses.map((s) => s.name)).to.have.members(["cuda", "hip", "cpu"]);
    for (const s of statuses) {
      if (!s.loaded || s.deviceCount === 0) expect(s.reason, s.name).to.be.a("string").and.not.equal("");
      if (!s.built) expect(s.reason).to.match(/^not built \(.*libfuselab_/);
    }
    const cpu = statuses.find((s) => s.name === "cpu")!;
    expect(cpu.loaded, cpu.reason).to.equal(true);
    expect(cpu.deviceCount).to.be.at.least(1);
  });

  it("lists devices, GPUs first, each with its kind", () => {
    const list = fl.devices();
    expect(list.some((d) => d.backend === "cpu" && d.kind === "cpu")).to.equal(true);
    for (const d of list) expect(d.kind).to.equal(d.backend === "cpu" ? "cpu" : "gpu");
    const firstCpu = list.findIndex((d) => d.kind === "cpu");
    expect(list.slice(firstCpu).every((d) => d.kind === "cpu")).to.equal(true);
  });

  it("opens one shared device per kind and options", () => {
    const cpu = fl.device("cpu");
    expect(fl.device("cpu")).to.equal(cpu);
    expect(fl.device("cpu", { warpSize: 32 })).to.equal(cpu);
    const wide = fl.device("cpu", { warpSize: 64 });
    expect(wide).to.not.equal(cpu);
    expect(wide.props.warpSize).to.equal(64);
    expect(wide.describe()).to.equal("cpu (warpSize 64)");
    expect(cpu.kind).to.equal("cpu");
    expect(cpu.props.maxThreadsPerBlock).to.be.at.least(1);
    expect(cpu.name).to.equal(cpu.props.name);
  });

  it("bounds the CPU device's threads by the cores this process may use", () => {
    const cores = os.availableParallelism();
    expect(fl.device("cpu").props.multiprocessors).to.equal(cores);
    expect(fl.device("cpu", { threads: 1 }).props.multiprocessors).to.equal(1);
    for (const bad of [0, cores + 1, 1e9, 2.5, "4"]) {
      expectThrows(() => fl.device("cpu", { threads: bad as number }), fl.ArgumentError,
        `fl.device: options.threads must be a whole number from 1 to ${cores} (the cores this process may use), got ${typeof bad === "string" ? JSON.stringify(bad) : bad}`);
    }
    // The addon checks again, for callers that skip the TS layer.
    expectThrows(() => native().open("cpu", 0, { threads: cores + 1 }), Error,
      `cpu open: open: threads must be from 0 (all cores) to ${cores} (the cores this process may use), got ${cores + 1}`);
    // Pinned to one core, a process gets one worker by default, and no more on request.
    const pinned = spawnSync("taskset", ["-c", "0", process.execPath, "-e", `${FUSELAB_PRELUDE}
      const workers = fl.device("cpu").props.multiprocessors;
      try { fl.device("cpu", { threads: 2 }); console.log(workers, "opened"); } catch (e) { console.log(workers, e.message); }
    `], { encoding: "utf8", timeout: 60_000 });
    expect(pinned.stdout.trim()).to.equal("1 fl.device: options.threads must be a whole number from 1 to 1 (the cores this process may use), got 2");
  });

  it("picks the default device from FUSELAB_DEVICE, else a GPU when there is one", () => {
    const requested = process.env.FUSELAB_DEVICE;
    const expected = requested ? requested : hasGpu() ? "gpu" : "cpu";
    expect(testDevice().kind).to.equal(expected === "cpu" ? "cpu" : "gpu");
  });

  it("never falls back to the CPU when a GPU is asked for", () => {
    if (hasGpu()) {
      expect(fl.device("gpu").kind).to.equal("gpu");
      return;
    }
    expectThrows(() => fl.device("gpu"), fl.DeviceError,
      /^fl\.device: a GPU was asked for \(kind\), but no GPU backend has a device: cuda: .+; hip: .+$/);
    expectThrows(() => fl.device("cuda"), fl.DeviceError, /^fl\.device: backend cuda has no device: .+/);
    expectThrows(() => fl.device("gpu", { warpSize: 64 }), fl.DeviceError, /no GPU backend has a device/);
  });

  it("stops a running CPU launch when a notebook's cell is interrupted (SIGINT)", () => {
    const run = runScript(`
process.on("SIGINT", () => {});  // as the notebook kernel does: SIGINT interrupts the cell
const dev = fl.device("cpu");
const spin = fl.compile("__global__ void spin(int* flag) { while (*(volatile int*)flag == 0) {} }", { device: dev }).fn("spin");
spin.launch({ grid: 2, block: 32 }, fl.zeros([1], { dtype: "i32", device: dev }));
setTimeout(() => process.kill(process.pid, "SIGINT"), 300);
dev.synchronize().then(() => console.log("finished"), (e) => console.log(e.message));`);
    expect(run.stdout.trim(), run.stderr).to.include("kernel 'spin' was cancelled");
  });

  it("stops a running CPU launch on SIGINT also while the main thread waits in a synchronous read", async () => {
    const script = `${FUSELAB_PRELUDE}
process.on("SIGINT", () => {});  // as the notebook kernel does
const dev = fl.device("cpu");
const spin = fl.compile("__global__ void spin(int* flag) { while (*(volatile int*)flag == 0) {} }", { device: dev }).fn("spin");
const flag = fl.zeros([1], { dtype: "i32", device: dev });
spin.launch({ grid: 2, block: 32 }, flag);
console.log("waiting");
try { flag.toArray(); console.log("no error"); } catch (e) { console.log(e.message); }`;
    const child = spawn(process.execPath, ["-e", script], { stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "", stderr = "";
    child.stdout.on("data", (d) => {
      stdout += d;
      if (stdout.includes("waiting")) setTimeout(() => child.kill("SIGINT"), 200);
    });
    child.stderr.on("data", (d) => (stderr += d));
    const hung = setTimeout(() => child.kill("SIGKILL"), 20_000);
    const [code, signal] = await new Promise<[number | null, string | null]>((resolve) => child.on("exit", (c, s) => resolve([c, s])));
    clearTimeout(hung);
    expect({ code, signal }, stderr).to.deep.equal({ code: 0, signal: null });
    expect(stdout).to.equal("waiting\ncpu download: kernel 'spin' was cancelled\n");
  });

  it("ends a wait past the device's timeoutMs, and on SIGINT: the CPU stops the launch, a GPU's kernel runs on to its end", async () => {
    // About a second of spinning on a GPU; the CPU's clock counts nanoseconds, and its limit stops the launch first.
    const script = (timeoutMs: number) => `${FUSELAB_PRELUDE}
process.on("SIGINT", () => {});  // as the notebook kernel does
const dev = fl.device(fl.device().kind, { timeoutMs: ${timeoutMs} });
const spin = fl.compile("__global__ void spin(int* out, long long cycles) { long long start = clock64(); while (clock64() - start < cycles) {} out[0] = 1; }", { device: dev }).fn("spin");
const out = fl.zeros([1], { dtype: "i32", device: dev });
spin.launch({ grid: 1, block: 1 }, out, 2000000000n);
const read = () => { try { return String(out.toArray()[0]); } catch (e) { return e.message; } };
console.log("waiting");
const first = read();
let later = first;
// A GPU's kernel goes on: a later read, each one waiting up to the limit again, sees it end.
for (const deadline = Date.now() + 30000; dev.kind === "gpu" && later !== "1" && Date.now() < deadline;) later = read();
console.log(JSON.stringify([first, later]));`;
    const run = (timeoutMs: number, interrupt: boolean) => new Promise<[string, string]>((resolve, reject) => {
      const child = spawn(process.execPath, ["-e", script(timeoutMs)], { stdio: ["ignore", "pipe", "pipe"] });
      let stdout = "", stderr = "";
      child.stdout.on("data", (d) => {
        stdout += d;
        if (interrupt && stdout === "waiting\n") setTimeout(() => child.kill("SIGINT"), 300);
      });
      child.stderr.on("data", (d) => (stderr += d));
      const hung = setTimeout(() => child.kill("SIGKILL"), 60_000);
      child.on("exit", () => {
        clearTimeout(hung);
        try {
          resolve(JSON.parse(stdout.split("\n")[1]) as [string, string]);
        } catch {
          reject(new Error(`no result: ${stdout} ${stderr}`));
        }
      });
    });
    const backend = testDevice().backend;
    const [timedFirst, timedLater] = await run(300, false);
    const [stoppedFirst, stoppedLater] = await run(0, true);
    if (testDevice().kind === "gpu") {
      const goesOn = ". A GPU cannot stop a running kernel: it goes on, and each later wait for this device waits for it again; restart the process (in a notebook, the kernel) if it never ends";
      expect(timedFirst).to.equal(`${backend} download: kernel 'spin' (the last launched) still running after the device's time limit of 300 ms (timeoutMs)${goesOn}`);
      expect(stoppedFirst).to.match(new RegExp(`^${backend} download: interrupted after \\d+ ms waiting for kernel 'spin' \\(the last launched\\)\\. A GPU cannot stop`));
      expect([timedLater, stoppedLater]).to.deep.equal(["1", "1"]);
    } else {
      expect(timedFirst).to.equal("cpu download: kernel 'spin' ran past the 300 ms limit");
      expect(stoppedFirst).to.equal("cpu download: kernel 'spin' was cancelled");
    }
  });

  it("gives CPU launches a time limit in notebooks: 30 s, or FUSELAB_TIMEOUT_MS, or the device's timeoutMs", () => {
    const script = `
const before = fl.device("cpu").timeoutMs;
process.on("SIGINT", () => {});  // from here on, as in a notebook
const dev = fl.device("cpu", { warpSize: 64 });
const limits = [before, dev.timeoutMs, fl.device("cpu", { warpSize: 64, timeoutMs: 0 }).timeoutMs, fl.device("cpu", { timeoutMs: 1234 }).timeoutMs];
if (dev.timeoutMs > 1000) {
  console.log(JSON.stringify(limits));
} else {
  const spin = fl.compile("__global__ void spin(int* flag) { while (*(volatile int*)flag == 0) {} }", { device: dev }).fn("spin");
  spin.launch({ grid: 1, block: 32 }, fl.zeros([1], { dtype: "i32", device: dev }));
  dev.synchronize().then(() => console.log("no error"), (e) => console.log(JSON.stringify([...limits, e.message])));
}`;
    const byDefault = runScript(script);
    expect(JSON.parse(byDefault.stdout || "null"), byDefault.stderr).to.deep.equal([0, 30000, 0, 1234]);
    const configured = runScript(script, { FUSELAB_TIMEOUT_MS: "250" });
    expect(JSON.parse(configured.stdout || "null"), configured.stderr).to.deep.equal(
      [250, 250, 0, 1234, "cpu synchronize: kernel 'spin' ran past the 250 ms limit"]);
    const misspelt = runScript(script, { FUSELAB_TIMEOUT_MS: "soon" });
    expect(misspelt.stderr).to.include(
      "fl.device: the environment variable FUSELAB_TIMEOUT_MS must be a whole number of milliseconds (0: no limit), got \"soon\"");
  });

  it("turns a kernel's invalid memory access into an error: a GPU is then lost, the emulator goes on", () => {
    const [launch, after] = faultThenUse(`
const wild = fl.compile("__global__ void wild(float* out) { ((float*)0x10)[threadIdx.x] = out[0]; }", { device: dev }).fn("wild");
const out = fl.zeros([1], { device: dev });
wild.launch({ grid: 1, block: 32 }, out);`);
    if (testDevice().kind === "gpu") {
      expect(launch).to.match(/IllegalAddress|illegal memory access/);
      expect(after).to.match(/^.*device lost: /);
    } else {
      expect(launch).to.include("kernel 'wild' made an invalid memory access at 0x10");
      expect(after).to.equal("1,1");
    }
  });

  it("turns a misaligned vector load into an error: a GPU's misaligned address, the emulator's in check mode", () => {
    const [launch, after] = faultThenUse(`
const checked = dev.kind === "gpu" ? dev : fl.device("cpu", { check: true });
const load = fl.compile(\`__global__ void load4(float* out, const float* in) {
  float4 v = *reinterpret_cast<const float4*>(in + 1);
  out[threadIdx.x] = v.x + v.y + v.z + v.w;  // every lane used: the compiler keeps the 16-byte load
}\`, { device: checked }).fn("load4");
const out = fl.zeros([4], { device: checked });
load.launch({ grid: 1, block: 4 }, out, fl.zeros([8], { device: checked }));`);
    if (testDevice().kind === "gpu") {
      expect(launch).to.match(/MisalignedAddress|misaligned address/);
      expect(after).to.match(/device lost: /);
    } else {
      expect(launch).to.match(/^cpu download: kernel 'load4': misaligned address: float4 (accessed at|loaded from) 0x[0-9a-f]+, which is not a multiple of its 16-byte alignment at load4\.hip:2 \(block \(0,0,0\), thread \([0-3],0,0\)\)$/);
      expect(after).to.equal("1,1");
    }
  });

  it("turns a device-side assert into an error: a GPU names the error and is then lost, the emulator names the thread and goes on", () => {
    const [launch, after] = faultThenUse(`
const checked = fl.compile(\`#include <assert.h>
__global__ void positive_only(float* out, const float* in) {
  assert(in[threadIdx.x] > 0.0f);
  out[threadIdx.x] = in[threadIdx.x];
}\`, { device: dev }).fn("positive_only");
const input = fl.tensor([1, 2, -3, 4], { device: dev });
const out = fl.zeros([4], { device: dev });
checked.launch({ grid: 1, block: 4 }, out, input);`);
    if (testDevice().kind === "gpu") {
      expect(launch).to.match(/device-side assert/);
      expect(launch).to.include("the last kernel launched on this device: 'positive_only'");
      expect(after).to.match(/device lost: /);
    } else {
      expect(launch).to.include("kernel 'positive_only': device-side assertion `in[threadIdx.x] > 0.0f' failed at positive_only.hip:3 (block (0,0,0), thread (2,0,0))");
      expect(after).to.equal("1,1");
    }
  });

  it("refuses CPU options for a GPU, and takes its timeoutMs", function () {
    if (!hasGpu()) this.skip();
    expectThrows(() => fl.device("gpu", { check: true }), fl.ArgumentError,
      "fl.device: options must be only timeoutMs for a GPU device (warpSize, check, threads are options of the CPU emulator), got { check }");
    expect(fl.device("gpu", { timeoutMs: 1234 }).timeoutMs).to.equal(1234);
  });

  it("synchronizes and runs a timing loop off the main thread", async () => {
    const dev = testDevice();
    const addon = native();
    const n = 1 << 16;
    const src = fl.randn([n], { device: dev, seed: 9 });
    const out = fl.zeros([n], { device: dev });
    const copy = fl.builtins(dev).fn("copy_f32x4");
    const prepared = copy.prepare({ grid: 64, block: 256 }, out, src, n);
    prepared.launch();
    await dev.synchronize();
    expect(Array.from(out.toArray())).to.deep.equal(Array.from(src.toArray()));

    const flush = fl.empty([1 << 16], { device: dev });
    const times = await addon.bench(dev.handle, [prepared.handle, prepared.handle], { warmup: 2, iters: 5, flush: flush.handle("test") });
    expect(times).to.be.instanceOf(Float64Array);
    expect(times.length).to.equal(5);
    for (const t of times) expect(t).to.be.at.least(0);
    expectThrows(() => addon.bench(dev.handle, [prepared.handle], { warmup: 0, iters: 0 }), RangeError,
      "bench: options.iters must be an integer from 1 to 1000000");
  });
});
