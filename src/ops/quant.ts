// Q4_0 quantized weights (kernels/quant.hip), GGML's format: quantizeQ4_0
// (fl.quant), dequantizeQ4_0 (fl.ops), and the fused dequantizeQ4_0RmsNorm in
// its two forms, one block a row and many rows a block.
//
// A Q4_0 tensor is a u8 tensor of blocks: a row of `cols` values (a multiple of
// 32) is cols / 32 blocks of 18 bytes (an f16 scale d, then 16 bytes of 4-bit
// codes q; value = (q - 8) * d), so its last dim is cols / 32 * 18 bytes and its
// other dims are the values' own.
import { ArgumentError, shapeString } from "../errors";
import { builtins } from "../module";
import { Tensor, empty } from "../tensor";
import {
  LaunchShape, checkChoice, checkFloatTensor, checkOptions, checkSameDevice, checkTensorOf, lastDim, launch1D,
  launchBuiltin, nextPowerOfTwo, rowChunks, rowCount, vectorWidth,
} from "./common";
import { FLOAT_DTYPES, FloatDType, KernelsByDType, MakeTensor, declareFused, declareOp, kernelsByDType } from "./declare";
import { RMS_NORM_EPS, epsOption, rmsNorm } from "./norm";

/** Values in a Q4_0 block. */
const BLOCK_VALUES = 32;
/** Bytes in a Q4_0 block: an f16 scale and 16 bytes of two 4-bit codes each. */
const BLOCK_BYTES = 18;

/** Options of dequantizeQ4_0. */
export interface DequantizeOptions {
  /** The dtype of the values: "f32" (the default), "f16" or "bf16". */
  dtype?: FloatDType;
}

/** The two forms of the fused kernel: one thread block a row, or many rows a thread block. */
export type Q4_0RmsNormVariant = "row" | "batch";
const Q4_0_RMS_NORM_VARIANTS: readonly Q4_0RmsNormVariant[] = ["row", "batch"];

/** Options of dequantizeQ4_0RmsNorm. */
export interface Q4_0RmsNormOptions {
  /** Added to the mean square before the square root; a finite number > 0 (default 1e-6). */
  eps?: number;
  /**
   * "row": a thread block a row, its warps summing through shared memory (long
   * rows); "batch": many rows a thread block, a row to a team of up to a warp's
   * lanes summing by shuffles (short rows). Chosen by the row length when left out.
   */
  variant?: Q4_0RmsNormVariant;
}

// Chunks a thread decodes (kCodeChunks in kernels/quant.hip, whose codes it
// keeps in registers between the passes), threads a row may have, and threads
// in a block of many short rows.
const CHUNKS_PER_THREAD = 4;
const MAX_ROW_THREADS = 512;
const BATCH_BLOCK_THREADS = 256;
// Waves of resident blocks the row form is capped at when few are resident (rowGridCap).
const ROW_GRID_WAVES = 4;

/** A float tensor whose rows are whole Q4_0 blocks (the last dim a multiple of 32). */
function checkQuantizable(where: string, name: string, value: unknown): Tensor {
  const x = checkFloatTensor(where, name, value);
  if (lastDim(x.shape) % BLOCK_VALUES !== 0) {
    throw new ArgumentError(where, name, `have a last dim that is a multiple of ${BLOCK_VALUES} (Q4_0 blocks hold ${BLOCK_VALUES} values)`,
      `shape ${shapeString(x.shape)}`);
  }
  return x;
}

/** A u8 tensor of Q4_0 blocks: its last dim a multiple of 18 bytes. */
function checkBlocks(where: string, name: string, value: unknown): Tensor {
  const q = checkTensorOf(where, name, value, "u8");
  if (lastDim(q.shape) % BLOCK_BYTES !== 0) {
    throw new ArgumentError(where, name,
      `have a last dim that is a multiple of ${BLOCK_BYTES} (Q4_0 blocks of ${BLOCK_BYTES} bytes, from fl.quant.quantizeQ4_0)`,
      `shape ${shapeString(q.shape)}`);
  }
  return q;
}

/** The shape of the values that Q4_0 blocks of `shape` hold. */
function valuesShape(shape: readonly number[]): number[] {
  return [...shape.slice(0, -1), (lastDim(shape) / BLOCK_BYTES) * BLOCK_VALUES];
}

/** The shape of the Q4_0 blocks of values of `shape`. */
function blocksShape(shape: readonly number[]): number[] {
  return [...shape.slice(0, -1), (lastDim(shape) / BLOCK_VALUES) * BLOCK_BYTES];
}

