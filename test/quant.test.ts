// Q4_0: dequantizeQ4_0 and the fused dequantizeQ4_0RmsNorm against float64
// references, with their traffic, from the ops' declarations (test/op-tests.ts),
// on the default device (the CPU emulator in CI, the GPU with
// FUSELAB_DEVICE=gpu); below them quantizeQ4_0 against its reference, blocks
// built and worked out by hand (the nibble order, the scale's sign, the block
// stride), special values, both forms of the fused kernel, warps of 64, errors.
import { expect } from "chai";
import * as fl from "../src";
import { FLOAT_DTYPES, FloatDType } from "../src/ops/declare";
import { describeFusedOps, describeOps } from "./op-tests";
import { rmsNormReference } from "./reference/norm";
import { REFERENCES, dequantizeQ4_0Reference, halfValue, quantizeQ4_0Reference } from "./reference/quant";

// About two roundings of the output's dtype: the fused kernel rounds once, the
// chain rounds the dequantized values and then the normalised ones.
const TOLERANCE: Record<FloatDType, { rtol: number; atol: number }> = {
  f32: { rtol: 1e-5, atol: 1e-5 },
  f16: { rtol: 2e-3, atol: 2e-3 },
  bf16: { rtol: 1.6e-2, atol: 1.6e-2 },
};

// [rows, cols], cols a multiple of 32: one block a row (32), odd block counts
// (3, 5, 17), one and many rows; 256 and 1024 are rows of whole 16-byte lines
// that the short-row form stages in shared memory, several a block; 4096 is
// past what one warp decodes (the row form, staged); 40000 is past the stage.
const SHAPES: [number, number][] = [
  [1, 32], [1000, 32], [3, 96], [7, 160], [1000, 64], [33, 256], [9, 1024], [5, 544], [3, 4096], [2, 40000],
];

const OPTIONS = { shapes: { f32: SHAPES, f16: SHAPES, bf16: SHAPES }, tolerance: TOLERANCE, chainTolerance: TOLERANCE };

// quantizeQ4_0 makes bytes, not values of the dtype under test: it is checked
// byte for byte against its reference below.
describeOps(fl.declarations.quant.ops.filter((op) => op.name === "dequantizeQ4_0"), REFERENCES, OPTIONS);
describeFusedOps(fl.declarations.quant.fused, REFERENCES, OPTIONS);

let seed = 1;
function randn(shape: number[], dtype: FloatDType, device = fl.device()): fl.Tensor {
  return fl.randn(shape, { dtype, device, seed: seed++ });
}

function blocksTensor(bytes: number[], shape: number[], device = fl.device()): fl.Tensor {
  return fl.tensor(Uint8Array.from(bytes), { shape, dtype: "u8", device });
}

/** The first index where two byte arrays differ, or -1 (chai's deep equal is slow on long arrays). */
function firstDifference(a: Uint8Array, b: Uint8Array): number {
  if (a.length !== b.length) return Math.min(a.length, b.length);
  return a.findIndex((v, i) => v !== b[i]);
}

function expectBytes(actual: fl.Tensor, expected: Uint8Array): void {
  const got = actual.toArray() as Uint8Array;
  const at = firstDifference(got, expected);
  expect(at, at < 0 ? "" : `byte ${at} (block ${Math.floor(at / 18)}): ${got[at]} instead of ${expected[at]}`).to.equal(-1);
}

