// Every error a user can cause at the core: thrown as an Error that names the
// argument, what was expected and what came; none of them crashes the process.
import { expect } from "chai";
import * as fl from "../src";
import { native } from "../src/native";
import { expectThrows, otherDevice, testDevice } from "./helpers";

// A built-in kernel every backend has: copy_f32x4(float* out, const float* in, long long n).
const COPY = "copy_f32x4";

describe("errors", () => {
  const dev = testDevice;
  const copy = () => fl.builtins(dev()).fn(COPY);
  const f32 = (n: number) => fl.randn([n], { device: dev(), seed: n });

  it("launches a built-in kernel by name with its signature's parameters", () => {
    const k = copy();
    expect(k.params.map((p) => [p.type, p.pointer, p.isConst])).to.deep.equal([["f32", true, false], ["f32", true, true], ["i64", false, false]]);
    expect(k.signature()).to.equal("copy_f32x4(f32* out, const f32* in, i64 n)");
    const src = f32(5);
    const out = fl.zeros([5], { device: dev() });
    k.launch({ grid: 1, block: 32 }, out, src, 5);
    expect(Array.from(out.toArray())).to.deep.equal(Array.from(src.toArray()));
    expect(fl.builtins(dev()).fn(COPY)).to.equal(k);
  });

  it("names close built-in kernels for an unknown name", () => {
    expectThrows(() => fl.builtins(dev()).fn("copy_f32"), fl.ArgumentError,
      /^module\.fn: name must be one of the built-in kernels of .+ \(close names: copy_f32x4.*\), got "copy_f32"$/);
  });

  it("checks the argument count and kinds of a launch", () => {
    const k = copy();
    const out = f32(4);
    expectThrows(() => k.launch({ grid: 1, block: 4 }, out, f32(4)), fl.ArgumentError,
      "kernel copy_f32x4: the arguments must be 3 values: copy_f32x4(f32* out, const f32* in, i64 n), got 2 values");
    expectThrows(() => k.launch({ grid: 1, block: 4 }, 5, f32(4), 4), fl.ArgumentError,
      "kernel copy_f32x4: argument 0 (out) must be an f32 tensor, a view of one or null (f32*), got 5");
    const half = fl.zeros([4], { dtype: "f16", device: dev() });
    expectThrows(() => k.launch({ grid: 1, block: 4 }, out, half, 4), fl.ArgumentError,
      `kernel copy_f32x4: argument 1 (in) must be an f32 tensor (const f32*), got an f16 tensor of shape [4] on ${dev().describe()}`);
    expectThrows(() => k.launch({ grid: 1, block: 4 }, out, f32(4), 3.5), fl.ArgumentError,
      "kernel copy_f32x4: argument 2 (n) must be an integer (i64), got 3.5");
    expectThrows(() => k.launch({ grid: 1, block: 4 }, out, f32(4), out as unknown as number), fl.ArgumentError,
      `kernel copy_f32x4: argument 2 (n) must be an integer (i64), got an f32 tensor of shape [4] on ${dev().describe()}`);
    expectThrows(() => k.launch({ grid: 1, block: 4 }, out, f32(4), 2 ** 60), fl.ArgumentError,
      "kernel copy_f32x4: argument 2 (n) must be an integer within 2^53 (pass larger ones as a bigint) (i64), got 1152921504606847000");
    expectThrows(() => k.launch({ grid: 1, block: 4 }, out, f32(4), 2n ** 63n), fl.ArgumentError,
      "kernel copy_f32x4: argument 2 (n) must be an integer from -9223372036854775808 to 9223372036854775807 (i64), got 9223372036854775808n");
    k.launch({ grid: 1, block: 4 }, out, f32(4), 4n);
  });

  it("refuses mixed devices and disposed tensors", () => {
    const k = copy();
    const elsewhere = fl.zeros([4], { device: otherDevice() });
    expectThrows(() => k.launch({ grid: 1, block: 4 }, elsewhere, f32(4), 4), fl.ArgumentError,
      `kernel copy_f32x4: argument 0 (out) must be a tensor on ${dev().describe()} (the kernel's device), got a tensor on ${otherDevice().describe()}`);
    const gone = f32(4);
    gone.dispose();
    expectThrows(() => k.launch({ grid: 1, block: 4 }, f32(4), gone, 4), fl.ArgumentError,
      "kernel copy_f32x4: argument 1 (in) must be a tensor that has not been disposed, got a disposed f32 tensor of shape [4]");
  });

  it("checks grid, block and shared memory against the device's limits", () => {
    const k = copy();
    const args = [f32(4), f32(4), 4] as const;
    const p = dev().props;
    expectThrows(() => k.launch({ grid: 0, block: 4 }, ...args), fl.ArgumentError, "kernel copy_f32x4: grid must be a positive integer, got 0");
    expectThrows(() => k.launch({ grid: "x" as unknown as number, block: 4 }, ...args), fl.ArgumentError,
      "kernel copy_f32x4: grid must be a positive integer or an array of 1 to 3 positive integers, got \"x\"");
    expectThrows(() => k.launch({ grid: [1, 1, 1, 1], block: 4 }, ...args), fl.ArgumentError,
      "kernel copy_f32x4: grid must be a positive integer or an array of 1 to 3 positive integers, got [1, 1, 1, 1]");
    expectThrows(() => k.launch({ grid: [1, 2.5], block: 4 }, ...args), fl.ArgumentError, "kernel copy_f32x4: grid[1] must be a positive integer, got 2.5");
    expectThrows(() => k.launch({ grid: [1, p.maxGridDim[1] + 1], block: 4 }, ...args), fl.ArgumentError,
      `kernel copy_f32x4: grid[1] must be at most ${p.maxGridDim[1]} (the device's limit), got ${p.maxGridDim[1] + 1}`);
    expectThrows(() => k.launch({ grid: 1, block: p.maxBlockDim[0] + 1 }, ...args), fl.ArgumentError,
      `kernel copy_f32x4: block must be at most ${p.maxBlockDim[0]} (the device's limit), got ${p.maxBlockDim[0] + 1}`);
    const wide = [p.maxBlockDim[0], 2];
    expectThrows(() => k.launch({ grid: 1, block: wide }, ...args), fl.ArgumentError,
      `kernel copy_f32x4: block must be at most ${p.maxThreadsPerBlock} threads in all (the device's limit), got [${wide[0]}, 2, 1] (${wide[0] * 2} threads)`);
    expectThrows(() => k.launch({ grid: 1, block: 4, sharedBytes: -1 }, ...args), fl.ArgumentError,
      "kernel copy_f32x4: sharedBytes must be a non-negative integer, got -1");
    const limit = Math.max(p.sharedPerBlock, p.sharedPerBlockOptin);
    expectThrows(() => k.launch({ grid: 1, block: 4, sharedBytes: limit + 1 }, ...args), fl.ArgumentError,
      `kernel copy_f32x4: sharedBytes must be at most ${limit} (the device's limit), got ${limit + 1}`);
    expectThrows(() => k.launch({ grid: 1, block: 4, stream: 1 } as unknown as fl.LaunchConfig, ...args), fl.ArgumentError,
      "kernel copy_f32x4: the launch configuration must be an object { grid, block, sharedBytes? }, got the key \"stream\"");
  });

  it("replays prepared launches and refuses them once a tensor is disposed", () => {
    const src = f32(6);
    const out = fl.zeros([6], { device: dev() });
    const prepared = copy().prepare({ grid: 1, block: 32 }, out, src, 6);
    prepared.launch();
    expect(Array.from(out.toArray())).to.deep.equal(Array.from(src.toArray()));
    src.dispose();
    expectThrows(() => prepared.launch(), fl.FuselabError,
      `kernel copy_f32x4 (prepared launch): an f32 tensor of shape [6] on ${dev().describe()} was used after dispose()`);
  });

  it("turns misuse of the addon's handles into errors, not crashes", () => {
    const addon = native();
    const buffer = addon.alloc(dev().handle, 64);
    addon.release(buffer);
    expectThrows(() => addon.release(buffer), Error, "release: the buffer was already released");
    expectThrows(() => addon.download(buffer, new Float32Array(16)), Error, "the buffer was released");
    expectThrows(() => addon.fill(buffer, 0), Error, "the buffer was released");
    const kernel = copy();
    expectThrows(() => addon.launch(kernel.handle, [1, 1, 1], [1, 1, 1], 0, [buffer, buffer, { type: "i64", value: 0 }]), Error,
      "kernel copy_f32x4: argument 0 (out) is a released buffer");
    expectThrows(() => addon.release(kernel.handle as never), TypeError, "expected a buffer handle");
    expectThrows(() => addon.release({} as never), TypeError, "expected a buffer handle");
    const live = addon.alloc(dev().handle, 16);
    expectThrows(() => addon.upload(live, new Float32Array(5)), RangeError, "upload: 20 bytes at offset 0 do not fit in a buffer of 16 bytes");
    expectThrows(() => addon.launch(kernel.handle, [1, 1, 1], [1, 1, 1], 0, [live, live, { type: "i32", value: 0 }]), Error,
      "kernel copy_f32x4: argument 2 (n) must be a i64 scalar, got a i32 scalar");
    expectThrows(() => addon.launch(kernel.handle, [1, 1, 1], [1, 1, 1], 0, [live, live]), Error,
      "kernel copy_f32x4 takes 3 arguments (f32* out,const f32* in,i64 n), got 2");
    expectThrows(() => addon.alloc(dev().handle, -1), RangeError, "alloc: bytes must be a non-negative integer");
    addon.release(live);
  });

  it("says why the requested device cannot be had", () => {
    const previous = process.env.FUSELAB_DEVICE;
    try {
      process.env.FUSELAB_DEVICE = "tpu";
      expectThrows(() => fl.device(), fl.ArgumentError,
        "fl.device: the environment variable FUSELAB_DEVICE must be \"cpu\", \"gpu\", \"cuda\", \"hip\" or left out, got \"tpu\"");
    } finally {
      if (previous === undefined) delete process.env.FUSELAB_DEVICE;
      else process.env.FUSELAB_DEVICE = previous;
    }
    expectThrows(() => fl.device("cpu", { warpSize: 48 as 32 }), fl.ArgumentError, "fl.device: options.warpSize must be 32 or 64, got 48");
    expectThrows(() => fl.device("cpu", { lanes: 4 } as fl.DeviceOptions), fl.ArgumentError,
      "fl.device: options must be an object with keys among warpSize, check, threads, timeoutMs, got the key \"lanes\"");
  });
});