const QUANTIZE = kernelsByDType("quantize_q4_0_f32", "quantize_q4_0_f16", "quantize_q4_0_bf16");
const DEQUANTIZE = kernelsByDType("dequantize_q4_0_f32", "dequantize_q4_0_f16", "dequantize_q4_0_bf16");
const Q4_0_RMS_NORM = kernelsByDType("q4_0_rms_norm_f32", "q4_0_rms_norm_f16", "q4_0_rms_norm_bf16");
const Q4_0_RMS_NORM_BATCH = kernelsByDType("q4_0_rms_norm_batch_f32", "q4_0_rms_norm_batch_f16", "q4_0_rms_norm_batch_bf16");

/**
 * x's values in Q4_0 blocks, as GGML's quantize_row_q4_0 makes them: each run of
 * 32 values along the last dim (a multiple of 32) gets d = its value of largest
 * magnitude (sign kept) / -8, and codes q = min(15, trunc(x / d + 8.5)), with
 * x / d computed as x · (1/d) rounded to f32. A block holding a NaN gets a NaN
 * scale. Returns a u8 tensor, the last dim cols / 32 * 18 bytes.
 */
export const quantizeQ4_0 = declareOp({
  name: "quantizeQ4_0", kernels: [QUANTIZE],
  fn: (x: Tensor): Tensor => {
    const input = checkQuantizable("fl.quant.quantizeQ4_0", "x", x);
    const blocks = input.size / BLOCK_VALUES;
    const q = empty(blocksShape(input.shape), { dtype: "u8", device: input.device });
    launchBuiltin("quant.quantizeQ4_0", QUANTIZE, input, launch1D(input.device, blocks), input.bytes, q.bytes, [q, input, blocks]);
    return q;
  },
  examples: [{ label: "", args: (make, rows, cols) => [make([rows, cols])] }],
});

/** Q4_0 blocks to their values, (q - 8) · d each, as `options.dtype` (f32 by default). */
export const dequantizeQ4_0 = declareOp({
  name: "dequantizeQ4_0", kernels: [DEQUANTIZE],
  fn: (q: Tensor, options?: DequantizeOptions): Tensor => {
    const where = "fl.ops.dequantizeQ4_0";
    const blocks = checkBlocks(where, "q", q);
    const dtype = checkChoice(where, "options.dtype", checkOptions<DequantizeOptions>(where, options, ["dtype"]).dtype,
      FLOAT_DTYPES, "f32");
    const out = empty(valuesShape(blocks.shape), { dtype, device: blocks.device });
    const count = blocks.size / BLOCK_BYTES;
    const chunks = out.size / vectorWidth(dtype);
    launchBuiltin("ops.dequantizeQ4_0", DEQUANTIZE, out, launch1D(out.device, chunks), blocks.bytes, out.bytes, [out, blocks, count]);
    return out;
  },
  examples: [{ label: "", args: (make, rows, cols, dtype) => [make([rows, cols], { quantized: "q4_0" }), { dtype }] }],
});

/** Threads that decode a row of `out`, CHUNKS_PER_THREAD chunks each. */
function threadsForRow(out: Tensor): number {
  return Math.ceil(rowChunks(out.dtype as FloatDType, lastDim(out.shape)) / CHUNKS_PER_THREAD);
}

/**
 * The variant that suits `out`'s rows: many rows a block while one warp's lanes
 * can decode a row, else one block a row.
 */
function variantFor(out: Tensor): Q4_0RmsNormVariant {
  return threadsForRow(out) <= out.device.props.warpSize ? "batch" : "row";
}

/** The launch of a variant: threads a row as threadsForRow gives them. */
function q4_0RmsNormShape(variant: Q4_0RmsNormVariant, out: Tensor): LaunchShape {
  const { warpSize, maxThreadsPerBlock, maxGridDim } = out.device.props;
  const rows = rowCount(out.shape);
  const wanted = threadsForRow(out);
  if (variant === "batch") {
    const team = nextPowerOfTwo(Math.min(wanted, warpSize));
    const rowsPerBlock = Math.max(1, Math.min(rows, Math.floor(Math.min(BATCH_BLOCK_THREADS, maxThreadsPerBlock) / team)));
    return { grid: [Math.min(Math.ceil(rows / rowsPerBlock), maxGridDim[0]), 1], block: [team, rowsPerBlock] };
  }
  const most = Math.floor(Math.min(MAX_ROW_THREADS, maxThreadsPerBlock) / warpSize) * warpSize;
  const threads = Math.min(most, Math.ceil(wanted / warpSize) * warpSize);
  return { grid: [Math.min(rows, rowGridCap(out, threads), maxGridDim[0]), 1], block: [threads, 1] };
}