// Three blocks whose bytes are written out below, and their values worked out by hand.
const HAND_BLOCKS = [
  // d = 0.5 (f16 0x3800, little-endian); the low nibbles 0 2 4 ... E 1 3 ... F
  // are values 0-15, the high nibbles 1 3 5 ... F 0 2 ... E values 16-31.
  0x00, 0x38, 0x10, 0x32, 0x54, 0x76, 0x98, 0xba, 0xdc, 0xfe, 0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef,
  // d = -2 (0xC000): every byte 0xF0, low nibble 0 -> (0 - 8) * -2 = 16, high 15 -> (15 - 8) * -2 = -14.
  0x00, 0xc0, ...new Array<number>(16).fill(0xf0),
  // d = 2^-24 (0x0001, the smallest f16): every byte 0x0F, low 15 -> 7 * 2^-24, high 0 -> -8 * 2^-24.
  0x01, 0x00, ...new Array<number>(16).fill(0x0f),
];
const HAND_VALUES = [
  -4, -3, -2, -1, 0, 1, 2, 3, -3.5, -2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 3.5,
  -3.5, -2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 3.5, -4, -3, -2, -1, 0, 1, 2, 3,
  ...new Array<number>(16).fill(16), ...new Array<number>(16).fill(-14),
  ...new Array<number>(16).fill(7 * 2 ** -24), ...new Array<number>(16).fill(-8 * 2 ** -24),
];

