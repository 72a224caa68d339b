// Tensors: dtype conversions, round trips per dtype (64-bit integers as
// bigints, exact past 2^53), factories, shapes, seeded random numbers, copies
// between devices, dispose, views.
import { expect } from "chai";
import * as fl from "../src";
import { checkShape } from "../src/tensor";
import { expectRejects, expectThrows, otherDevice, range, testDevice } from "./helpers";

describe("dtype conversions", () => {
  it("f16: known values, rounding to nearest even, subnormals, overflow, NaN", () => {
    const cases: [number, number][] = [
      [0, 0x0000], [-0, 0x8000], [1, 0x3c00], [-2, 0xc000], [65504, 0x7bff],
      [65519, 0x7bff], [65520, 0x7c00], [Infinity, 0x7c00], [-Infinity, 0xfc00],
      [2 ** -24, 0x0001], [2 ** -25, 0x0000], [3 * 2 ** -25, 0x0002], [2 ** -14, 0x0400],
      [1 + 2 ** -11, 0x3c00], [1 + 3 * 2 ** -11, 0x3c02], [0.1, 0x2e66],
    ];
    for (const [value, bits] of cases) expect(fl.f32ToF16Bits(value), `f16 of ${value}`).to.equal(bits);
    expect(fl.f32ToF16Bits(NaN) & 0x7c00).to.equal(0x7c00);
    expect(fl.f32ToF16Bits(NaN) & 0x3ff).to.not.equal(0);
    expect(fl.f16BitsToF32(0x7e00)).to.be.NaN;
  });

  it("bf16: known values, rounding to nearest even, NaN", () => {
    const cases: [number, number][] = [
      [1, 0x3f80], [-1, 0xbf80], [1 + 2 ** -8, 0x3f80], [1 + 3 * 2 ** -8, 0x3f82], [3.140625, 0x4049],
      [Infinity, 0x7f80], [3.4e38, 0x7f80], [2 ** -133, 0x0001],
    ];
    for (const [value, bits] of cases) expect(fl.f32ToBf16Bits(value), `bf16 of ${value}`).to.equal(bits);
    expect(fl.bf16BitsToF32(fl.f32ToBf16Bits(NaN))).to.be.NaN;
  });

  it("every f16 and bf16 bit pattern survives a round trip through f32", () => {
    for (let bits = 0; bits < 0x10000; bits++) {
      const half = fl.f16BitsToF32(bits);
      if (!Number.isNaN(half)) expect(fl.f32ToF16Bits(half), `f16 0x${bits.toString(16)}`).to.equal(bits);
      const brain = fl.bf16BitsToF32(bits);
      if (!Number.isNaN(brain)) expect(fl.f32ToBf16Bits(brain), `bf16 0x${bits.toString(16)}`).to.equal(bits);
    }
  });
});

