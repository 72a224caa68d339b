// Row normalisations over the last dim (kernels/norm.hip): rmsNorm and layerNorm,
// and the fused addRmsNorm (vLLM's fused_add_rms_norm).
import { ArgumentError, describe } from "../errors";
import { Tensor } from "../tensor";
import {
  FloatDType, LaunchShape, checkFloatTensor, checkLike, checkOptions, checkRowVector, emptyLike, lastDim,
  launchBuiltin, rowChunks, rowCount,
} from "./common";

/** Options of every norm op. */
export interface NormOptions {
  /** Added to the mean square (or the variance) before the square root; a finite number > 0. */
  eps?: number;
}

const RMS_NORM_EPS = 1e-6;
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
  if (!(value instanceof Tensor)) throw new ArgumentError(where, name, "a tensor, null or undefined", describe(value));
  return checkRowVector(where, name, value, "x", x);
}

/**
 * One launch of a row kernel: out = emptyLike(x), the kernel's arguments are
 * (out, ...inputs, rows, cols, eps). It reads `inputs` and writes out, and
 * `updated` in place.
 */
function launchNorm(op: string, kernelOp: string, x: Tensor, inputs: Tensor[], eps: number,
                    updated: Tensor | null = null): Tensor {
  const out = emptyLike(x);
  const bytesRead = inputs.reduce((sum, t) => sum + t.bytes, 0);
  const bytesWritten = out.bytes + (updated ? updated.bytes : 0);
  launchBuiltin(op, kernelOp, x, rowLaunchShape(x), bytesRead, bytesWritten,
    [out, ...inputs, rowCount(x.shape), lastDim(x.shape), eps]);
  return out;
}

function checkEps(where: string, options: unknown, fallback: number): number {
  const eps = checkOptions<NormOptions>(where, options, ["eps"]).eps;
  if (eps === undefined) return fallback;
  if (typeof eps !== "number" || !Number.isFinite(eps) || eps <= 0) {
    throw new ArgumentError(where, "options.eps", "a finite number > 0", describe(eps));
  }
  return eps;
}

/**
 * RMSNorm over the last dim: `out = x / sqrt(mean(x²) + eps) * weight`, one
 * launch. `weight` (1-D, the length of the last dim) may be omitted or null;
 * `eps` defaults to 1e-6.
 */
export function rmsNorm(x: Tensor, weight?: Tensor | null, options?: NormOptions): Tensor {
  const where = "fl.ops.rmsNorm";
  const input = checkFloatTensor(where, "x", x);
  const w = checkOptionalRowVector(where, "weight", weight, input);
  const eps = checkEps(where, options, RMS_NORM_EPS);
  return launchNorm("ops.rmsNorm", w ? "rms_norm_weight" : "rms_norm", input, w ? [input, w] : [input], eps);
}

/**
 * LayerNorm over the last dim: `out = (x - mean) / sqrt(var + eps) * gamma + beta`
 * (biased variance, as PyTorch), one launch. `gamma` and `beta` (1-D, the length
 * of the last dim) may each be omitted or null; `eps` defaults to 1e-5.
 */
export function layerNorm(x: Tensor, gamma?: Tensor | null, beta?: Tensor | null, options?: NormOptions): Tensor {
  const where = "fl.ops.layerNorm";
  const input = checkFloatTensor(where, "x", x);
  const g = checkOptionalRowVector(where, "gamma", gamma, input);
  const b = checkOptionalRowVector(where, "beta", beta, input);
  const eps = checkEps(where, options, LAYER_NORM_EPS);
  const inputs = [input, ...(g ? [g] : []), ...(b ? [b] : [])];
  return launchNorm("ops.layerNorm", `layer_norm${g ? "_gamma" : ""}${b ? "_beta" : ""}`, input, inputs, eps);
}

/**
 * Fused residual add and RMSNorm, as vLLM's fused_add_rms_norm, in one launch:
 * `residual` is updated IN PLACE to `x + residual` (rounded to the dtype, as
 * `ops.add` would store it), and `out = rmsNorm(residual, weight)`. Returns
 * `{ out, residual }`, where `residual` is the very tensor passed in. Equals
 * `ops.add(x, residual)` then `ops.rmsNorm(sum, weight)`, reading x and residual
 * once and writing the sum without a second launch. `eps` defaults to 1e-6.
 */
export function addRmsNorm(x: Tensor, residual: Tensor, weight: Tensor,
                           options?: NormOptions): { out: Tensor; residual: Tensor } {
  const where = "fl.fused.addRmsNorm";
  const input = checkFloatTensor(where, "x", x);
  const res = checkLike(where, "residual", residual, "x", input);
  if (res === input) {
    throw new ArgumentError(where, "residual", "a different tensor from x (it is updated in place)", "x itself");
  }
  const w = checkRowVector(where, "weight", weight, "x", input);
  const eps = checkEps(where, options, RMS_NORM_EPS);
  const out = launchNorm("fused.addRmsNorm", "add_rms_norm", input, [res, input, w], eps, res);
  return { out, residual: res };
}

/** Unfused norm ops, merged into `fl.ops`. */
export const normOps = { rmsNorm, layerNorm };

/** Fused norm ops, merged into `fl.fused`. */
export const normFused = { addRmsNorm };
