// Tensors: dtype conversions, round trips per dtype, factories, shapes, seeded
// random numbers, copies between devices, dispose.
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
  });

  it("infers shapes from nested arrays and dtypes from typed arrays", () => {
    const t = fl.tensor([[1, 2, 3], [4, 5, 6]], { device: dev() });
    expect(t.shape).to.deep.equal([2, 3]);
    expect(t.dtype).to.equal("f32");
    expect(t.size).to.equal(6);
    expect(t.bytes).to.equal(24);
    expect(t.device).to.equal(dev());
    expect(t.describe()).to.equal(`a f32 tensor of shape [2, 3] on ${dev().describe()}`);
    expect(fl.tensor(Int32Array.of(1, 2), { device: dev() }).dtype).to.equal("i32");
    expect(fl.tensor(Uint8Array.of(1, 2), { device: dev() }).dtype).to.equal("u8");
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
    expectThrows(() => fl.tensor([1], { dtype: "f64" as fl.DType, device: dev() }), fl.ArgumentError,
      "fl.tensor: options.dtype must be one of f32, f16, bf16, i32, u8, got \"f64\"");
    expectThrows(() => fl.tensor([], { device: dev() }), fl.ArgumentError, "fl.tensor: data must be at least one element, got []");
    expectThrows(() => fl.tensor([1], { device: "cpu" as unknown as fl.Device }), fl.ArgumentError,
      "fl.tensor: options.device must be a device from fl.device(), got \"cpu\"");
  });

  it("refuses zero-size, negative, fractional, NaN and over-large shapes", () => {
    expectThrows(() => fl.zeros([4, 0], { device: dev() }), fl.ArgumentError, "fl.zeros: shape[1] must be a positive integer, got 0");
    expectThrows(() => fl.ones([-3], { device: dev() }), fl.ArgumentError, "fl.ones: shape[0] must be a positive integer, got -3");
    expectThrows(() => fl.empty([2.5], { device: dev() }), fl.ArgumentError, "fl.empty: shape[0] must be a positive integer, got 2.5");
    expectThrows(() => fl.randn([NaN], { device: dev() }), fl.ArgumentError, "fl.randn: shape[0] must be a positive integer, got NaN");
    expectThrows(() => fl.zeros([], { device: dev() }), fl.ArgumentError, "fl.zeros: shape must be an array of at least one dimension, got []");
    expectThrows(() => fl.zeros(7 as unknown as number[], { device: dev() }), fl.ArgumentError, "fl.zeros: shape must be an array of positive integers, got 7");
    expectThrows(() => fl.zeros([65536, 65537], { device: dev() }), fl.ArgumentError,
      "fl.zeros: shape must be at most 2147483648 (2^31) elements, got [65536, 65537] (4295032832 elements)");
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
    expectThrows(() => fl.randn([2], { dtype: "i32", device: dev() }), fl.ArgumentError, "fl.randn: options.dtype must be f32, f16 or bf16, got \"i32\"");
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
    const what = `a f32 tensor of shape [4, 7] on ${dev().describe()}`;
    expectThrows(() => t.toArray(), fl.FuselabError, `tensor.toArray: ${what} was used after dispose()`);
    expectThrows(() => t.to(dev()), fl.FuselabError, `tensor.to: ${what} was used after dispose()`);
    await expectRejects(t.data(), fl.FuselabError, `tensor.data: ${what} was used after dispose()`);
  });
});
