// Every elementwise op and fused op, in every storage dtype, against float64
// references (test/reference/elementwise.ts), with its traffic, from the ops'
// declarations (test/op-tests.ts), on the default device: the CPU emulator in
// CI, the GPU with FUSELAB_DEVICE=gpu. Outputs start poisoned (NaN,
// test/setup.ts), so an element a kernel never writes fails the comparison.
// Below them, what only this family has: ranks, special values, errors.
import { expect } from "chai";
import * as fl from "../src";
import type { FloatDType } from "../src/ops/declare";
import { expectThrows } from "./helpers";
import { describeFusedOps, describeOps, uniform } from "./op-tests";
import * as ref from "./reference/elementwise";

// One rounding of the output's dtype, plus f32 arithmetic (erff, tanhf, expf are
// a few ulp; gelu's 1 + erf cancels near -3, hence an absolute term).
const TOLERANCE: Record<FloatDType, { rtol: number; atol: number }> = {
  f32: { rtol: 1e-5, atol: 1e-6 },
  f16: { rtol: 1e-3, atol: 1e-3 },
  bf16: { rtol: 8e-3, atol: 8e-3 },
};
// A fused op against its unfused chain: the chain also rounds each intermediate.
const CHAIN_TOLERANCE: Record<FloatDType, { rtol: number; atol: number }> = {
  f32: { rtol: 2e-5, atol: 2e-6 },
  f16: { rtol: 4e-3, atol: 4e-3 },
  bf16: { rtol: 3e-2, atol: 3e-2 },
};

// [rows, cols] per dtype: every awkward width (odd: the scalar row path, and a
// flat tail) with every row count, paired differently for each dtype so the
// three dtypes together cover many pairs without the cost of 1000 x 4097 each.
// Widths 64 and 4096 are multiples of every vector width (the 16-byte row path).
const SHAPES: Record<FloatDType, [number, number][]> = {
  f32: [[1, 1], [3, 7], [1000, 31], [1, 33], [3, 255], [1000, 257], [3, 4097], [1000, 64], [3, 4096]],
  f16: [[3, 1], [1000, 7], [1, 31], [3, 33], [1000, 255], [1, 257], [1, 4097], [3, 64], [1, 4096]],
  bf16: [[1000, 1], [1, 7], [3, 31], [1000, 33], [1, 255], [3, 257], [3, 4097], [1, 64], [3, 4096]],
};

const SCALE = -1.75;
const OPTIONS = { shapes: SHAPES, tolerance: TOLERANCE, chainTolerance: CHAIN_TOLERANCE };

let nextSeed = 1;
/** A tensor of random values exactly representable in `dtype`, and those values. */
function input(shape: number[], dtype: FloatDType): { tensor: fl.Tensor; values: Float64Array } {
  const values = ref.roundTo(dtype, uniform(shape.reduce((p, d) => p * d, 1), nextSeed++));
  return { tensor: fl.tensor(Float32Array.from(values), { shape, dtype, device: fl.device() }), values };
}

describeOps(fl.declarations.elementwise.ops, ref.REFERENCES, OPTIONS);
describeFusedOps(fl.declarations.elementwise.fused, ref.REFERENCES, OPTIONS);

