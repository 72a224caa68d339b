// Row normalisations over the last dim (kernels/norm.hip): rmsNorm and layerNorm,
// and the fused addRmsNorm (vLLM's fused_add_rms_norm).
import { ArgumentError, describe } from "../errors";
import { Tensor } from "../tensor";
import {
  LaunchShape, checkFloatTensor, checkLike, checkOptions, checkRowVector, distinctBytes, emptyLike, lastDim,
  launchBuiltin, rowChunks, rowCount,
} from "./common";
import { FloatDType, KernelsByDType, declareFused, declareOp, kernelsByDType } from "./declare";
import { add } from "./elementwise";

/** Options of every norm op. */
export interface NormOptions {
  /** Added to the mean square (or the variance) before the square root; a finite number > 0. */
  eps?: number;
}

export const RMS_NORM_EPS = 1e-6;
const LAYER_NORM_EPS = 1e-5;

// Chunks (16-byte vectors, or single elements when a row cannot be read in
// vectors) that a thread keeps in registers: kCachedChunks in kernels/norm.hip.
// Blocks are sized so that a row fits, which also gave the best times on an H100
// at 4096 columns (4 chunks a thread, 16 bytes each, in flight at once).
const CACHED_CHUNKS_PER_THREAD = 4;
// The kernels use up to ~90 registers a thread on sm_90; a 1024-thread block
// would have to fit in 64 and fails to launch. Longer rows re-read the share
// that does not fit in registers.
const MAX_BLOCK_THREADS = 512;

/** One block per row: as many threads as a row needs, a multiple of the warp size. */
function rowLaunchShape(x: Tensor): LaunchShape {
  const { warpSize, maxThreadsPerBlock, maxGridDim } = x.device.props;
  const chunks = rowChunks(x.dtype as FloatDType, lastDim(x.shape));
  const maxThreads = Math.floor(Math.min(MAX_BLOCK_THREADS, maxThreadsPerBlock) / warpSize) * warpSize;
  const wanted = Math.ceil(chunks / CACHED_CHUNKS_PER_THREAD / warpSize) * warpSize;
  // Rows beyond the grid limit are taken by the kernels' grid-stride loop.
  return { grid: [Math.min(rowCount(x.shape), maxGridDim[0]), 1], block: [Math.min(maxThreads, wanted), 1] };
}

/** An optional per-column vector (weight, gamma, beta): null when omitted. */
function checkOptionalRowVector(where: string, name: string, value: unknown, x: Tensor): Tensor | null {
  if (value === undefined || value === null) return null;
  if (!Tensor.isTensor(value)) throw new ArgumentError(where, name, "a tensor, null or undefined", describe(value));
  return checkRowVector(where, name, value, "x", x);
}

/**
 * One launch of a row kernel: out = emptyLike(x), the kernel's arguments are
 * (out, ...inputs, rows, cols, eps). It reads `inputs` and writes out, and
 * `updated` in place.
 */
function launchNorm(op: string, kernels: KernelsByDType, x: Tensor, inputs: Tensor[], eps: number,
                    updated: Tensor | null = null): Tensor {
  const out = emptyLike(x);
  launchBuiltin(op, kernels, x, rowLaunchShape(x), distinctBytes(inputs), distinctBytes([out, updated]),
    [out, ...inputs, rowCount(x.shape), lastDim(x.shape), eps]);
  return out;
}

/** x, and a residual like it that is not x itself (the residual is updated in place). */
function checkResidualPair(where: string, x: unknown, residual: unknown): [Tensor, Tensor] {
  const input = checkFloatTensor(where, "x", x);
  const res = checkLike(where, "residual", residual, "x", input);
  if (res === input) {
    throw new ArgumentError(where, "residual", "a different tensor from x (it is updated in place)", "x itself");
  }
  return [input, res];
}

function checkEps(where: string, options: unknown, fallback: number): number {
  return epsOption(where, checkOptions<NormOptions>(where, options, ["eps"]).eps, fallback);
}

/** options.eps checked: a finite number > 0, or `fallback` when undefined. */
export function epsOption(where: string, eps: unknown, fallback: number): number {
  if (eps === undefined) return fallback;
  if (typeof eps !== "number" || !Number.isFinite(eps) || eps <= 0) {
    throw new ArgumentError(where, "options.eps", "a finite number > 0", describe(eps));
  }
  return eps;
}

const RMS_NORM = kernelsByDType("rms_norm_f32", "rms_norm_f16", "rms_norm_bf16");
const RMS_NORM_WEIGHT = kernelsByDType("rms_norm_weight_f32", "rms_norm_weight_f16", "rms_norm_weight_bf16");
const LAYER_NORM = kernelsByDType("layer_norm_f32", "layer_norm_f16", "layer_norm_bf16");
const LAYER_NORM_GAMMA = kernelsByDType("layer_norm_gamma_f32", "layer_norm_gamma_f16", "layer_norm_gamma_bf16");
const LAYER_NORM_BETA = kernelsByDType("layer_norm_beta_f32", "layer_norm_beta_f16", "layer_norm_beta_bf16");
const LAYER_NORM_GAMMA_BETA = kernelsByDType("layer_norm_gamma_beta_f32", "layer_norm_gamma_beta_f16", "layer_norm_gamma_beta_bf16");
const ADD_RMS_NORM = kernelsByDType("add_rms_norm_f32", "add_rms_norm_f16", "add_rms_norm_bf16");

