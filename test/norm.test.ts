// rmsNorm, layerNorm and the fused addRmsNorm against float64 references, with
// their traffic, from the ops' declarations (test/op-tests.ts), on the default
// device (the CPU emulator in CI, the GPU with FUSELAB_DEVICE=gpu); below them,
// what only this family has: precision, eps, launch shapes, warps of 64, errors.
import { expect } from "chai";
import * as fl from "../src";
import { FLOAT_DTYPES, FloatDType } from "../src/ops/declare";
import { describeFusedOps, describeOps } from "./op-tests";
import { REFERENCES, addRmsNormReference, layerNormReference, rmsNormReference } from "./reference/norm";

// About two roundings of the output's dtype (the kernels round the output once;
// addRmsNorm also rounds the sum it normalises).
const TOLERANCE: Record<FloatDType, { rtol: number; atol: number }> = {
  f32: { rtol: 1e-5, atol: 1e-5 },
  f16: { rtol: 2e-3, atol: 2e-3 },
  bf16: { rtol: 1.6e-2, atol: 1.6e-2 },
};

// [rows, cols]: every awkward width (1, 7, 31, 33, 255, 257, 4097: the scalar
// path) and row count (1, 3, 1000) for every op and dtype; widths that are a
// multiple of 8 take the 16-byte vector path; 40000 is longer than a block
// keeps in registers, in every dtype (the re-read path).
const SHAPES: [number, number][] = [
  [1000, 1], [3, 7], [1, 31], [1000, 33], [3, 255], [1, 257], [3, 4097],
  [1000, 64], [3, 4096], [2, 40000],
];

let seed = 1;
function randn(shape: number[], dtype: FloatDType, device = fl.device()): fl.Tensor {
  return fl.randn(shape, { dtype, device, seed: seed++ });
}

// A chain rounds the sum to the dtype before normalising, as the fused kernel does.
const OPTIONS = { shapes: { f32: SHAPES, f16: SHAPES, bf16: SHAPES }, tolerance: TOLERANCE, chainTolerance: TOLERANCE };

describeOps(fl.declarations.norm.ops, REFERENCES, OPTIONS);
describeFusedOps(fl.declarations.norm.fused, REFERENCES, OPTIONS);