describe("Q4_0", () => {
  describe("dequantizeQ4_0", () => {
    for (const dtype of FLOAT_DTYPES) {
      it(`decodes blocks built by hand: nibble order, scales of either sign, an 18-byte stride (${dtype})`, () => {
        // One row of three blocks, and three rows of one: a wrong block stride or
        // nibble order moves values, a wrong scale decoding changes them.
        for (const shape of [[1, 54], [3, 18]]) {
          const out = fl.ops.dequantizeQ4_0(blocksTensor(HAND_BLOCKS, shape), { dtype });
          expect(out.shape).to.deep.equal([shape[0], (shape[1] / 18) * 32]);
          expect(out.dtype).to.equal(dtype);
          // Every hand value is exact in f16 and bf16.
          fl.assertClose(out, HAND_VALUES, { rtol: 0, atol: 0 });
        }
      });
    }

    it("gives f32 by default, each value exactly (q - 8) * d", () => {
      const out = fl.ops.dequantizeQ4_0(blocksTensor(HAND_BLOCKS, [54]));
      expect(out.dtype).to.equal("f32");
      expect(out.shape).to.deep.equal([96]);
      expect(Array.from(out.toArray())).to.deep.equal(HAND_VALUES);
    });

    it("decodes a NaN scale to NaN and an infinite one to ±Inf or NaN, in that block alone", () => {
      const nanBlock = [0x00, 0x7e, ...new Array<number>(16).fill(0x88)];
      const infBlock = [0x00, 0x7c, ...new Array<number>(16).fill(0x80)];  // +Inf: low 0 -> -Inf, high 8 -> 0 * Inf = NaN
      const out = fl.ops.dequantizeQ4_0(blocksTensor([...nanBlock, ...infBlock, ...HAND_BLOCKS.slice(0, 18)], [3 * 18])).toArray();
      expect(Array.from(out.slice(0, 32)).every(Number.isNaN)).to.equal(true);
      expect(Array.from(out.slice(32, 48))).to.deep.equal(new Array(16).fill(-Infinity));
      expect(Array.from(out.slice(48, 64)).every(Number.isNaN)).to.equal(true);
      expect(Array.from(out.slice(64))).to.deep.equal(HAND_VALUES.slice(0, 32));
    });
  });

  describe("quantizeQ4_0", () => {
    // x[k] = k - 16: the first value of largest magnitude is -16, so d = -16 / -8 =
    // 2 (f16 0x4000) and id = 0.5; value j's code is trunc(x * 0.5 + 8.5), at most
    // 15: bytes j hold codes (j - 16, j): (0, 8) (1, 9) (1, 9) (2, 10) ... (8, 15).
    const RAMP = Array.from({ length: 32 }, (_, k) => k - 16);
    const RAMP_BYTES = [0x00, 0x40, 0x80, 0x91, 0x91, 0xa2, 0xa2, 0xb3, 0xb3, 0xc4, 0xc4, 0xd5, 0xd5, 0xe6, 0xe6, 0xf7, 0xf7, 0xf8];
    // [3, -1, 0, ...]: the largest magnitude is +3, so d = 3 / -8 = -0.375 (0xB600):
    // a positive maximum makes a negative scale. 3 -> code 0, -1 -> 11, 0 -> 8.
    const POSITIVE_MAX = [3, -1, ...new Array<number>(30).fill(0)];
    const POSITIVE_MAX_BYTES = [0x00, 0xb6, 0x80, 0x8b, ...new Array<number>(14).fill(0x88)];
    // [-2, 2, 0, ...] and [2, -2, 0, ...]: equal magnitudes, the first sets the
    // sign: d = 0.25 (0x3400) or -0.25 (0xB400); the codes come out the same.
    const TIE_NEGATIVE_FIRST = [-2, 2, ...new Array<number>(30).fill(0)];
    const TIE_POSITIVE_FIRST = [2, -2, ...new Array<number>(30).fill(0)];
    const tieBytes = (scaleHigh: number) => [0x00, scaleHigh, 0x80, 0x8f, ...new Array<number>(14).fill(0x88)];
    // All zeros: d = 0 / -8 = -0 (f16 0x8000, as GGML's C stores it too), id = 0, every code 8.
    const ZEROS_BYTES = [0x00, 0x80, ...new Array<number>(16).fill(0x88)];

    for (const dtype of FLOAT_DTYPES) {
      it(`encodes blocks worked out by hand (${dtype})`, () => {
        const x = fl.tensor([...RAMP, ...POSITIVE_MAX, ...TIE_NEGATIVE_FIRST, ...TIE_POSITIVE_FIRST, ...new Array<number>(32).fill(0)],
          { shape: [5, 32], dtype, device: fl.device() });
        const q = fl.quant.quantizeQ4_0(x);
        expect(q.dtype).to.equal("u8");
        expect(q.shape).to.deep.equal([5, 18]);
        expect(Array.from(q.toArray())).to.deep.equal(
          [...RAMP_BYTES, ...POSITIVE_MAX_BYTES, ...tieBytes(0x34), ...tieBytes(0xb4), ...ZEROS_BYTES]);
        expect(Array.from(quantizeQ4_0Reference(x.toArray()))).to.deep.equal(Array.from(q.toArray()));
      });

      for (const [rows, cols] of [[1, 32], [1000, 32], [3, 96], [5, 4128], [2, 40000]]) {
        it(`encodes random rows as the reference, one launch reading x and writing the blocks (${dtype} [${rows}, ${cols}])`, () => {
          const x = randn([rows, cols], dtype);
          let q: fl.Tensor | undefined;
          const ledger = fl.traffic(() => (q = fl.quant.quantizeQ4_0(x)));
          expect(q!.shape).to.deep.equal([rows, (cols / 32) * 18]);
          expectBytes(q!, quantizeQ4_0Reference(x.toArray()));
          expect(ledger.entries).to.deep.equal([{
            op: "quant.quantizeQ4_0", kernel: `quantize_q4_0_${dtype}`, bytesRead: x.bytes, bytesWritten: q!.bytes, launches: 1, modelled: true,
          }]);
        });
      }
    }

    it("rounds x · (1/d) to f32 before adding 8.5, as GGML's C code does (an fma would not)", () => {
      // max 3: d = -0.375, 1/d rounds to -2.6666667461; 2.8125 * that is
      // -7.50000022, which rounds to -7.5 in f32, + 8.5 = 1: code 1. Added in one
      // rounding (an fma), -7.50000022 + 8.5 = 0.99999978 truncates to code 0.
      const x = fl.tensor([3, 2.8125, ...new Array<number>(30).fill(0)], { shape: [32], dtype: "f32", device: fl.device() });
      const q = fl.quant.quantizeQ4_0(x).toArray();
      expect(q[2] & 0x0f, "the code of 3").to.equal(0);
      expect(q[3] & 0x0f, "the code of 2.8125").to.equal(1);
    });

    for (const dtype of FLOAT_DTYPES) {
      it(`comes back from dequantizeQ4_0 within one step |d| of each block (${dtype})`, () => {
        const [rows, cols] = [64, 256];
        const x = randn([rows, cols], dtype);
        const q = fl.quant.quantizeQ4_0(x);
        const back = fl.ops.dequantizeQ4_0(q, { dtype: "f32" }).toArray();
        const xs = x.toArray(), bytes = q.toArray();
        for (let b = 0; b < (rows * cols) / 32; b++) {
          const d = Math.abs(halfValue(bytes[b * 18] | (bytes[b * 18 + 1] << 8)));
          for (let j = 0; j < 32; j++) {
            const i = b * 32 + j;
            // Half a step from rounding, a whole one where the code 16 is clamped
            // to 15, and 8 times the rounding of d to f16 (2^-11 of it).
            expect(Math.abs(back[i] - xs[i]), `value ${i}`).to.be.at.most(d * 1.01);
          }
        }
      });
    }

    it("gives a block holding NaN a NaN scale, and keeps an infinity where it was", () => {
      const values = [...RAMP, NaN, ...new Array<number>(31).fill(1), Infinity, ...new Array<number>(31).fill(1)];
      const q = fl.quant.quantizeQ4_0(fl.tensor(values, { shape: [96], dtype: "f32", device: fl.device() }));
      const bytes = q.toArray() as Uint8Array;
      expect(Array.from(bytes.slice(0, 18))).to.deep.equal(RAMP_BYTES);
      expect(halfValue(bytes[18] | (bytes[19] << 8))).to.be.NaN;
      const back = fl.ops.dequantizeQ4_0(q).toArray();
      expect(Array.from(back.slice(32, 64)).every(Number.isNaN)).to.equal(true);
      // +Inf is the largest magnitude: d = -Inf; Inf * (1/d) is NaN, code 0, back to (0 - 8) * -Inf = +Inf.
      expect(back[64]).to.equal(Infinity);
      // Byte for byte but for the NaN scale, whose bits differ between targets.
      const expected = quantizeQ4_0Reference(values);
      expect(Array.from(bytes.slice(20))).to.deep.equal(Array.from(expected.slice(20)));
    });
  });

  describe("dequantizeQ4_0RmsNorm", () => {
    function inputs(rows: number, cols: number, dtype: FloatDType, device = fl.device()) {
      const q = fl.quant.quantizeQ4_0(randn([rows, cols], "f32", device));
      const weight = randn([cols], dtype, device);
      const expected = rmsNormReference(dequantizeQ4_0Reference(q.toArray()), cols, weight.toArray(), 1e-6);
      return { q, weight, expected };
    }

    it("picks the many-rows-a-block form for rows a warp holds, one block a row for longer ones", () => {
      const kernelOf = (rows: number, cols: number, dtype: FloatDType, options?: fl.Q4_0RmsNormOptions) => {
        const { q, weight } = inputs(rows, cols, dtype);
        return fl.traffic(() => fl.fused.dequantizeQ4_0RmsNorm(q, weight, options)).entries[0].kernel;
      };
      const { warpSize } = fl.device().props;
      // A warp holds warpSize * 4 chunks of 16 bytes: 16 * warpSize f32 values, 32 * warpSize f16.
      expect(kernelOf(64, 16 * warpSize, "f32")).to.equal("q4_0_rms_norm_batch_f32");
      expect(kernelOf(4, 16 * warpSize + 32, "f32")).to.equal("q4_0_rms_norm_f32");
      expect(kernelOf(4, 32 * warpSize, "bf16")).to.equal("q4_0_rms_norm_batch_bf16");
      expect(kernelOf(4, 32 * warpSize + 32, "f16")).to.equal("q4_0_rms_norm_f16");
      expect(kernelOf(64, 128, "f32", { variant: "row" })).to.equal("q4_0_rms_norm_f32");
      expect(kernelOf(2, 4096, "f32", { variant: "batch" })).to.equal("q4_0_rms_norm_batch_f32");
    });

    it("kernels take rows beyond the grid and chunks beyond the registers, whatever the launch shape", () => {
      const device = fl.device();
      const { warpSize } = device.props;
      for (const dtype of ["f32", "bf16"] as FloatDType[]) {
        for (const cols of [96, 4096]) {
          const rows = 100;
          const { q, weight, expected } = inputs(rows, cols, dtype);
          const blocksPerRow = cols / 32;
          // 7 blocks of one warp for one row each; 3 blocks of 8 rows of 4-lane teams.
          const row = fl.empty([rows, cols], { dtype, device });
          fl.builtins(device).fn(`q4_0_rms_norm_${dtype}`).launch({ grid: 7, block: warpSize }, row, q, weight, rows, blocksPerRow, 1e-6);
          fl.assertClose(row, expected, TOLERANCE[dtype]);
          const batch = fl.empty([rows, cols], { dtype, device });
          fl.builtins(device).fn(`q4_0_rms_norm_batch_${dtype}`).launch({ grid: 3, block: [4, 8] }, batch, q, weight, rows, blocksPerRow, 1e-6);
          fl.assertClose(batch, expected, TOLERANCE[dtype]);
        }
      }
    });

    it("runs the same on the CPU emulator with 64-lane warps in check mode", () => {
      // AMD wavefronts are 64 lanes; check mode also reports any access past a
      // buffer and shuffles the order of a block's threads.
      const device = fl.device("cpu", { warpSize: 64, check: true });
      for (const [rows, cols] of [[3, 96], [37, 64], [2, 4096]] as [number, number][]) {
        const { q, weight, expected } = inputs(rows, cols, "f32", device);
        for (const variant of ["row", "batch"] as const) {
          fl.assertClose(fl.fused.dequantizeQ4_0RmsNorm(q, weight, { variant }), expected, TOLERANCE.f32);
        }
        fl.assertClose(fl.ops.dequantizeQ4_0(q), dequantizeQ4_0Reference(q.toArray()), { rtol: 0, atol: 0 });
        const x = randn([rows, cols], "bf16", device);
        expectBytes(fl.quant.quantizeQ4_0(x), quantizeQ4_0Reference(x.toArray()));
      }
    });

    it("uses eps: 1e-6 by default, and the one given", () => {
      // Values small enough (d = 2^-24) that eps moves the result.
      const q = blocksTensor(HAND_BLOCKS.slice(36), [18]);
      const ones = fl.ones([32], { dtype: "f32", device: fl.device() });
      const values = HAND_VALUES.slice(64);
      fl.assertClose(fl.fused.dequantizeQ4_0RmsNorm(q, ones), rmsNormReference(values, 32, null, 1e-6), TOLERANCE.f32);
      fl.assertClose(fl.fused.dequantizeQ4_0RmsNorm(q, ones, { eps: 1e-2 }), rmsNormReference(values, 32, null, 1e-2), TOLERANCE.f32);
      fl.assertClose(fl.unfused.dequantizeQ4_0RmsNorm(q, ones, { eps: 1e-2 }), rmsNormReference(values, 32, null, 1e-2), TOLERANCE.f32);
    });

    it("records the bytes each launch moves: 18 bytes a block, not 20", () => {
      const device = fl.device();
      const q = blocksTensor(new Array<number>(4 * 2 * 18).fill(0x88), [4, 36], device);
      const weight = fl.ones([64], { dtype: "f16", device });
      const ledger = fl.traffic(() => {
        fl.fused.dequantizeQ4_0RmsNorm(q, weight, { variant: "row" });
        fl.unfused.dequantizeQ4_0RmsNorm(q, weight);
      });
      const [blockBytes, valueBytes, weightBytes] = [4 * 2 * 18, 4 * 64 * 2, 64 * 2];
      expect(ledger.entries).to.deep.equal([
        { op: "fused.dequantizeQ4_0RmsNorm", kernel: "q4_0_rms_norm_f16", bytesRead: blockBytes + weightBytes, bytesWritten: valueBytes, launches: 1, modelled: true },
        { op: "ops.dequantizeQ4_0", kernel: "dequantize_q4_0_f16", bytesRead: blockBytes, bytesWritten: valueBytes, launches: 1, modelled: true },
        { op: "ops.rmsNorm", kernel: "rms_norm_weight_f16", bytesRead: valueBytes + weightBytes, bytesWritten: valueBytes, launches: 1, modelled: true },
      ]);
    });

    it("moves about 2.7x fewer bytes than the chain in f32 (the traffic model, not the ~17x once claimed)", () => {
      const { q, weight } = inputs(64, 4096, "f32");
      const fused = fl.traffic(() => fl.fused.dequantizeQ4_0RmsNorm(q, weight)).bytes;
      const unfused = fl.traffic(() => fl.unfused.dequantizeQ4_0RmsNorm(q, weight)).bytes;
      // Per 32 values: the chain moves 18 + 128 + 128 + 128 bytes, the fused op 18 + 128 (the weight, read once, aside).
      expect(unfused / fused).to.be.within(2.7, 2.76);
    });
  });

  describe("argument errors", () => {
    const device = () => fl.device();

    it("refuses rows whose length is not a multiple of 32, naming x", () => {
      const x = fl.zeros([3, 40], { dtype: "f32", device: device() });
      expect(() => fl.quant.quantizeQ4_0(x)).to.throw(
        "fl.quant.quantizeQ4_0: x must have a last dim that is a multiple of 32 (Q4_0 blocks hold 32 values), got shape [3, 40]");
      expect(() => fl.quant.quantizeQ4_0(fl.zeros([32], { dtype: "i32", device: device() }))).to.throw(
        "fl.quant.quantizeQ4_0: x must be a tensor of dtype f32, f16 or bf16, got a tensor of dtype i32");
    });

    it("names blocks that are not u8 or not whole 18-byte blocks", () => {
      expect(() => fl.ops.dequantizeQ4_0(fl.zeros([2, 18], { dtype: "f32", device: device() }))).to.throw(
        "fl.ops.dequantizeQ4_0: q must be a tensor of dtype u8, got a tensor of dtype f32");
      expect(() => fl.ops.dequantizeQ4_0(fl.zeros([2, 20], { dtype: "u8", device: device() }))).to.throw(
        "fl.ops.dequantizeQ4_0: q must have a last dim that is a multiple of 18 (Q4_0 blocks of 18 bytes, from fl.quant.quantizeQ4_0), got shape [2, 20]");
      expect(() => fl.ops.dequantizeQ4_0(fl.zeros([2, 18], { dtype: "u8", device: device() }), { dtype: "i32" as FloatDType })).to.throw(
        'fl.ops.dequantizeQ4_0: options.dtype must be "f32", "f16" or "bf16", got "i32"');
    });

    it("names a weight of the wrong length, a variant or eps that does not exist", () => {
      const q = fl.zeros([2, 36], { dtype: "u8", device: device() });
      const weight = fl.ones([64], { dtype: "f32", device: device() });
      expect(() => fl.fused.dequantizeQ4_0RmsNorm(q, fl.ones([36], { dtype: "f32", device: device() }))).to.throw(
        "fl.fused.dequantizeQ4_0RmsNorm: weight must have shape [64] (the values in a row of q: 36 bytes / 18 * 32), got [36]");
      expect(() => fl.fused.dequantizeQ4_0RmsNorm(q, weight, { variant: "rows" as fl.Q4_0RmsNormVariant })).to.throw(
        'fl.fused.dequantizeQ4_0RmsNorm: options.variant must be "row" or "batch", got "rows"');
      expect(() => fl.unfused.dequantizeQ4_0RmsNorm(q, weight, { eps: -1 })).to.throw(
        "fl.unfused.dequantizeQ4_0RmsNorm: options.eps must be a finite number > 0, got -1");
      expect(() => fl.fused.dequantizeQ4_0RmsNorm(q, weight, { epsilon: 1 } as fl.Q4_0RmsNormOptions)).to.throw(
        'fl.fused.dequantizeQ4_0RmsNorm: options must be an object with keys among eps, variant, got the key "epsilon"');
      expect(() => fl.fused.dequantizeQ4_0RmsNorm(weight, weight)).to.throw(
        "fl.fused.dequantizeQ4_0RmsNorm: q must be a tensor of dtype u8, got a tensor of dtype f32");
    });
  });
});