/**
 * The most blocks of the row form worth launching: any number while half a
 * multiprocessor's threads or more are resident, else ROW_GRID_WAVES waves of
 * resident blocks. With fewer resident (wide bf16 rows: two blocks of 352 or 448
 * threads), a block a row waits for its row's loads with little to hide them;
 * fewer blocks going round the rows load the next row while they normalise this
 * one. On the H100, bf16 rows of 11008 values: 0.180 ms a block a row, 0.133 ms
 * capped; rows with half the threads resident were 4-13% slower capped.
 */
function rowGridCap(out: Tensor, threads: number): number {
  if (out.device.kind === "cpu") return Infinity;
  const stats = builtins(out.device).stats(Q4_0_RMS_NORM[out.dtype as FloatDType], { block: threads });
  return stats.occupancy >= 0.5 ? Infinity : ROW_GRID_WAVES * out.device.props.multiprocessors * Math.max(1, stats.blocksPerMultiprocessor);
}

/** q's blocks, a weight as long as its rows, and the options, checked. */
function checkQ4_0RmsNorm(where: string, q: unknown, weight: unknown, options: unknown) {
  const blocks = checkBlocks(where, "q", q);
  const values = valuesShape(blocks.shape);
  const w = checkFloatTensor(where, "weight", weight);
  checkSameDevice(where, "weight", w, "q", blocks);
  const cols = lastDim(values);
  if (w.shape.length !== 1 || w.shape[0] !== cols) {
    throw new ArgumentError(where, "weight", `have shape [${cols}] (the values in a row of q: ${lastDim(blocks.shape)} bytes / ${BLOCK_BYTES} * ${BLOCK_VALUES})`,
      shapeString(w.shape));
  }
  const o = checkOptions<Q4_0RmsNormOptions>(where, options, ["eps", "variant"]);
  const eps = epsOption(where, o.eps, RMS_NORM_EPS);
  const variant = o.variant === undefined ? undefined : checkChoice(where, "options.variant", o.variant, Q4_0_RMS_NORM_VARIANTS, "row");
  return { blocks, values, w, eps, variant };
}

/**
 * RMSNorm of the values of Q4_0 blocks, in one launch: `out = x / sqrt(mean(x²) +
 * eps) * weight` with x = dequantizeQ4_0(q), never stored. The values stay f32
 * from decoding to the output, which has weight's dtype. `options.variant` picks
 * the kernel's form ("row" or "batch"); by default the row length does.
 */
export const dequantizeQ4_0RmsNorm = declareFused({
  name: "dequantizeQ4_0RmsNorm", computes: "rmsNorm(dequantizeQ4_0(q), weight)",
  chain: "ops.rmsNorm(ops.dequantizeQ4_0(q, { dtype: weight.dtype }), weight)",
  kernels: [Q4_0_RMS_NORM, Q4_0_RMS_NORM_BATCH], mutates: [],
  fused: (q: Tensor, weight: Tensor, options?: Q4_0RmsNormOptions): Tensor => {
    const { blocks, values, w, eps, variant } = checkQ4_0RmsNorm("fl.fused.dequantizeQ4_0RmsNorm", q, weight, options);
    const out = empty(values, { dtype: w.dtype, device: w.device });
    const cols = lastDim(values);
    const chosen = variant ?? variantFor(out);
    const kernels: KernelsByDType = chosen === "batch" ? Q4_0_RMS_NORM_BATCH : Q4_0_RMS_NORM;
    launchBuiltin("fused.dequantizeQ4_0RmsNorm", kernels, out, q4_0RmsNormShape(chosen, out), blocks.bytes + w.bytes, out.bytes,
      [out, blocks, w, rowCount(values), cols / BLOCK_VALUES, eps]);
    return out;
  },
  unfused: (q: Tensor, weight: Tensor, options?: Q4_0RmsNormOptions): Tensor => {
    const { blocks, w, eps } = checkQ4_0RmsNorm("fl.unfused.dequantizeQ4_0RmsNorm", q, weight, options);
    return rmsNorm.fn(dequantizeQ4_0.fn(blocks, { dtype: w.dtype as FloatDType }), w, { eps });
  },
  examples: [
    { label: "", args: (make, rows, cols) => [make([rows, cols], { quantized: "q4_0" }), make([cols])] },
    ...Q4_0_RMS_NORM_VARIANTS.map((variant) => ({
      label: variant,
      args: (make: MakeTensor, rows: number, cols: number) => [make([rows, cols], { quantized: "q4_0" }), make([cols]), { variant }],
    })),
  ],
});

/** fl.quant: what makes quantized tensors. */
export const QUANTIZERS = [quantizeQ4_0] as const;
export const QUANT_OPS = [dequantizeQ4_0] as const;
export const QUANT_FUSED = [dequantizeQ4_0RmsNorm] as const;
