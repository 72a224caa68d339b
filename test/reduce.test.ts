// Row reductions, the row-broadcast steps and softmax against float64
// references, with their traffic, from the ops' declarations (test/op-tests.ts),
// on the default device (the CPU emulator in CI, the GPU with FUSELAB_DEVICE=gpu);
// below them, what only this family has: -inf, +inf, NaN and huge values, rows
// from 1 to 65536 wide, any launch shape, 64-lane warps, the chain's bytes, errors.
import { expect } from "chai";
import * as fl from "../src";
import { FLOAT_DTYPES, FloatDType } from "../src/ops/declare";
import { describeFusedOps, describeOps } from "./op-tests";
import { roundTo } from "./reference/elementwise";
import { REFERENCES, rowMaxReference, rowSumReference, softmaxReference } from "./reference/reduce";

type Tolerance = Record<FloatDType, { rtol: number; atol: number }>;

// [rows, cols]: widths 1 to 65536, odd ones (the element path) and multiples of
// 8 (16-byte vectors); narrow rows share a block, 4096 fits a block's registers,
// 40000 and 65536 do not (the online pass, then a second read).
const SHAPES: [number, number][] = [
  [1000, 1], [3, 7], [1, 31], [1000, 33], [3, 255], [1, 257], [3, 4097],
  [1000, 64], [3, 4096], [2, 40000], [1, 65536],
];
const ALL_SHAPES = { f32: SHAPES, f16: SHAPES, bf16: SHAPES };

// A sum in f32 (an absolute term for rows that cancel), rounded once to the dtype.
const REDUCTION_TOLERANCE: Tolerance = {
  f32: { rtol: 1e-5, atol: 2e-3 },
  f16: { rtol: 1e-3, atol: 2e-3 },
  bf16: { rtol: 8e-3, atol: 2e-3 },
};
// One f32 operation rounded once.
const ONE_ROUNDING: Tolerance = {
  f32: { rtol: 1e-6, atol: 1e-7 },
  f16: { rtol: 1e-3, atol: 1e-7 },
  bf16: { rtol: 8e-3, atol: 1e-7 },
};
// Softmax values are about 1/cols, so the absolute term is tiny (f16's covers its subnormals).
const SOFTMAX_TOLERANCE: Tolerance = {
  f32: { rtol: 1e-5, atol: 1e-9 },
  f16: { rtol: 2e-3, atol: 1e-7 },
  bf16: { rtol: 8e-3, atol: 1e-7 },
};
// The chain rounds x - max (up to 8 here) to the dtype before exp: bf16 loses
// 8 * 2^-9 of the exponent there, 1.6% of the result, then rounds three more times.
const SOFTMAX_CHAIN_TOLERANCE: Tolerance = {
  f32: { rtol: 2e-5, atol: 1e-9 },
  f16: { rtol: 1e-2, atol: 1e-7 },
  bf16: { rtol: 4e-2, atol: 1e-7 },
};

const named = (names: string[]) => fl.declarations.reduce.ops.filter((op) => names.includes(op.name));
describeOps(named(["rowMax", "rowSum", "rowMean"]), REFERENCES,
  { shapes: ALL_SHAPES, tolerance: REDUCTION_TOLERANCE, chainTolerance: REDUCTION_TOLERANCE });
describeOps(named(["subRows", "divRows"]), REFERENCES,
  { shapes: ALL_SHAPES, tolerance: ONE_ROUNDING, chainTolerance: ONE_ROUNDING });
describeFusedOps(fl.declarations.reduce.fused, REFERENCES,
  { shapes: ALL_SHAPES, tolerance: SOFTMAX_TOLERANCE, chainTolerance: SOFTMAX_CHAIN_TOLERANCE });

let seed = 1;
function randn(shape: number[], dtype: FloatDType, device = fl.device()): fl.Tensor {
  return fl.randn(shape, { dtype, device, seed: seed++ });
}