/**
 * RMSNorm over the last dim: `out = x / sqrt(mean(x²) + eps) * weight`, one
 * launch. `weight` (1-D, the length of the last dim) may be omitted or null;
 * `eps` defaults to 1e-6.
 */
export const rmsNorm = declareOp({
  name: "rmsNorm", kernels: [RMS_NORM, RMS_NORM_WEIGHT],
  fn: (x: Tensor, weight?: Tensor | null, options?: NormOptions): Tensor => {
    const where = "fl.ops.rmsNorm";
    const input = checkFloatTensor(where, "x", x);
    const w = checkOptionalRowVector(where, "weight", weight, input);
    const eps = checkEps(where, options, RMS_NORM_EPS);
    return launchNorm("ops.rmsNorm", w ? RMS_NORM_WEIGHT : RMS_NORM, input, w ? [input, w] : [input], eps);
  },
  examples: [
    { label: "", args: (make, rows, cols) => [make([rows, cols]), make([cols])] },
    { label: "no weight", args: (make, rows, cols) => [make([rows, cols]), null, { eps: 1e-5 }] },
  ],
});

/**
 * LayerNorm over the last dim: `out = (x - mean) / sqrt(var + eps) * gamma + beta`
 * (biased variance, as PyTorch), one launch. `gamma` and `beta` (1-D, the length
 * of the last dim) may each be omitted or null; `eps` defaults to 1e-5.
 */
export const layerNorm = declareOp({
  name: "layerNorm", kernels: [LAYER_NORM, LAYER_NORM_GAMMA, LAYER_NORM_BETA, LAYER_NORM_GAMMA_BETA],
  fn: (x: Tensor, gamma?: Tensor | null, beta?: Tensor | null, options?: NormOptions): Tensor => {
    const where = "fl.ops.layerNorm";
    const input = checkFloatTensor(where, "x", x);
    const g = checkOptionalRowVector(where, "gamma", gamma, input);
    const b = checkOptionalRowVector(where, "beta", beta, input);
    const eps = checkEps(where, options, LAYER_NORM_EPS);
    const kernels = g ? (b ? LAYER_NORM_GAMMA_BETA : LAYER_NORM_GAMMA) : (b ? LAYER_NORM_BETA : LAYER_NORM);
    return launchNorm("ops.layerNorm", kernels, input, [input, ...(g ? [g] : []), ...(b ? [b] : [])], eps);
  },
  examples: [
    { label: "", args: (make, rows, cols) => [make([rows, cols]), make([cols]), make([cols])] },
    { label: "gamma only", args: (make, rows, cols) => [make([rows, cols]), make([cols])] },
    { label: "beta only", args: (make, rows, cols) => [make([rows, cols]), null, make([cols])] },
    { label: "neither", args: (make, rows, cols) => [make([rows, cols]), null, null, { eps: 1e-3 }] },
  ],
});

/**
 * Fused residual add and RMSNorm, as vLLM's fused_add_rms_norm, in one launch:
 * `residual` is updated IN PLACE to `x + residual` (rounded to the dtype, as
 * `ops.add` would store it), and `out = rmsNorm(residual, weight)`. Returns
 * `{ out, residual }`, where `residual` is the very tensor passed in. Reads x and
 * residual once and writes the sum without a second launch. `eps` defaults to 1e-6.
 */
export const addRmsNorm = declareFused({
  name: "addRmsNorm", computes: "residual = x + residual; out = rmsNorm(residual, weight)",
  chain: "ops.add(x, residual, { out: residual }); ops.rmsNorm(residual, weight)",
  kernels: [ADD_RMS_NORM], chainKernels: [], mutates: ["residual"],
  fused: (x: Tensor, residual: Tensor, weight: Tensor, options?: NormOptions): { out: Tensor; residual: Tensor } => {
    const where = "fl.fused.addRmsNorm";
    const [input, res] = checkResidualPair(where, x, residual);
    const w = checkRowVector(where, "weight", weight, "x", input);
    const eps = checkEps(where, options, RMS_NORM_EPS);
    const out = launchNorm("fused.addRmsNorm", ADD_RMS_NORM, input, [res, input, w], eps, res);
    return { out, residual: res };
  },
  unfused: (x: Tensor, residual: Tensor, weight: Tensor, options?: NormOptions): { out: Tensor; residual: Tensor } => {
    const [input, res] = checkResidualPair("fl.unfused.addRmsNorm", x, residual);
    add.fn(input, res, { out: res });
    return { out: rmsNorm.fn(res, weight, options), residual: res };
  },
  examples: [{ label: "", args: (make, rows, cols) => [make([rows, cols]), make([rows, cols]), make([cols])] }],
});

export const NORM_OPS = [rmsNorm, layerNorm] as const;
export const NORM_FUSED = [addRmsNorm] as const;