describe("tensors", () => {
  const dev = testDevice;

  it("round-trips values in every dtype", () => {
    const floats = [0, 1, -2.5, 0.1, 65504, 1e-7, NaN, -Infinity];
    const asF32 = Float32Array.from(floats);
    expect(Array.from(fl.tensor(floats, { dtype: "f32", device: dev() }).toArray())).to.deep.equal(Array.from(asF32));
    const f16 = fl.tensor(floats, { dtype: "f16", device: dev() }).toArray();
    expect(Array.from(f16)).to.deep.equal(floats.map((v) => fl.f16BitsToF32(fl.f32ToF16Bits(v))));
    expect(f16[3]).to.equal(0.0999755859375);
    const bf16 = fl.tensor(floats, { dtype: "bf16", device: dev() }).toArray();
    expect(Array.from(bf16)).to.deep.equal(floats.map((v) => fl.bf16BitsToF32(fl.f32ToBf16Bits(v))));
    const ints = fl.tensor([-(2 ** 31), -1, 0, 2 ** 31 - 1], { dtype: "i32", device: dev() }).toArray();
    expect(ints).to.be.instanceOf(Int32Array);
    expect(Array.from(ints)).to.deep.equal([-(2 ** 31), -1, 0, 2 ** 31 - 1]);
    const bytes = fl.tensor([0, 7, 255], { dtype: "u8", device: dev() }).toArray();
    expect(bytes).to.be.instanceOf(Uint8Array);
    expect(Array.from(bytes)).to.deep.equal([0, 7, 255]);
    const doubles = [0, -0.1, 1 / 3, 2 ** 60 + 2 ** 8, 5e-324, -1.7976931348623157e308, NaN, Infinity];
    const f64 = fl.tensor(doubles, { dtype: "f64", device: dev() }).toArray();
    expect(f64).to.be.instanceOf(Float64Array);
    expect(Array.from(f64)).to.deep.equal(doubles);
    const limits: [fl.DType, ArrayLike<unknown>, number[]][] = [
      ["i8", Int8Array.prototype, [-128, -1, 0, 127]], ["u16", Uint16Array.prototype, [0, 1, 65535]],
      ["i16", Int16Array.prototype, [-32768, -2, 32767]], ["u32", Uint32Array.prototype, [0, 2 ** 31, 2 ** 32 - 1]],
    ];
    for (const [dtype, prototype, values] of limits) {
      const back = fl.tensor(values, { dtype, device: dev() }).toArray();
      expect(Object.getPrototypeOf(back), dtype).to.equal(prototype);
      expect(Array.from(back as ArrayLike<number>), dtype).to.deep.equal(values);
    }
  });

  it("keeps every bit of 64-bit integers, past 2^53, as bigints", () => {
    const wide = [-(2n ** 63n), -(2n ** 53n) - 1n, -1n, 0n, 2n ** 53n + 1n, 2n ** 63n - 1n];
    const i64 = fl.tensor(wide, { dtype: "i64", device: dev() });
    const back: BigInt64Array = i64.toArray();
    expect(back).to.be.instanceOf(BigInt64Array);
    expect(Array.from(back)).to.deep.equal(wide);
    expect(Array.from(fl.tensor(BigInt64Array.from(wide), { device: dev() }).toArray())).to.deep.equal(wide);
    const unsigned = [0n, 2n ** 53n + 1n, 2n ** 64n - 1n];
    const u64: BigUint64Array = fl.tensor(unsigned, { dtype: "u64", device: dev() }).toArray();
    expect(Array.from(u64)).to.deep.equal(unsigned);
    // Numbers within 2^53 are taken as they are; a number past it is already rounded, and refused.
    expect(Array.from(fl.tensor([-5, 2 ** 53 - 1], { dtype: "i64", device: dev() }).toArray())).to.deep.equal([-5n, 2n ** 53n - 1n]);
    expectThrows(() => fl.tensor([2 ** 60], { dtype: "i64", device: dev() }), fl.ArgumentError,
      "fl.tensor: data[0] must be a bigint beyond 2^53 (a number there is already rounded) (i64), got 1152921504606847000");
    expectThrows(() => fl.tensor([1n, 2n ** 63n], { dtype: "i64", device: dev() }), fl.ArgumentError,
      "fl.tensor: data[1] must be an integer from -9223372036854775808 to 9223372036854775807 (i64), got 9223372036854775808n");
    expectThrows(() => fl.tensor([-1n], { dtype: "u64", device: dev() }), fl.ArgumentError,
      "fl.tensor: data[0] must be an integer from 0 to 18446744073709551615 (u64), got -1n");
    expectThrows(() => fl.tensor([0.5], { dtype: "u64", device: dev() }), fl.ArgumentError,
      "fl.tensor: data[0] must be an integer from 0 to 18446744073709551615 (u64), got 0.5");
    expect(Array.from(fl.full([2], 2n ** 62n + 3n, { dtype: "i64", device: dev() }).toArray())).to.deep.equal([2n ** 62n + 3n, 2n ** 62n + 3n]);
    expect(Array.from(fl.ones([2], { dtype: "u64", device: dev() }).toArray())).to.deep.equal([1n, 1n]);
    expect(Array.from(fl.zeros([2], { dtype: "i64", device: dev() }).toArray())).to.deep.equal([0n, 0n]);
    // Smaller integer types take bigints too.
    expect(Array.from(fl.tensor([3n, -4n], { dtype: "i16", device: dev() }).toArray())).to.deep.equal([3, -4]);
  });

  it("infers shapes from nested arrays and dtypes from typed arrays", () => {
    const t = fl.tensor([[1, 2, 3], [4, 5, 6]], { device: dev() });
    expect(t.shape).to.deep.equal([2, 3]);
    expect(t.dtype).to.equal("f32");
    expect(t.size).to.equal(6);
    expect(t.bytes).to.equal(24);
    expect(t.device).to.equal(dev());
    expect(t.describe()).to.equal(`an f32 tensor of shape [2, 3] on ${dev().describe()}`);
    const typed: [ArrayLike<number> | ArrayLike<bigint>, fl.DType][] = [
      [Int32Array.of(1, 2), "i32"], [Uint8Array.of(1, 2), "u8"], [Uint8ClampedArray.of(1), "u8"], [Float64Array.of(0.1), "f64"],
      [Int8Array.of(-1), "i8"], [Int16Array.of(-1), "i16"], [Uint16Array.of(1), "u16"], [Uint32Array.of(1), "u32"],
      [BigInt64Array.of(-1n), "i64"], [BigUint64Array.of(1n), "u64"], [Float32Array.of(1), "f32"],
    ];
    for (const [data, dtype] of typed) expect(fl.tensor(data, { device: dev() }).dtype).to.equal(dtype);
    expect(fl.tensor([[1n, 2n]], { device: dev() }).dtype).to.equal("i64");
    expect(fl.tensor(7n, { device: dev() }).dtype).to.equal("i64");
    const shaped = fl.tensor(Float32Array.from(range(12)), { shape: [3, 4], device: dev() });
    expect(shaped.shape).to.deep.equal([3, 4]);
    expect(Array.from(shaped.toArray())).to.deep.equal(range(12));
    expect(fl.tensor(5, { device: dev() }).shape).to.deep.equal([1]);
  });

  it("checks data against its shape and dtype, word for word", () => {
    expectThrows(() => fl.tensor([1, 2, 3, 4, 5, 6], { shape: [4, 2], device: dev() }), fl.ArgumentError,
      "fl.tensor: options.shape must be a shape of 6 elements (the length of data), got [4, 2] (8 elements)");
    expectThrows(() => fl.tensor([[1, 2, 3], [4, 5]], { device: dev() }), fl.ArgumentError,
      "fl.tensor: data[1] must be an array of length 3 (as its siblings), got [4, 5]");
    expectThrows(() => fl.tensor([1, 2.5], { dtype: "i32", device: dev() }), fl.ArgumentError,
      "fl.tensor: data[1] must be an integer from -2147483648 to 2147483647 (i32), got 2.5");
    expectThrows(() => fl.tensor([256], { dtype: "u8", device: dev() }), fl.ArgumentError,
      "fl.tensor: data[0] must be an integer from 0 to 255 (u8), got 256");
    expectThrows(() => fl.tensor([1, "2" as unknown as number], { device: dev() }), fl.ArgumentError,
      "fl.tensor: data[1] must be a number, got \"2\"");
    expectThrows(() => fl.tensor([1], { dtype: "f8" as fl.DType, device: dev() }), fl.ArgumentError,
      "fl.tensor: options.dtype must be one of f32, f16, bf16, f64, i8, u8, i16, u16, i32, u32, i64, u64, got \"f8\"");
    expectThrows(() => fl.tensor([-129], { dtype: "i8", device: dev() }), fl.ArgumentError,
      "fl.tensor: data[0] must be an integer from -128 to 127 (i8), got -129");
    expectThrows(() => fl.tensor([1, 2 ** 32], { dtype: "u32", device: dev() }), fl.ArgumentError,
      "fl.tensor: data[1] must be an integer from 0 to 4294967295 (u32), got 4294967296");
    expectThrows(() => fl.tensor([1n], { dtype: "f64", device: dev() }), fl.ArgumentError, "fl.tensor: data[0] must be a number, got 1n");
    // A typed array of other values is checked element by element.
    expectThrows(() => fl.tensor(Int32Array.of(0, 70000), { dtype: "i16", device: dev() }), fl.ArgumentError,
      "fl.tensor: data[1] must be an integer from -32768 to 32767 (i16), got 70000");
    expectThrows(() => fl.tensor([1], { device: "cpu" as unknown as fl.Device }), fl.ArgumentError,
      "fl.tensor: options.device must be a device from fl.device(), got \"cpu\"");
  });

  it("refuses negative, fractional, NaN and over-large shapes", () => {
    expectThrows(() => fl.ones([-3], { device: dev() }), fl.ArgumentError, "fl.ones: shape[0] must be a non-negative integer, got -3");
    expectThrows(() => fl.empty([2.5], { device: dev() }), fl.ArgumentError, "fl.empty: shape[0] must be a non-negative integer, got 2.5");
    expectThrows(() => fl.randn([NaN], { device: dev() }), fl.ArgumentError, "fl.randn: shape[0] must be a non-negative integer, got NaN");
    expectThrows(() => fl.zeros([], { device: dev() }), fl.ArgumentError, "fl.zeros: shape must be an array of at least one dimension, got []");
    expectThrows(() => fl.zeros(7 as unknown as number[], { device: dev() }), fl.ArgumentError, "fl.zeros: shape must be an array of non-negative integers, got 7");
    expectThrows(() => fl.zeros([65536, 65537], { device: dev() }), fl.ArgumentError,
      "fl.zeros: shape must be at most 2147483648 (2^31) elements, got [65536, 65537] (4295032832 elements)");
  });

  it("makes tensors of no elements, which kernels get as a pointer with nothing to reach, and built-in ops as a batch of nothing", () => {
    const device = dev();
    const made = [fl.empty([0], { device }), fl.tensor([], { device }), fl.zeros([3, 0], { dtype: "i32", device }), fl.full([0, 2], 5, { dtype: "u8", device }),
      fl.tensor([[], []], { dtype: "f64", device }), fl.randn([0, 4], { device })];
    expect(made.map((t) => [t.describe(), t.size, t.bytes, t.toArray().length])).to.deep.equal([
      [`an f32 tensor of shape [0] on ${device.describe()}`, 0, 0, 0], [`an f32 tensor of shape [0] on ${device.describe()}`, 0, 0, 0],
      [`an i32 tensor of shape [3, 0] on ${device.describe()}`, 0, 0, 0], [`a u8 tensor of shape [0, 2] on ${device.describe()}`, 0, 0, 0],
      [`an f64 tensor of shape [2, 0] on ${device.describe()}`, 0, 0, 0], [`an f32 tensor of shape [0, 4] on ${device.describe()}`, 0, 0, 0]]);
    expect(made[0].to(fl.device("cpu")).shape).to.deep.equal([0]);
    // A kernel whose bounds keep it from reading runs; one that reads element 0 is stopped in check mode.
    const module = fl.compile(`
__global__ void scale(float* out, const float* x, float s, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = s * x[i];
}
__global__ void first(float* out, const float* x) { out[0] = x[0]; }`, { device });
    module.fn("scale").launch({ grid: 1, block: 32 }, made[0], made[1], 2, 0);
    expect(Array.from(made[0].toArray())).to.deep.equal([]);
    const checked = fl.device("cpu", { check: true });
    const out = fl.full([1], NaN, { device: checked });
    fl.compile("__global__ void first(float* out, const float* x) { out[0] = x[0]; }", { device: checked }).fn("first")
      .launch({ grid: 1, block: 1 }, out, fl.empty([0], { device: checked }));
    expectThrows(() => out.toArray(), fl.DeviceError, /kernel 'first' read out of bounds: argument 1 \(const f32\*\), element 0, 1 past the end of a 0-element view/);
    // Ops over no rows, or rows of no elements, give tensors of no elements; a row's sum of nothing is 0.
    expect(fl.ops.add(made[0], made[1]).shape).to.deep.equal([0]);
    expect(fl.ops.rmsNorm(fl.zeros([0, 8], { device }), fl.ones([8], { device })).shape).to.deep.equal([0, 8]);
    expect(fl.ops.layerNorm(fl.zeros([4, 0], { device }), fl.ones([0], { device }), fl.zeros([0], { device })).shape).to.deep.equal([4, 0]);
    expect(Array.from(fl.ops.rowSum(fl.zeros([3, 0], { device })).toArray())).to.deep.equal([0, 0, 0]);
    expect(fl.allclose(made[0], made[1])).to.equal(true);
  });

  it("refuses a tensor larger than the device's memory", () => {
    const tiny = { props: { totalMemory: 2 ** 20 }, describe: () => "a 1 MiB device" } as unknown as fl.Device;
    expectThrows(() => checkShape("fl.zeros", [1024, 1024], "f32", tiny), fl.ArgumentError,
      "fl.zeros: shape must be a tensor that fits in the memory of a 1 MiB device (1.00 MiB), got [1024, 1024] (4.00 MiB of f32)");
    expect(checkShape("fl.zeros", [512, 512], "f32", tiny)).to.deep.equal([512, 512]);
  });

  it("makes zeros, ones, full and poisoned empty tensors", () => {
    expect(Array.from(fl.zeros([3], { device: dev() }).toArray())).to.deep.equal([0, 0, 0]);
    expect(Array.from(fl.ones([2, 2], { dtype: "bf16", device: dev() }).toArray())).to.deep.equal([1, 1, 1, 1]);
    expect(Array.from(fl.full([2], 7, { dtype: "i32", device: dev() }).toArray())).to.deep.equal([7, 7]);
    expect(Array.from(fl.full([2], -1.5, { dtype: "f16", device: dev() }).toArray())).to.deep.equal([-1.5, -1.5]);
    expectThrows(() => fl.full([2], 0.5, { dtype: "u8", device: dev() }), fl.ArgumentError,
      "fl.full: value must be an integer from 0 to 255 (u8), got 0.5");
    const poison = fl.debug.poison;
    try {
      fl.debug.poison = true;
      for (const v of fl.empty([5], { device: dev() }).toArray()) expect(v).to.be.NaN;
      expect(Array.from(fl.empty([2], { dtype: "i32", device: dev() }).toArray())).to.deep.equal([-1, -1]);
      expect(Array.from(fl.empty([1], { dtype: "u64", device: dev() }).toArray())).to.deep.equal([2n ** 64n - 1n]);
      expect(fl.empty([1], { dtype: "f64", device: dev() }).toArray()[0]).to.be.NaN;
    } finally {
      fl.debug.poison = poison;
    }
  });

  it("draws the same seeded numbers on every device, independent of the tensor's size", () => {
    const a = fl.randn([1000], { seed: 42, device: dev() }).toArray();
    const b = fl.randn([1000], { seed: 42, device: otherDevice() }).toArray();
    const prefix = fl.randn([7], { seed: 42, device: dev() }).toArray();
    expect(Array.from(a)).to.deep.equal(Array.from(b));
    expect(Array.from(prefix)).to.deep.equal(Array.from(a.slice(0, 7)));
    expect(Array.from(fl.randn([10], { seed: 43, device: dev() }).toArray())).to.not.deep.equal(Array.from(a.slice(0, 10)));
    expect(Array.from(fl.randn([10], { device: dev() }).toArray())).to.not.deep.equal(Array.from(fl.randn([10], { device: dev() }).toArray()));
  });

  it("draws normal and uniform numbers with the right moments", () => {
    const n = 200_000;
    const normal = Array.from(fl.randn([n], { seed: 7, device: dev() }).toArray());
    const mean = normal.reduce((s, v) => s + v, 0) / n;
    const variance = normal.reduce((s, v) => s + (v - mean) ** 2, 0) / n;
    expect(Math.abs(mean)).to.be.below(0.01);
    expect(Math.abs(variance - 1)).to.be.below(0.02);
    const uniform = Array.from(fl.rand([n], { seed: 7, device: dev() }).toArray());
    expect(uniform.every((v) => v >= 0 && v < 1)).to.equal(true);
    expect(Math.abs(uniform.reduce((s, v) => s + v, 0) / n - 0.5)).to.be.below(0.005);
    expectThrows(() => fl.randn([2], { dtype: "i32" as "f32", device: dev() }), fl.ArgumentError, "fl.randn: options.dtype must be f32, f16, bf16 or f64, got \"i32\"");
    // f64 draws the same numbers as f32, widened.
    expect(Array.from(fl.randn([5], { dtype: "f64", seed: 4, device: dev() }).toArray()))
      .to.deep.equal(Array.from(fl.randn([5], { seed: 4, device: dev() }).toArray()));
    expectThrows(() => fl.rand([2], { seed: -1, device: dev() }), fl.ArgumentError, "fl.rand: options.seed must be a non-negative integer, got -1");
  });

  it("copies to the same and to another device, and downloads asynchronously", async () => {
    const t = fl.randn([4, 7], { dtype: "bf16", seed: 3, device: dev() });
    const same = t.to(dev());
    const other = t.to(otherDevice());
    expect(same).to.not.equal(t);
    expect(other.device).to.equal(otherDevice());
    expect(other.shape).to.deep.equal([4, 7]);
    expect(Array.from(same.toArray())).to.deep.equal(Array.from(t.toArray()));
    expect(Array.from(other.toArray())).to.deep.equal(Array.from(t.toArray()));
    expect(Array.from(await t.data())).to.deep.equal(Array.from(t.toArray()));
  });

  it("throws, word for word, when a disposed tensor is used", async () => {
    const t = fl.zeros([4, 7], { device: dev() });
    expect(t.disposed).to.equal(false);
    t.dispose();
    expect(t.disposed).to.equal(true);
    t.dispose();
    const what = `an f32 tensor of shape [4, 7] on ${dev().describe()}`;
    expectThrows(() => t.toArray(), fl.FuselabError, `tensor.toArray: ${what} was used after dispose()`);
    expectThrows(() => t.to(dev()), fl.FuselabError, `tensor.to: ${what} was used after dispose()`);
    await expectRejects(t.data(), fl.FuselabError, `tensor.data: ${what} was used after dispose()`);
  });

  it("makes views of a stretch of a tensor's elements, within it, and refuses bad offsets word for word", () => {
    const t = fl.tensor(range(12), { shape: [3, 4], device: dev() });
    const middle = t.view(5, 4);
    expect([middle.offset, middle.size, middle.bytes, middle.byteOffset, middle.dtype]).to.deep.equal([5, 4, 16, 20, "f32"]);
    expect(middle.tensor).to.equal(t);
    expect(middle.device).to.equal(dev());
    expect(Array.from(middle.toArray())).to.deep.equal([5, 6, 7, 8]);
    expect(middle.describe()).to.equal(`elements 5 to 8 of an f32 tensor of shape [3, 4] on ${dev().describe()}`);
    // A view of a view lies within it, its offset counted from the tensor's start.
    const inner = middle.view(1, 2);
    expect([inner.offset, inner.size]).to.deep.equal([6, 2]);
    expect(Array.from(inner.toArray())).to.deep.equal([6, 7]);
    expect(t.view(4).size).to.equal(8);
    const end = t.view(12);
    expect([end.size, end.toArray().length]).to.deep.equal([0, 0]);
    expect(end.describe()).to.equal(`no elements (at 12) of an f32 tensor of shape [3, 4] on ${dev().describe()}`);
    expect(fl.TensorView.isView(middle)).to.equal(true);
    expect(fl.TensorView.isView({ ...middle })).to.equal(false);
    expect(fl.Tensor.isTensor(middle)).to.equal(false);
    expect(Object.isFrozen(middle)).to.equal(true);

    expectThrows(() => t.view(-1), fl.ArgumentError, "tensor.view: offset must be an integer from 0 to 12 (the elements it may start at), got -1");
    expectThrows(() => t.view(13), fl.ArgumentError, "tensor.view: offset must be an integer from 0 to 12 (the elements it may start at), got 13");
    expectThrows(() => t.view(1.5), fl.ArgumentError, "tensor.view: offset must be an integer from 0 to 12 (the elements it may start at), got 1.5");
    expectThrows(() => t.view(8, 5), fl.ArgumentError,
      "tensor.view: length must be an integer from 0 to 4 (the elements from offset 8 to the end), got 5");
    expectThrows(() => t.view(0, -1), fl.ArgumentError,
      "tensor.view: length must be an integer from 0 to 12 (the elements from offset 0 to the end), got -1");
    expectThrows(() => t.view("2" as unknown as number), fl.ArgumentError,
      "tensor.view: offset must be an integer from 0 to 12 (the elements it may start at), got \"2\"");
    expectThrows(() => middle.view(2, 3), fl.ArgumentError,
      "view.view: length must be an integer from 0 to 2 (the elements from offset 2 to the end), got 3");
    expectThrows(() => middle.view(5), fl.ArgumentError,
      "view.view: offset must be an integer from 0 to 4 (the elements it may start at), got 5");

    // A view cannot outlive its tensor.
    t.dispose();
    expectThrows(() => middle.toArray(), fl.FuselabError, `view.toArray: an f32 tensor of shape [3, 4] on ${dev().describe()} was used after dispose()`);
    expectThrows(() => t.view(0), fl.ArgumentError,
      `tensor.view: the tensor must be a tensor that has not been disposed, got a disposed f32 tensor of shape [3, 4]`);
  });

  it("views 64-bit integers as bigints", () => {
    const t = fl.tensor([1n, 2n ** 62n + 1n, 3n], { dtype: "i64", device: dev() });
    const v: BigInt64Array = t.view(1, 1).toArray();
    expect(Array.from(v)).to.deep.equal([2n ** 62n + 1n]);
  });
});
