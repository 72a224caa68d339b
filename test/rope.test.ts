// RoPE in its layouts against float64 references, with its traffic, from the
// ops' declarations (test/op-tests.ts), on the default device (the CPU emulator
// in CI, the GPU with FUSELAB_DEVICE=gpu); below them, what only this family
// has: real angles, any launch shape, positions outside the cache, errors.
import { expect } from "chai";
import * as fl from "../src";
import { FloatDType } from "../src/ops/declare";
import { Tolerance, describeFusedOps, describeOps } from "./op-tests";
import { REFERENCES, qkNormRopeReference, ropePositionsReference, ropeTablesReference } from "./reference/rope";
import { ROPE_SHAPES, ROPE_TOLERANCE } from "./rope-cases";

const TOLERANCE = ROPE_TOLERANCE;
// The examples read a shape's rows as time steps or tokens, and use 3 or 5 heads.
const SHAPES = ROPE_SHAPES;

describeOps(fl.declarations.rope.ops, REFERENCES,
  { shapes: { f32: SHAPES, f16: SHAPES, bf16: SHAPES }, tolerance: TOLERANCE, chainTolerance: TOLERANCE });
// qkNormRope's chain rounds the normalised heads to the dtype before turning them.
const CHAIN_TOLERANCE: Tolerance = {
  f32: { rtol: 2e-5, atol: 2e-5 },
  f16: { rtol: 4e-3, atol: 2e-2 },
  bf16: { rtol: 3e-2, atol: 1.2e-1 },
};
describeFusedOps(fl.declarations.rope.fused, REFERENCES,
  { shapes: { f32: SHAPES, f16: SHAPES, bf16: SHAPES }, tolerance: TOLERANCE, chainTolerance: CHAIN_TOLERANCE });

let seed = 1;
const randn = (shape: number[], dtype: FloatDType = "f32") => fl.randn(shape, { dtype, device: fl.device(), seed: seed++ });

/** Llama's tables: angle of pair i at step p = p * 10000^(-2i/d). */
function llamaTables(steps: number, d: number): { cos: number[]; sin: number[] } {
  const cos: number[] = [], sin: number[] = [];
  for (let p = 0; p < steps; p++) {
    for (let i = 0; i < d / 2; i++) {
      const angle = p * 10000 ** (-2 * i / d);
      cos.push(Math.cos(angle));
      sin.push(Math.sin(angle));
    }
  }
  return { cos, sin };
}