/** Rows of `cols` values that start as `head` (repeated to fill the row when `fill` is given, else then random). */
function specialRows(dtype: FloatDType, cols: number, rows: { head: number[]; fill?: number }[]): fl.Tensor {
  const values: number[] = [];
  for (const { head, fill } of rows) {
    const random = randn([cols], "f32").toArray();
    for (let c = 0; c < cols; c++) values.push(c < head.length ? head[c] : fill ?? random[c]);
  }
  return fl.tensor(Float32Array.from(roundTo(dtype, values)), { shape: [rows.length, cols], dtype, device: fl.device() });
}

describe("reduce ops", () => {
  // The largest values each dtype holds that stay finite (x - max is what exp sees).
  const HUGE: Record<FloatDType, number> = { f32: 3e38, f16: 65000, bf16: 3e38 };

  for (const dtype of FLOAT_DTYPES) {
    describe(dtype, () => {
      for (const cols of [33, 64, 40000]) {
        it(`softmax of rows with -inf, +inf, NaN and huge values, as PyTorch gives (${cols} wide)`, () => {
          const inf = Infinity;
          const x = specialRows(dtype, cols, [
            { head: [-inf, 0, -inf, 1] },            // some -inf: those give 0
            { head: [], fill: -inf },                 // all -inf: NaN (-inf - -inf)
            { head: [-inf, -inf, -inf, 2], fill: -inf }, // one finite value: 1 there, 0 elsewhere
            { head: [inf, 1] },                       // +inf: NaN everywhere
            { head: [2, NaN] },                       // NaN: NaN everywhere
            { head: [HUGE[dtype], -HUGE[dtype], HUGE[dtype]] }, // no overflow: the max is subtracted first
            { head: [-1000, -1001], fill: -inf },    // a very negative max, most threads all -inf: 0 there, not NaN
            // Finite values only past the chunks a thread keeps in registers (the online rescaling).
            { head: Array.from({ length: Math.min(cols, 20000) }, () => -inf) },
          ]);
          const expected = softmaxReference(x.toArray(), cols);
          fl.assertClose(fl.fused.softmax(x), expected, { ...SOFTMAX_TOLERANCE[dtype], equalNan: true });
          fl.assertClose(fl.unfused.softmax(x), expected, { ...SOFTMAX_CHAIN_TOLERANCE[dtype], equalNan: true });
        });
      }

      it("rowMax keeps NaN and -inf; rowSum of +inf and -inf is NaN", () => {
        const inf = Infinity;
        const x = specialRows(dtype, 64, [{ head: [1, NaN] }, { head: [], fill: -inf }, { head: [inf, -inf] }]);
        const values = x.toArray();
        fl.assertClose(fl.ops.rowMax(x), rowMaxReference(values, 64), { rtol: 0, atol: 0, equalNan: true });
        fl.assertClose(fl.ops.rowSum(x), rowSumReference(values, 64), { ...REDUCTION_TOLERANCE[dtype], equalNan: true });
        expect(Array.from(fl.ops.rowMax(x).toArray())).to.deep.equal([NaN, -inf, inf]);
      });
    });
  }

  it("reduces the last dim of any rank, keeping it as 1", () => {
    const x = randn([2, 3, 5], "f32");
    expect(fl.ops.rowMean(x).shape).to.deep.equal([2, 3, 1]);
    expect(fl.ops.rowMax(randn([7], "f32")).shape).to.deep.equal([1]);
    const out = fl.fused.softmax(x);
    expect(out.shape).to.deep.equal([2, 3, 5]);
    fl.assertClose(out, softmaxReference(x.toArray(), 5), SOFTMAX_TOLERANCE.f32);
    // Mean-centering: rows that then sum to 0.
    fl.assertClose(fl.ops.rowSum(fl.ops.subRows(x, fl.ops.rowMean(x))), new Float64Array(6), { rtol: 0, atol: 1e-5 });
  });

  it("kernels take any row group a launch gives them, and rows beyond the grid", () => {
    // The ops size the launch to the rows; here narrow groups with several rows a
    // block, one thread a row, and whole warps with too few threads for a row.
    const device = fl.device();
    const warp = device.props.warpSize;
    const launches = [
      { grid: 1, block: [1, 1] }, { grid: 2, block: [4, 3] }, { grid: 3, block: [warp, 2] }, { grid: 5, block: [2 * warp, 1] },
    ];
    for (const dtype of ["f32", "bf16"] as FloatDType[]) {
      for (const cols of [7, 4096, 40000]) {
        const rows = 11;
        const x = randn([rows, cols], dtype);
        const values = x.toArray();
        for (const { grid, block } of launches) {
          const shape = { grid, block: block as [number, number] };
          const soft = fl.empty([rows, cols], { dtype, device });
          fl.builtins(device).fn(`softmax_${dtype}`).launch(shape, soft, x, rows, cols);
          fl.assertClose(soft, softmaxReference(values, cols), SOFTMAX_TOLERANCE[dtype]);
          const sums = fl.empty([rows, 1], { dtype, device });
          fl.builtins(device).fn(`row_sum_${dtype}`).launch(shape, sums, x, rows, cols);
          fl.assertClose(sums, rowSumReference(values, cols), REDUCTION_TOLERANCE[dtype]);
        }
      }
    }
  });

  it("runs the same on the CPU emulator with 64-lane warps in check mode", () => {
    // AMD wavefronts are 64 lanes; check mode also reports writes past a buffer.
    const device = fl.device("cpu", { warpSize: 64, check: true });
    for (const [rows, cols] of [[5, 3], [70, 33], [2, 4096], [3, 40001]] as [number, number][]) {
      const x = randn([rows, cols], "f32", device);
      const values = x.toArray();
      fl.assertClose(fl.fused.softmax(x), softmaxReference(values, cols), SOFTMAX_TOLERANCE.f32);
      fl.assertClose(fl.ops.rowMax(x), rowMaxReference(values, cols), { rtol: 0, atol: 0 });
      fl.assertClose(fl.ops.rowSum(x), rowSumReference(values, cols), REDUCTION_TOLERANCE.f32);
    }
  });

  it("counts the chain's bytes as a framework moves them: five launches, 4x the fused bytes", () => {
    const [rows, cols] = [8, 1024];
    const x = fl.zeros([rows, cols], { dtype: "bf16", device: fl.device() });
    const n = rows * cols * 2, r = rows * 2;
    const fused = fl.traffic(() => fl.fused.softmax(x));
    const chain = fl.traffic(() => fl.unfused.softmax(x));
    expect(fused.entries.map((e) => [e.op, e.bytesRead, e.bytesWritten])).to.deep.equal([["fused.softmax", n, n]]);
    expect(chain.entries.map((e) => [e.op, e.bytesRead, e.bytesWritten])).to.deep.equal([
      ["ops.rowMax", n, r], ["ops.subRows", n + r, n], ["ops.exp", n, n], ["ops.rowSum", n, r], ["ops.divRows", n + r, n],
    ]);
    // Five reads of x-sized data and three writes, against one of each (and 4 row vectors).
    expect(chain.bytes / fused.bytes).to.be.closeTo(4, 0.01);
  });

  describe("argument errors", () => {
    it("names row values of the wrong shape, dtype or device", () => {
      const x = fl.zeros([4, 8], { dtype: "f32", device: fl.device() });
      expect(() => fl.ops.subRows(x, fl.zeros([4], { dtype: "f32", device: fl.device() }))).to.throw(
        "fl.ops.subRows: v must have shape [4, 1] (one value a row of x), got [4]");
      expect(() => fl.ops.divRows(x, fl.zeros([4, 1], { dtype: "bf16", device: fl.device() }))).to.throw(
        "fl.ops.divRows: v must be of dtype f32 (the dtype of x), got bf16");
    });

    it("names an x that is not a float tensor", () => {
      const ints = fl.zeros([2, 8], { dtype: "i32", device: fl.device() });
      expect(() => fl.fused.softmax(ints)).to.throw(
        "fl.fused.softmax: x must be a tensor of dtype f32, f16 or bf16, got a tensor of dtype i32");
      expect(() => fl.ops.rowSum([1, 2] as unknown as fl.Tensor)).to.throw("fl.ops.rowSum: x must be a tensor, got [1, 2]");
    });
  });
});
