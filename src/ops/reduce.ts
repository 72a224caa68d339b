// Row reductions over the last dim and softmax (kernels/reduce.hip): rowMax,
// rowSum, rowMean; subRows and divRows, which apply one value a row to every
// element of it; and the fused softmax, whose unfused chain is made of them.
import { ArgumentError, shapeString } from "../errors";
import { Tensor } from "../tensor";
import {
  LaunchShape, checkFloatTensor, checkSameDevice, checkSameDtype, emptyLike, lastDim, launchBuiltin, launchRows, nextPowerOfTwo, rowChunks,
  rowCount,
} from "./common";
import { FloatDType, KernelsByDType, OpExample, declareFused, declareOp, kernelsByDType } from "./declare";
import { exp } from "./elementwise";

// Chunks (16-byte vectors, or elements when a row cannot be read in vectors) a
// softmax thread keeps in registers: kCachedChunks in kernels/reduce.hip. Groups
// are sized so that a row fits in them when it can.
const CACHED_CHUNKS = 4;
// As the norm kernels: more threads than this would not fit their registers.
const MAX_GROUP_THREADS = 512;
// Threads in a block of narrow rows (several row groups a block).
const NARROW_BLOCK_THREADS = 256;

/**
 * The launch of a row kernel: a row group of a power of two threads up to a warp
 * (several rows a block) for rows that fit in a warp's registers, else a group
 * of whole warps (one row a block). Blocks loop over rows beyond the grid.
 */
function rowGroupShape(x: Tensor): LaunchShape {
  const { warpSize, maxThreadsPerBlock, maxGridDim } = x.device.props;
  const rows = rowCount(x.shape);
  const wanted = Math.ceil(rowChunks(x.dtype as FloatDType, lastDim(x.shape)) / CACHED_CHUNKS);
  let group: number, rowsPerBlock: number;
  if (wanted <= warpSize) {
    group = nextPowerOfTwo(wanted);
    rowsPerBlock = Math.max(1, Math.min(rows, Math.floor(Math.min(NARROW_BLOCK_THREADS, maxThreadsPerBlock) / group)));
  } else {
    const most = Math.floor(Math.min(MAX_GROUP_THREADS, maxThreadsPerBlock) / warpSize) * warpSize;
    group = Math.min(most, Math.ceil(wanted / warpSize) * warpSize);
    rowsPerBlock = 1;
  }
  return { grid: [Math.min(Math.ceil(rows / rowsPerBlock), maxGridDim[0]), 1], block: [group, rowsPerBlock] };
}

/** The shape of a row reduction's result: x's with the last dim 1 (PyTorch's keepdim=True). */
function reducedShape(x: Tensor): number[] {
  return [...x.shape.slice(0, -1), 1];
}

/** v: one value a row of x, of shape [..., 1] (as a row reduction returns), on x's device, of its dtype. */
function checkRowValues(where: string, name: string, value: unknown, x: Tensor): Tensor {
  const v = checkFloatTensor(where, name, value);
  checkSameDevice(where, name, v, "x", x);
  checkSameDtype(where, name, v, "x", x);
  const expected = reducedShape(x);
  if (v.shape.length !== expected.length || v.shape.some((d, i) => d !== expected[i])) {
    throw new ArgumentError(where, name, `have shape ${shapeString(expected)} (one value a row of x)`, shapeString(v.shape));
  }
  return v;
}

// out = f(x) per row, one value a row.
function reduceRows(op: string, kernels: KernelsByDType, x: Tensor): Tensor {
  const out = emptyLike(x, reducedShape(x));
  launchBuiltin(op, kernels, x, rowGroupShape(x), x.bytes, out.bytes, [out, x, rowCount(x.shape), lastDim(x.shape)]);
  return out;
}

// out[r, c] = f(x[r, c], v[r]).
function broadcastRows(op: string, kernels: KernelsByDType, x: Tensor, v: Tensor): Tensor {
  const out = emptyLike(x);
  const rows = rowCount(x.shape), cols = lastDim(x.shape);
  const shape = launchRows(x.device, rows, rowChunks(x.dtype as FloatDType, cols));
  launchBuiltin(op, kernels, x, shape, x.bytes + v.bytes, out.bytes, [out, x, v, rows, cols]);
  return out;
}