describe("norm ops", () => {
  for (const dtype of FLOAT_DTYPES) {
    describe(dtype, () => {
      it("layerNorm of rows with mean 1000 and std 1 (a one-pass variance fails this)", () => {
        const [rows, cols] = [3, 4097];
        const noise = randn([rows, cols], "f32").toArray();
        const x = fl.tensor(noise.map((v) => 1000 + v), { shape: [rows, cols], dtype, device: fl.device() });
        const gamma = randn([cols], dtype);
        const beta = randn([cols], dtype);
        const expected = layerNormReference(x.toArray(), cols, gamma.toArray(), beta.toArray(), 1e-5);
        // The f32 mean of values near 1000 carries ~1e-4 of error into each output.
        const tolerance = dtype === "f32" ? { rtol: 1e-4, atol: 5e-4 } : TOLERANCE[dtype];
        fl.assertClose(fl.ops.layerNorm(x, gamma, beta), expected, tolerance);
      });
    });
  }

  it("normalises the last dim of any rank", () => {
    const x3 = randn([2, 3, 33], "f32");
    const weight = randn([33], "f32");
    const out3 = fl.ops.rmsNorm(x3, weight);
    expect(out3.shape).to.deep.equal([2, 3, 33]);
    fl.assertClose(out3, rmsNormReference(x3.toArray(), 33, weight.toArray(), 1e-6), TOLERANCE.f32);

    const x1 = randn([257], "f32");
    const out1 = fl.ops.layerNorm(x1);
    expect(out1.shape).to.deep.equal([257]);
    fl.assertClose(out1, layerNormReference(x1.toArray(), 257, null, null, 1e-5), TOLERANCE.f32);
  });

  it("uses eps: 1e-6 for rmsNorm and addRmsNorm, 1e-5 for layerNorm by default, and the one given", () => {
    // Rows small enough that eps moves the result well past the tolerance.
    const x = fl.tensor(Array.from({ length: 64 }, (_, i) => (i % 7 - 3) * 1e-3), { shape: [2, 32], dtype: "f32", device: fl.device() });
    const xs = x.toArray();
    const residual = fl.zeros([2, 32], { dtype: "f32", device: fl.device() });
    const ones = fl.ones([32], { dtype: "f32", device: fl.device() });
    fl.assertClose(fl.ops.rmsNorm(x), rmsNormReference(xs, 32, null, 1e-6), TOLERANCE.f32);
    fl.assertClose(fl.ops.rmsNorm(x, null, { eps: 1e-2 }), rmsNormReference(xs, 32, null, 1e-2), TOLERANCE.f32);
    fl.assertClose(fl.ops.layerNorm(x), layerNormReference(xs, 32, null, null, 1e-5), TOLERANCE.f32);
    fl.assertClose(fl.ops.layerNorm(x, null, null, { eps: 1e-2 }), layerNormReference(xs, 32, null, null, 1e-2), TOLERANCE.f32);
    fl.assertClose(fl.fused.addRmsNorm(x, residual, ones).out, rmsNormReference(xs, 32, null, 1e-6), TOLERANCE.f32);
  });

  it("kernels take rows beyond the grid and row chunks beyond the registers, whatever the launch shape", () => {
    // The ops size grid and block to the input; launched here with 7 blocks of
    // one warp, each block loops over many rows and re-reads most of each row.
    const device = fl.device();
    const shape = { grid: 7, block: device.props.warpSize };
    for (const dtype of ["f32", "bf16"] as FloatDType[]) {
      for (const cols of [257, 4096]) {
        const rows = 100;
        const eps = 1e-6;
        const x = randn([rows, cols], dtype);
        const residual = randn([rows, cols], dtype);
        const weight = randn([cols], dtype);
        const xs = x.toArray();
        const w = weight.toArray();
        const expected = addRmsNormReference(xs, residual.toArray(), cols, w, eps);

        const rms = fl.empty([rows, cols], { dtype, device });
        fl.builtins(device).fn(`rms_norm_weight_${dtype}`).launch(shape, rms, x, weight, rows, cols, eps);
        fl.assertClose(rms, rmsNormReference(xs, cols, w, eps), TOLERANCE[dtype]);

        const layer = fl.empty([rows, cols], { dtype, device });
        fl.builtins(device).fn(`layer_norm_gamma_beta_${dtype}`).launch(shape, layer, x, weight, weight, rows, cols, eps);
        fl.assertClose(layer, layerNormReference(xs, cols, w, w, eps), TOLERANCE[dtype]);

        const out = fl.empty([rows, cols], { dtype, device });
        fl.builtins(device).fn(`add_rms_norm_${dtype}`).launch(shape, out, residual, x, weight, rows, cols, eps);
        fl.assertClose(residual, expected.residual, TOLERANCE[dtype]);
        fl.assertClose(out, expected.out, TOLERANCE[dtype]);
      }
    }
  });

  it("runs the same on the CPU emulator with 64-lane warps in check mode", () => {
    // AMD wavefronts are 64 lanes: a reduction that assumes 32 goes wrong here.
    // Check mode also reports any write past a buffer and shuffles thread order.
    const device = fl.device("cpu", { warpSize: 64, check: true });
    for (const [rows, cols] of [[3, 33], [2, 4096], [3, 4097]] as [number, number][]) {
      const x = randn([rows, cols], "f32", device);
      const residual = randn([rows, cols], "f32", device);
      const weight = randn([cols], "f32", device);
      const xs = x.toArray();
      const w = weight.toArray();
      fl.assertClose(fl.ops.rmsNorm(x, weight), rmsNormReference(xs, cols, w, 1e-6), TOLERANCE.f32);
      fl.assertClose(fl.ops.layerNorm(x, weight, weight), layerNormReference(xs, cols, w, w, 1e-5), TOLERANCE.f32);
      const expected = addRmsNormReference(xs, residual.toArray(), cols, w, 1e-6);
      const result = fl.fused.addRmsNorm(x, residual, weight);
      fl.assertClose(result.residual, expected.residual, TOLERANCE.f32);
      fl.assertClose(result.out, expected.out, TOLERANCE.f32);
    }
  });

  it("records one launch each with the bytes it must move", () => {
    const device = fl.device();
    const x = fl.zeros([3, 256], { dtype: "bf16", device });
    const residual = fl.zeros([3, 256], { dtype: "bf16", device });
    const weight = fl.ones([256], { dtype: "bf16", device });
    const rowsBytes = 3 * 256 * 2;
    const rowBytes = 256 * 2;
    const ledger = fl.traffic(() => {
      fl.ops.rmsNorm(x);
      fl.ops.rmsNorm(x, weight);
      fl.ops.layerNorm(x, weight, weight);
      fl.fused.addRmsNorm(x, residual, weight);
    });
    expect(ledger.entries).to.deep.equal([
      { op: "ops.rmsNorm", kernel: "rms_norm_bf16", bytesRead: rowsBytes, bytesWritten: rowsBytes, launches: 1, modelled: true },
      { op: "ops.rmsNorm", kernel: "rms_norm_weight_bf16", bytesRead: rowsBytes + rowBytes, bytesWritten: rowsBytes, launches: 1, modelled: true },
      // One tensor passed as gamma and beta is one read of it.
      { op: "ops.layerNorm", kernel: "layer_norm_gamma_beta_bf16", bytesRead: rowsBytes + rowBytes, bytesWritten: rowsBytes, launches: 1, modelled: true },
      { op: "fused.addRmsNorm", kernel: "add_rms_norm_bf16", bytesRead: 2 * rowsBytes + rowBytes, bytesWritten: 2 * rowsBytes, launches: 1, modelled: true },
    ]);
  });

  describe("argument errors", () => {
    const device = () => fl.device();

    it("names a weight of the wrong length", () => {
      const x = fl.zeros([2, 4096], { dtype: "f32", device: device() });
      const weight = fl.ones([4095], { dtype: "f32", device: device() });
      expect(() => fl.ops.rmsNorm(x, weight)).to.throw(
        "fl.ops.rmsNorm: weight must have shape [4096] (the last dim of x), got [4095]");
    });

    it("names a beta of the wrong dtype and a gamma that is not a tensor", () => {
      const x = fl.zeros([2, 8], { dtype: "f32", device: device() });
      const beta = fl.zeros([8], { dtype: "f16", device: device() });
      expect(() => fl.ops.layerNorm(x, null, beta)).to.throw(
        "fl.ops.layerNorm: beta must be of dtype f32 (the dtype of x), got f16");
      expect(() => fl.ops.layerNorm(x, [1, 2] as unknown as fl.Tensor)).to.throw(
        "fl.ops.layerNorm: gamma must be a tensor, null or undefined, got [1, 2]");
    });

    it("names an eps that is not a finite number > 0", () => {
      const x = fl.zeros([2, 8], { dtype: "bf16", device: device() });
      expect(() => fl.ops.rmsNorm(x, null, { eps: 0 })).to.throw(
        "fl.ops.rmsNorm: options.eps must be a finite number > 0, got 0");
      expect(() => fl.ops.layerNorm(x, null, null, { eps: NaN })).to.throw(
        "fl.ops.layerNorm: options.eps must be a finite number > 0, got NaN");
      expect(() => fl.fused.addRmsNorm(x, fl.zeros([2, 8], { dtype: "bf16", device: device() }), fl.ones([8], { dtype: "bf16", device: device() }),
        { epsilon: 1e-5 } as unknown as { eps: number })).to.throw(
        'fl.fused.addRmsNorm: options must be an object with keys among eps, got the key "epsilon"');
    });

    it("names a residual of the wrong shape, or x passed as its own residual", () => {
      const x = fl.zeros([2, 8], { dtype: "f16", device: device() });
      const residual = fl.zeros([2, 9], { dtype: "f16", device: device() });
      const weight = fl.ones([8], { dtype: "f16", device: device() });
      expect(() => fl.fused.addRmsNorm(x, residual, weight)).to.throw(
        "fl.fused.addRmsNorm: residual must have shape [2, 8] (the shape of x), got [2, 9]");
      expect(() => fl.fused.addRmsNorm(x, x, weight)).to.throw(
        "fl.fused.addRmsNorm: residual must be a different tensor from x (it is updated in place), got x itself");
    });

    it("names a disposed x", () => {
      const x = fl.zeros([2, 8], { dtype: "f32", device: device() });
      x.dispose();
      expect(() => fl.ops.rmsNorm(x)).to.throw(
        "fl.ops.rmsNorm: x must be a tensor that has not been disposed, got a disposed f32 tensor of shape [2, 8]");
    });
  });
});