describe("rope ops", () => {
  it("turns pairs by real angles: lengths kept, step 0 unchanged, each layout pairing its own values", () => {
    const [b, h, t, d] = [1, 3, 5, 128];
    const { cos, sin } = llamaTables(t, d);
    const c = fl.tensor(cos, { shape: [t, d / 2], device: fl.device() });
    const s = fl.tensor(sin, { shape: [t, d / 2], device: fl.device() });
    const x = randn([b, h, t, d]);
    const values = x.toArray();
    for (const [op, pairing] of [[fl.ops.rope, "halves"], [fl.ops.ropeI, "interleaved"]] as const) {
      const out = op(x, c, s);
      fl.assertClose(out, ropeTablesReference(values, [b, h, t, d], cos, sin, pairing, 2), TOLERANCE.f32);
      const o = out.toArray();
      for (let row = 0; row < b * h * t; row++) {
        const norm = (v: ArrayLike<number>) => Math.hypot(...Array.from({ length: d }, (_, k) => v[row * d + k]));
        expect(norm(o)).to.be.closeTo(norm(values), 1e-4);
        if (row % t === 0) for (let k = 0; k < d; k++) expect(o[row * d + k]).to.be.closeTo(values[row * d + k], 1e-6);
      }
    }
    // rope_thd on the same heads, transposed to [b, t, h, d], gives rope's result transposed.
    const thd = new Float32Array(values.length);
    for (let hh = 0; hh < h; hh++) for (let tt = 0; tt < t; tt++) thd.set(values.subarray((hh * t + tt) * d, (hh * t + tt + 1) * d), (tt * h + hh) * d);
    const outThd = fl.ops.ropeThd(fl.tensor(thd, { shape: [b, t, h, d], device: fl.device() }), c, s).toArray();
    const outBhtd = fl.ops.rope(x, c, s).toArray();
    for (let hh = 0; hh < h; hh++) for (let tt = 0; tt < t; tt++) for (let k = 0; k < d; k++) {
      expect(outThd[(tt * h + hh) * d + k]).to.equal(outBhtd[(hh * t + tt) * d + k]);
    }
  });

  it("kernels take any launch shape: one thread, a few blocks, more threads than work", () => {
    const device = fl.device();
    for (const dtype of ["f32", "bf16"] as FloatDType[]) {
      for (const d of [6, 128]) {
        const [b, h, t] = [2, 3, 5];
        const x = randn([b, h, t, d], dtype), c = randn([t, d / 2], dtype), s = randn([t, d / 2], dtype);
        const expected = ropeTablesReference(x.toArray(), [b, h, t, d], c.toArray(), s.toArray(), "interleaved", 2);
        for (const shape of [{ grid: 1, block: 1 }, { grid: 3, block: 32 }, { grid: 64, block: 256 }]) {
          const out = fl.empty([b, h, t, d], { dtype, device });
          fl.builtins(device).fn(`rope_i_${dtype}`).launch(shape, out, x, c, s, b, h, t, d / 2);
          fl.assertClose(out, expected, TOLERANCE[dtype]);
        }
      }
    }
  });

  it("qk_norm_rope takes any row group: one thread a head, 2 or 16 threads, fewer blocks than heads", () => {
    const device = fl.device();
    const [tokens, d, maxPos] = [5, 128, 7];
    const options = { qHeads: 3, kvHeads: 1 };
    for (const dtype of ["f32", "bf16"] as FloatDType[]) {
      for (const neox of [true, false]) {
        const before = randn([tokens, 5 * d], dtype).toArray();
        const qWeight = randn([d], dtype), kWeight = randn([d], dtype), cache = randn([maxPos, d], dtype);
        const positions = fl.tensor(Int32Array.from([6, 0, 3, 3, 1]), { shape: [tokens], dtype: "i32", device });
        const expected = qkNormRopeReference(before, tokens, qWeight.toArray(), kWeight.toArray(), positions.toArray(),
          cache.toArray(), d, { ...options, neox });
        const kernel = fl.builtins(device).fn(`qk_norm_rope_${neox ? "neox" : "interleaved"}_${dtype}`);
        for (const shape of [{ grid: [1, 1], block: [1, 1] }, { grid: [3, 1], block: [2, 4] }, { grid: [64, 1], block: [16, 16] }]) {
          const qkv = fl.tensor(before, { shape: [tokens, 5 * d], dtype, device });
          kernel.launch(shape as fl.LaunchConfig, qkv, qWeight, kWeight, positions, cache, tokens, 3, 1, d / 2, maxPos, d / 2, 1e-6);
          fl.assertClose(qkv, expected, CHAIN_TOLERANCE[dtype]);
        }
      }
    }
  });

  it("runs the same on the CPU emulator with 64-lane warps in check mode", () => {
    const device = fl.device("cpu", { warpSize: 64, check: true });
    const x = fl.randn([3, 5, 80], { device, seed: 7 });
    const positions = fl.tensor(Int32Array.from([4, 0, 9]), { shape: [3], dtype: "i32", device });
    const cache = fl.randn([10, 40], { device, seed: 8 });
    fl.assertClose(fl.ops.ropePositions(x, positions, cache),
      ropePositionsReference(x.toArray(), [3, 5, 80], [4, 0, 9], cache.toArray(), 40, true), TOLERANCE.f32);
  });

  it("qkNormRope: the same on 64-lane warps in check mode, v heads untouched, head dims up to 256", () => {
    const device = fl.device("cpu", { warpSize: 64, check: true });
    for (const d of [80, 256]) {
      const tokens = 3, options = { qHeads: 3, kvHeads: 1 };
      const qkv = fl.randn([tokens, 5 * d], { device, seed: 9 });
      const before = qkv.toArray();
      const qWeight = fl.randn([d], { device, seed: 10 }), kWeight = fl.randn([d], { device, seed: 11 });
      const positions = fl.tensor(Int32Array.from([2, 0, 2]), { shape: [tokens], dtype: "i32", device });
      const cache = fl.randn([3, d / 2], { device, seed: 12 });
      const expected = qkNormRopeReference(before, tokens, qWeight.toArray(), kWeight.toArray(), [2, 0, 2], cache.toArray(), d / 2, options);
      const { qkv: result } = fl.fused.qkNormRope(qkv, qWeight, kWeight, positions, cache, options);
      expect(result).to.equal(qkv);
      fl.assertClose(qkv, expected, TOLERANCE.f32);
      const after = qkv.toArray();
      for (let t = 0; t < tokens; t++) for (let k = 4 * d; k < 5 * d; k++) expect(after[t * 5 * d + k]).to.equal(before[t * 5 * d + k]);
    }
  });

  it("counts each distinct cache row once: the bytes a position-indexed read moves", () => {
    const x = fl.zeros([4, 2, 8], { dtype: "bf16", device: fl.device() });
    const positions = fl.tensor(Int32Array.from([3, 3, 0, 3]), { shape: [4], dtype: "i32", device: fl.device() });
    const cache = fl.zeros([100, 8], { dtype: "bf16", device: fl.device() });
    const ledger = fl.traffic(() => fl.ops.ropePositions(x, positions, cache));
    expect(ledger.entries.map((e) => [e.bytesRead, e.bytesWritten])).to.deep.equal([[x.bytes + 16 + 2 * 8 * 2, x.bytes]]);
  });

  describe("argument errors", () => {
    it("names a position outside the cache, and never launches", () => {
      const x = fl.zeros([3, 2, 8], { dtype: "f32", device: fl.device() });
      const cache = fl.zeros([16, 8], { dtype: "f32", device: fl.device() });
      for (const bad of [16, -1]) {
        const positions = fl.tensor(Int32Array.from([0, bad, 2]), { shape: [3], dtype: "i32", device: fl.device() });
        const ledger = fl.traffic(() => expect(() => fl.ops.ropePositions(x, positions, cache)).to.throw(
          `fl.ops.ropePositions: positions[1] must be from 0 to 15 (the rows of cosSinCache), got ${bad}`));
        expect(ledger.launches).to.equal(0);
      }
    });

    it("qkNormRope names a qkv that does not hold its heads, missing head counts, a position outside the cache", () => {
      const dev = fl.device();
      const qkv = fl.zeros([2, 5 * 8], { dtype: "bf16", device: dev });
      const w = fl.ones([8], { dtype: "bf16", device: dev });
      const cache = fl.zeros([4, 8], { dtype: "bf16", device: dev });
      const positions = fl.tensor(Int32Array.from([0, 4]), { shape: [2], dtype: "i32", device: dev });
      expect(() => fl.fused.qkNormRope(qkv, w, w, positions, cache, { qHeads: 2, kvHeads: 2 })).to.throw(
        "fl.fused.qkNormRope: qkv must be of shape [tokens, (qHeads + 2 * kvHeads) * headDim] = [tokens, 6 * headDim] with headDim even, got [2, 40]");
      expect(() => fl.fused.qkNormRope(qkv, w, w, positions, cache, { qHeads: 3 } as never)).to.throw(
        "fl.fused.qkNormRope: options.kvHeads must be a positive integer, got undefined");
      const ledger = fl.traffic(() => expect(() => fl.unfused.qkNormRope(qkv, w, w, positions, cache, { qHeads: 3, kvHeads: 1 })).to.throw(
        "fl.unfused.qkNormRope: positions[1] must be from 0 to 3 (the rows of cosSinCache), got 4"));
      expect(ledger.launches).to.equal(0);
    });

    it("names positions of the wrong dtype or length, a rotary dim past the head dim, a table of the wrong shape", () => {
      const x = fl.zeros([3, 2, 8], { dtype: "f32", device: fl.device() });
      const cache = fl.zeros([16, 8], { dtype: "f32", device: fl.device() });
      expect(() => fl.ops.ropePositions(x, fl.zeros([3], { dtype: "f32", device: fl.device() }), cache)).to.throw(
        "fl.ops.ropePositions: positions must be an i32 tensor of shape [3] (one position a token of x), got a tensor of dtype f32 and shape [3]");
      const positions = fl.tensor(Int32Array.from([0, 1, 2]), { shape: [3], dtype: "i32", device: fl.device() });
      expect(() => fl.ops.ropePositions(x, positions, fl.zeros([16, 10], { dtype: "f32", device: fl.device() }))).to.throw(
        "fl.ops.ropePositions: cosSinCache must be of shape [maxPositions, rotaryDim] with rotaryDim even, from 2 to 8 (the head dim of x), got [16, 10]");
      expect(() => fl.ops.ropePositions(x, positions, cache, { neox: 1 } as unknown as { neox: boolean })).to.throw(
        "fl.ops.ropePositions: options.neox must be a boolean, got 1");
      const x4 = fl.zeros([1, 2, 3, 8], { dtype: "f32", device: fl.device() });
      expect(() => fl.ops.rope(x4, fl.zeros([3, 8], { dtype: "f32", device: fl.device() }), fl.zeros([3, 4], { dtype: "f32", device: fl.device() }))).to.throw(
        "fl.ops.rope: cos must have shape [3, 4] ([time, dim/2] of x), got [3, 8]");
      expect(() => fl.ops.ropeI(fl.zeros([2, 3, 7], { dtype: "f32", device: fl.device() }), x, x)).to.throw(
        "fl.ops.ropeI: x must be of shape [batch, heads, time, dim] with an even head dim, got [2, 3, 7]");
    });
  });
});