const ROW_MAX = kernelsByDType("row_max_f32", "row_max_f16", "row_max_bf16");
const ROW_SUM = kernelsByDType("row_sum_f32", "row_sum_f16", "row_sum_bf16");
const ROW_MEAN = kernelsByDType("row_mean_f32", "row_mean_f16", "row_mean_bf16");
const SUB_ROWS = kernelsByDType("sub_rows_f32", "sub_rows_f16", "sub_rows_bf16");
const DIV_ROWS = kernelsByDType("div_rows_f32", "div_rows_f16", "div_rows_bf16");
const SOFTMAX = kernelsByDType("softmax_f32", "softmax_f16", "softmax_bf16");

const rowsExample: OpExample[] = [{ label: "", args: (make, rows, cols) => [make([rows, cols])] }];
const rowValuesExample: OpExample[] = [{ label: "", args: (make, rows, cols) => [make([rows, cols]), make([rows, 1])] }];

/** The largest value of each row (over the last dim), shape [..., 1]; NaN in a row gives NaN, as PyTorch's amax. */
export const rowMax = declareOp({
  name: "rowMax", kernels: [ROW_MAX],
  fn: (x: Tensor): Tensor => reduceRows("ops.rowMax", ROW_MAX, checkFloatTensor("fl.ops.rowMax", "x", x)),
  examples: rowsExample,
});

/** The sum of each row (over the last dim, in f32, rounded once to x's dtype), shape [..., 1]. */
export const rowSum = declareOp({
  name: "rowSum", kernels: [ROW_SUM],
  fn: (x: Tensor): Tensor => reduceRows("ops.rowSum", ROW_SUM, checkFloatTensor("fl.ops.rowSum", "x", x)),
  examples: rowsExample,
});

/** The mean of each row (over the last dim), shape [..., 1]. */
export const rowMean = declareOp({
  name: "rowMean", kernels: [ROW_MEAN],
  fn: (x: Tensor): Tensor => reduceRows("ops.rowMean", ROW_MEAN, checkFloatTensor("fl.ops.rowMean", "x", x)),
  examples: rowsExample,
});

/** x[..., c] - v[..., 0]: v holds one value a row ([..., 1], as rowMax returns). */
export const subRows = declareOp({
  name: "subRows", kernels: [SUB_ROWS],
  fn: (x: Tensor, v: Tensor): Tensor => {
    const t = checkFloatTensor("fl.ops.subRows", "x", x);
    return broadcastRows("ops.subRows", SUB_ROWS, t, checkRowValues("fl.ops.subRows", "v", v, t));
  },
  examples: rowValuesExample,
});

/** x[..., c] / v[..., 0]: v holds one value a row ([..., 1], as rowSum returns). */
export const divRows = declareOp({
  name: "divRows", kernels: [DIV_ROWS],
  fn: (x: Tensor, v: Tensor): Tensor => {
    const t = checkFloatTensor("fl.ops.divRows", "x", x);
    return broadcastRows("ops.divRows", DIV_ROWS, t, checkRowValues("fl.ops.divRows", "v", v, t));
  },
  examples: rowValuesExample,
});

/**
 * Softmax over the last dim, `exp(x - max) / sum(exp(x - max))` per row, in one
 * launch that reads each row once (a second time, from cache, for rows too long
 * for a block's registers) and finds max and sum in the same pass (online
 * softmax). A row of -inf gives NaN, +inf or NaN in a row make it NaN, as PyTorch.
 */
export const softmax = declareFused({
  name: "softmax", computes: "exp(x - max) / sum(exp(x - max)), per row",
  chain: "m = ops.rowMax(x); e = ops.exp(ops.subRows(x, m)); ops.divRows(e, ops.rowSum(e))",
  kernels: [SOFTMAX], mutates: [],
  fused: (x: Tensor): Tensor => {
    const t = checkFloatTensor("fl.fused.softmax", "x", x);
    const out = emptyLike(t);
    launchBuiltin("fused.softmax", SOFTMAX, t, rowGroupShape(t), t.bytes, out.bytes,
      [out, t, rowCount(t.shape), lastDim(t.shape)]);
    return out;
  },
  unfused: (x: Tensor): Tensor => {
    const e = exp.fn(subRows.fn(x, rowMax.fn(x)));
    return divRows.fn(e, rowSum.fn(e));
  },
  examples: rowsExample,
});

export const REDUCE_OPS = [rowMax, rowSum, rowMean, subRows, divRows] as const;
export const REDUCE_FUSED = [softmax] as const;