describe("elementwise ops", () => {
  it("takes any rank: a 3-D x with a bias over its last dim, a 1-D add", () => {
    const x = input([2, 3, 5], "f32"), bias = input([5], "f32");
    const out = fl.fused.reluScaleBias(x.tensor, SCALE, bias.tensor);
    expect(out.shape).to.deep.equal([2, 3, 5]);
    fl.assertClose(out, ref.reluScaleBias(x.values, SCALE, bias.values), TOLERANCE.f32);
    const a = input([9], "f32"), b = input([9], "f32");
    fl.assertClose(fl.ops.add(a.tensor, b.tensor), ref.add(a.values, b.values), TOLERANCE.f32);
  });

  it("act_and_mul keeps the leading dims: [2, 3, 2, 8] -> [2, 3, 8]", () => {
    const x = input([2, 3, 2, 8], "bf16");
    const out = fl.fused.siluAndMul(x.tensor);
    expect(out.shape).to.deep.equal([2, 3, 8]);
    fl.assertClose(out, ref.actAndMul(x.values, 8, ref.siluOf), TOLERANCE.bf16);
  });

  it("relu passes +-Infinity through and keeps NaN", () => {
    const x = fl.tensor([-Infinity, Infinity, NaN, -0.5, 2], { dtype: "f32", device: fl.device() });
    const out = Array.from(fl.ops.relu(x).toArray());
    expect(out.slice(0, 2)).to.deep.equal([0, Infinity]);
    expect(out[2]).to.be.NaN;
    expect(out.slice(3)).to.deep.equal([0, 2]);
  });

  describe("argument errors", () => {
    const dev = () => fl.device();
    // The whole message, word for word, from an ArgumentError.
    const expectArgumentError = (fn: () => unknown, message: string) => expectThrows(fn, fl.ArgumentError, message);
    const f32 = (shape: number[]) => fl.zeros(shape, { dtype: "f32", device: dev() });

    it("names a shape mismatch", () => {
      expectArgumentError(() => fl.ops.add(f32([4, 7]), f32([4, 8])),
        "fl.ops.add: b must have shape [4, 7] (the shape of a), got [4, 8]");
    });

    it("names a dtype mismatch", () => {
      const b = fl.zeros([4, 7], { dtype: "f16", device: dev() });
      expectArgumentError(() => fl.fused.addRelu(f32([4, 7]), b),
        "fl.fused.addRelu: b must be of dtype f32 (the dtype of a), got f16");
    });

    it("refuses a dtype the kernels are not built for", () => {
      const x = fl.zeros([4], { dtype: "i32", device: dev() });
      expectArgumentError(() => fl.ops.relu(x),
        "fl.ops.relu: x must be a tensor of dtype f32, f16 or bf16, got a tensor of dtype i32");
    });

    it("names a tensor on another device", () => {
      const a = f32([3]);
      const other = fl.device("cpu", { warpSize: 64 });
      const b = fl.zeros([3], { dtype: "f32", device: other });
      expectArgumentError(() => fl.ops.mul(a, b),
        `fl.ops.mul: b must be on ${a.device.describe()} (the device of a), got a tensor on ${other.describe()}`);
    });

    it("refuses a disposed tensor and a non-tensor", () => {
      const x = f32([4, 7]);
      x.dispose();
      expectArgumentError(() => fl.ops.relu(x),
        "fl.ops.relu: x must be a tensor that has not been disposed, got a disposed f32 tensor of shape [4, 7]");
      expectArgumentError(() => fl.ops.add(3 as unknown as fl.Tensor, f32([1])),
        "fl.ops.add: a must be a tensor, got 3");
    });

    it("checks a bias against the last dim", () => {
      expectArgumentError(() => fl.ops.biasAdd(f32([4, 7]), f32([8])),
        "fl.ops.biasAdd: bias must have shape [7] (the last dim of x), got [8]");
      expectArgumentError(() => fl.fused.biasGelu(f32([4, 7]), f32([1, 7])),
        "fl.fused.biasGelu: bias must have shape [7] (the last dim of x), got [1, 7]");
    });

    it("wants [..., 2, d] for act_and_mul", () => {
      expectArgumentError(() => fl.fused.siluAndMul(f32([4, 3, 8])),
        "fl.fused.siluAndMul: x must be of shape [..., 2, d] (gate and up stacked on the second-to-last dim), got [4, 3, 8]");
      expectArgumentError(() => fl.fused.geluAndMul(f32([8])),
        "fl.fused.geluAndMul: x must be of shape [..., 2, d] (gate and up stacked on the second-to-last dim), got [8]");
    });

    it("wants a finite scale and a known gelu form", () => {
      expectArgumentError(() => fl.ops.scale(f32([2]), NaN), "fl.ops.scale: s must be a finite number, got NaN");
      expectArgumentError(() => fl.fused.reluScaleBias(f32([2]),
        "2" as unknown as number), 'fl.fused.reluScaleBias: scale must be a finite number, got "2"');
      expectArgumentError(() => fl.ops.gelu(f32([2]), { approximate: "erf" as "none" }),
        'fl.ops.gelu: options.approximate must be "none" or "tanh", got "erf"');
      // A misspelt option is an error, not silently the default (erf) form.
      expectArgumentError(() => fl.fused.biasGelu(f32([2]), f32([2]), { approximat: "tanh" } as fl.GeluOptions),
        'fl.fused.biasGelu: options must be an object with keys among approximate, got the key "approximat"');
    });
  });
});
