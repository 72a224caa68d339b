// Rotary position embedding (kernels/rope.hip) in its layouts: ropeI
// (interleaved pairs), rope (halves d/2 apart, "neox") and ropeThd (halves, x as
// [batch, time, heads, dim]) with cos and sin tables [time, dim/2]; and
// ropePositions, where each token names its row of a cos/sin cache and only the
// first rotaryDim values of a head turn; and the fused qkNormRope.
import { ArgumentError, describe, shapeString } from "../errors";
import { Tensor } from "../tensor";
import {
  checkFloatTensor, checkOptions, checkSameDevice, checkSameDtype, emptyLike, launch1D, launchBuiltin, launchRows,
  nextPowerOfTwo, vectorWidth,
} from "./common";
import { FloatDType, KernelsByDType, OpExample, declareFused, declareOp, kernelsByDType } from "./declare";
import { rmsNorm } from "./norm";

/** Options of ropePositions. */
export interface RopePositionsOptions {
  /** Pairs d/2 apart (true, the default: GPT-NeoX, Llama) or interleaved (false: GPT-J). */
  neox?: boolean;
}

const ROPE_I = kernelsByDType("rope_i_f32", "rope_i_f16", "rope_i_bf16");
const ROPE = kernelsByDType("rope_f32", "rope_f16", "rope_bf16");
const ROPE_THD = kernelsByDType("rope_thd_f32", "rope_thd_f16", "rope_thd_bf16");
const ROPE_POSITIONS_NEOX = kernelsByDType("rope_positions_neox_f32", "rope_positions_neox_f16", "rope_positions_neox_bf16");
const ROPE_POSITIONS_INTERLEAVED = kernelsByDType(
  "rope_positions_interleaved_f32", "rope_positions_interleaved_f16", "rope_positions_interleaved_bf16");

/** A float tensor of `rank` dims whose last (the head dim) is even and > 0. */
function checkHeads(where: string, name: string, value: unknown, rank: number, dims: string): Tensor {
  const x = checkFloatTensor(where, name, value);
  const d = x.shape[x.shape.length - 1];
  if (x.shape.length !== rank || d % 2 !== 0 || x.size === 0) {
    throw new ArgumentError(where, name, `of shape ${dims} with an even head dim`, shapeString(x.shape));
  }
  return x;
}

/** A tensor of exactly `shape`, on x's device, of x's dtype. */
function checkShaped(where: string, name: string, value: unknown, shape: number[], what: string, x: Tensor): Tensor {
  const t = checkFloatTensor(where, name, value);
  checkSameDevice(where, name, t, "x", x);
  checkSameDtype(where, name, t, "x", x);
  if (t.shape.length !== shape.length || t.shape.some((d, i) => d !== shape[i])) {
    throw new ArgumentError(where, name, `have shape ${shapeString(shape)} (${what})`, shapeString(t.shape));
  }
  return t;
}

/** Work items of a table kernel: vectors of W values when the head dim allows them (as the kernel decides), else pairs. */
function tableItems(x: Tensor, interleaved: boolean): number {
  const d = x.shape[x.shape.length - 1];
  const v = vectorWidth(x.dtype as FloatDType);
  const vectorized = interleaved ? d % v === 0 : (d / 2) % v === 0;
  return x.size / (vectorized ? v : 2);
}

/**
 * One launch of a table kernel: `timeDim` is where x keeps its time steps (2 in
 * [b, h, t, d], 1 in [b, t, h, d]); cos and sin are [t, d/2].
 */
function ropeTables(name: string, kernels: KernelsByDType, x: unknown, cos: unknown, sin: unknown, timeDim: 1 | 2,
                    interleaved: boolean): Tensor {
  const where = `fl.ops.${name}`;
  const dims = timeDim === 2 ? "[batch, heads, time, dim]" : "[batch, time, heads, dim]";
  const input = checkHeads(where, "x", x, 4, dims);
  const [b, second, third, d] = input.shape;
  const [t, h] = timeDim === 2 ? [third, second] : [second, third];
  const tableShape = [t, d / 2];
  const c = checkShaped(where, "cos", cos, tableShape, "[time, dim/2] of x", input);
  const s = checkShaped(where, "sin", sin, tableShape, "[time, dim/2] of x", input);
  const out = emptyLike(input);
  launchBuiltin(`ops.${name}`, kernels, input, launch1D(input.device, tableItems(input, interleaved)),
    input.bytes + c.bytes + s.bytes, out.bytes, [out, input, c, s, b, h, t, d / 2]);
  return out;
}

// Examples: two sequences of three heads (an odd count), `rows` time steps, head dim `cols`.
const tables = (layout: "bhtd" | "bthd"): OpExample[] => [{
  label: "", args: (make, rows, cols) => [
    make(layout === "bhtd" ? [2, 3, rows, cols] : [2, rows, 3, cols]), make([rows, cols / 2]), make([rows, cols / 2]),
  ],
}];

/**
 * RoPE with interleaved pairs (x[2i], x[2i+1]), as candle's rope_i: x
 * [batch, heads, time, dim], cos and sin [time, dim/2] (the angle of pair i at
 * time step t). Returns a new tensor.
 */
export const ropeI = declareOp({
  name: "ropeI", kernels: [ROPE_I],
  fn: (x: Tensor, cos: Tensor, sin: Tensor): Tensor => ropeTables("ropeI", ROPE_I, x, cos, sin, 2, true),
  examples: tables("bhtd"),
});

/** RoPE with pairs d/2 apart (x[i], x[i + d/2]), as candle's rope (GPT-NeoX, Llama): x [batch, heads, time, dim]. */
export const rope = declareOp({
  name: "rope", kernels: [ROPE],
  fn: (x: Tensor, cos: Tensor, sin: Tensor): Tensor => ropeTables("rope", ROPE, x, cos, sin, 2, false),
  examples: tables("bhtd"),
});

/** rope with x as [batch, time, heads, dim], as candle's rope_thd. */
export const ropeThd = declareOp({
  name: "ropeThd", kernels: [ROPE_THD],
  fn: (x: Tensor, cos: Tensor, sin: Tensor): Tensor => ropeTables("ropeThd", ROPE_THD, x, cos, sin, 1, false),
  examples: tables("bthd"),
});

/** A cos/sin cache [maxPositions, rotaryDim] for heads of `headDim`, on the device and of the dtype of `ref`. */
export function checkCosSinCache(where: string, value: unknown, refName: string, ref: Tensor, headDim: number): Tensor {
  const cache = checkFloatTensor(where, "cosSinCache", value);
  checkSameDevice(where, "cosSinCache", cache, refName, ref);
  checkSameDtype(where, "cosSinCache", cache, refName, ref);
  const rotaryDim = cache.shape[1];
  if (cache.shape.length !== 2 || rotaryDim % 2 !== 0 || rotaryDim === 0 || rotaryDim > headDim) {
    throw new ArgumentError(where, "cosSinCache", `of shape [maxPositions, rotaryDim] with rotaryDim even, from 2 to ${headDim} (the head dim of ${refName})`,
      shapeString(cache.shape));
  }
  return cache;
}

/** positions: a 1-D i32 tensor of `tokens` values, each a row of a table of `rows` rows (read back to check). */
function checkPositions(where: string, value: unknown, tokens: number, rows: number, table: string,
                               x: Tensor): { positions: Tensor; distinct: number } {
  if (!Tensor.isTensor(value)) throw new ArgumentError(where, "positions", "a tensor", describe(value));
  if (value.dtype !== "i32" || value.shape.length !== 1 || value.shape[0] !== tokens) {
    throw new ArgumentError(where, "positions", `an i32 tensor of shape [${tokens}] (one position a token of x)`,
      `a tensor of dtype ${value.dtype} and shape ${shapeString(value.shape)}`);
  }
  const positions = value as Tensor<"i32">;
  checkSameDevice(where, "positions", positions, "x", x);
  const values = positions.toArray();
  const bad = values.findIndex((p) => !(p >= 0 && p < rows));
  if (bad >= 0) {
    throw new ArgumentError(where, `positions[${bad}]`, `from 0 to ${rows - 1} (the rows of ${table})`, String(values[bad]));
  }
  return { positions, distinct: new Set(values).size };
}

/**
 * RoPE as vLLM's rotary_embedding: x [tokens, heads, headDim]; positions, i32
 * [tokens], pick each token's row of cosSinCache [maxPositions, rotaryDim] (cos
 * in its first rotaryDim/2 columns, sin in the rest); the first rotaryDim values
 * of each head turn (rotaryDim even, at most headDim), the rest are copied. A
 * position outside the cache is an error naming it. Returns a new tensor.
 */
export const ropePositions = declareOp({
  name: "ropePositions", kernels: [ROPE_POSITIONS_NEOX, ROPE_POSITIONS_INTERLEAVED],
  gathers: [{ table: 2, index: 1 }],
  fn: (x: Tensor, positions: Tensor, cosSinCache: Tensor, options?: RopePositionsOptions): Tensor => {
    const where = "fl.ops.ropePositions";
    const input = checkHeads(where, "x", x, 3, "[tokens, heads, headDim]");
    const [tokens, heads, headDim] = input.shape;
    const cache = checkCosSinCache(where, cosSinCache, "x", input, headDim);
    const [maxPositions, rotaryDim] = cache.shape;
    const neox = checkOptions<RopePositionsOptions>(where, options, ["neox"]).neox ?? true;
    if (typeof neox !== "boolean") throw new ArgumentError(where, "options.neox", "a boolean", describe(neox));
    const { positions: pos, distinct } = checkPositions(where, positions, tokens, maxPositions, "cosSinCache", input);
    const out = emptyLike(input);
    // Each distinct position's row of the cache is read once; the others hit in cache.
    const cacheRead = distinct * (cache.bytes / maxPositions);
    launchBuiltin(where.slice(3), neox ? ROPE_POSITIONS_NEOX : ROPE_POSITIONS_INTERLEAVED, input,
      launch1D(input.device, input.size / 2), input.bytes + pos.bytes + cacheRead, out.bytes,
      [out, input, pos, cache, tokens, heads, headDim / 2, maxPositions, rotaryDim / 2]);
    return out;
  },
  examples: [
    // `rows` tokens at positions among 2 * rows + 3 cache rows, three heads.
    { label: "", args: (make, rows, cols) => [make([rows, 3, cols]), make([rows], { below: 2 * rows + 3 }), make([2 * rows + 3, cols])] },
    {
      label: "interleaved, partial rotary dim",
      args: (make, rows, cols) => [make([rows, 3, cols]), make([rows], { below: rows + 1 }),
        make([rows + 1, partialRotaryDim(cols)]), { neox: false }],
    },
    {
      label: "partial rotary dim",
      args: (make, rows, cols) => [make([rows, 5, cols]), make([rows], { below: 7 }), make([7, partialRotaryDim(cols)])],
    },
  ],
});

/** About half the head dim, even, at least 2: the rotary dims of the partial examples. */
function partialRotaryDim(headDim: number): number {
  return Math.max(2, 2 * Math.floor(headDim / 4));
}

/** Options of qkNormRope. */
export interface QkNormRopeOptions {
  /** Query heads and key (and value) heads a token in qkv: required. */
  qHeads: number;
  kvHeads: number;
  /** Pairs d/2 apart (true, the default) or interleaved (false). */
  neox?: boolean;
  /** Added to the mean square before the square root; a finite number > 0, 1e-6 when left out. */
  eps?: number;
}

const QK_NORM_ROPE_NEOX = kernelsByDType("qk_norm_rope_neox_f32", "qk_norm_rope_neox_f16", "qk_norm_rope_neox_bf16");
const QK_NORM_ROPE_INTERLEAVED = kernelsByDType(
  "qk_norm_rope_interleaved_f32", "qk_norm_rope_interleaved_f16", "qk_norm_rope_interleaved_bf16");
const TAKE_COLUMNS = kernelsByDType("take_columns_f32", "take_columns_f16", "take_columns_bf16");
const PUT_COLUMNS = kernelsByDType("put_columns_f32", "put_columns_f16", "put_columns_bf16");
const QK_NORM_EPS = 1e-6;
// Threads in a block of qk_norm_rope (row groups of up to a warp, one head each).
// 128, not 256: on an H100 0.7-1.2% faster, f32 interleaved heads the same.
const QK_BLOCK_THREADS = 128;
// Work items a thread of qk_norm_rope takes. Two, not one: on an H100 a group of
// half the threads moved a bf16 head 7% (neox) to 20% (interleaved) faster, each
// thread then keeping twice the bytes in flight, and f32 no slower.
const QK_ITEMS_PER_THREAD = 2;

/** A positive integer option. */
function checkCount(where: string, name: string, value: unknown): number {
  if (typeof value !== "number" || !Number.isInteger(value) || value < 1) {
    throw new ArgumentError(where, name, "a positive integer", describe(value));
  }
  return value;
}

/** Everything qkNormRope checks, with the sizes it derives. */
function checkQkNormRope(where: string, qkv: unknown, qWeight: unknown, kWeight: unknown, positions: unknown,
                         cosSinCache: unknown, options: unknown) {
  const o = checkOptions<QkNormRopeOptions>(where, options, ["qHeads", "kvHeads", "neox", "eps"]);
  const qHeads = checkCount(where, "options.qHeads", o.qHeads);
  const kvHeads = checkCount(where, "options.kvHeads", o.kvHeads);
  const packed = checkFloatTensor(where, "qkv", qkv);
  const heads = qHeads + 2 * kvHeads;
  const width = packed.shape[1];
  if (packed.shape.length !== 2 || width % heads !== 0 || (width / heads) % 2 !== 0) {
    throw new ArgumentError(where, "qkv", `of shape [tokens, (qHeads + 2 * kvHeads) * headDim] = [tokens, ${heads} * headDim] with headDim even`,
      shapeString(packed.shape));
  }
  const [tokens] = packed.shape;
  const headDim = width / heads;
  const qw = checkShaped(where, "qWeight", qWeight, [headDim], "the head dim", packed);
  const kw = checkShaped(where, "kWeight", kWeight, [headDim], "the head dim", packed);
  const cache = checkCosSinCache(where, cosSinCache, "qkv", packed, headDim);
  const rotaryDim = cache.shape[1];
  const neox = o.neox ?? true;
  if (typeof neox !== "boolean") throw new ArgumentError(where, "options.neox", "a boolean", describe(neox));
  const eps = o.eps ?? QK_NORM_EPS;
  if (typeof eps !== "number" || !Number.isFinite(eps) || eps <= 0) {
    throw new ArgumentError(where, "options.eps", "a finite number > 0", describe(eps));
  }
  const { positions: pos, distinct } = checkPositions(where, positions, tokens, cache.shape[0], "cosSinCache", packed);
  return { qkv: packed, qw, kw, pos, distinct, cache, tokens, qHeads, kvHeads, headDim, rotaryDim, neox, eps };
}

// A column range of a [rows, cols] tensor: copied out, or written back in place.
function takeColumns(op: string, x: Tensor, start: number, width: number, shape: number[]): Tensor {
  const [rows, cols] = x.shape;
  const out = emptyLike(x, shape);
  launchBuiltin(op, TAKE_COLUMNS, x, launchRows(x.device, rows, width), out.bytes, out.bytes, [out, x, rows, cols, start, width]);
  return out;
}

function putColumns(op: string, into: Tensor, part: Tensor, start: number): void {
  const [rows, cols] = into.shape;
  const width = part.size / rows;
  launchBuiltin(op, PUT_COLUMNS, into, launchRows(into.device, rows, width), part.bytes, part.bytes,
    [into, part, rows, cols, start, width]);
}

/**
 * Work items a head of qkNormRope: pairs, or (as the kernel decides) chunks of
 * 16-byte vectors when the head dim and half the rotary dim are whole vectors;
 * neox pairs a chunk of the turned half with its partner, so those count once.
 */
function qkNormRopeItems(dtype: FloatDType, headDim: number, rotaryDim: number, neox: boolean): number {
  const v = vectorWidth(dtype);
  if (headDim % v !== 0 || (rotaryDim / 2) % v !== 0) return headDim / 2;
  return neox ? (headDim - rotaryDim / 2) / v : headDim / v;
}

/** The share of qkv's bytes that are q and k heads (the part qkNormRope reads and writes). */
function qkShare(args: unknown[]): number {
  const { qHeads, kvHeads } = args[5] as QkNormRopeOptions;
  return (qHeads + kvHeads) / (qHeads + 2 * kvHeads);
}

/**
 * vLLM's fused QK-norm + RoPE, in one launch, in place: qkv [tokens, (qHeads +
 * 2 kvHeads) * headDim] packs each token's q, k and v heads; every q head is
 * RMS-normalised with qWeight [headDim], every k head with kWeight, then both
 * turn by RoPE at the token's position (positions i32 [tokens], cosSinCache
 * [maxPositions, rotaryDim], as ops.ropePositions), all in f32 and rounded once;
 * the v heads are neither read nor written. Returns `{ qkv }`, the tensor given.
 */
export const qkNormRope = declareFused({
  name: "qkNormRope", computes: "q, k = rope(rmsNorm(q, qWeight)), rope(rmsNorm(k, kWeight)) in qkv, in place",
  chain: "per part p of q, k: c = copy of qkv's columns of p; c = ops.ropePositions(ops.rmsNorm(c, weight), positions, cosSinCache); copy c back",
  kernels: [QK_NORM_ROPE_NEOX, QK_NORM_ROPE_INTERLEAVED], chainKernels: [TAKE_COLUMNS, PUT_COLUMNS], mutates: ["qkv"],
  gathers: [{ table: 4, index: 3 }], partial: [{ arg: 0, fraction: qkShare }],
  fused: (qkv: Tensor, qWeight: Tensor, kWeight: Tensor, positions: Tensor, cosSinCache: Tensor,
          options: QkNormRopeOptions): { qkv: Tensor } => {
    const where = "fl.fused.qkNormRope";
    const c = checkQkNormRope(where, qkv, qWeight, kWeight, positions, cosSinCache, options);
    const normedHeads = c.tokens * (c.qHeads + c.kvHeads);
    const { warpSize, maxGridDim } = c.qkv.device.props;
    const items = qkNormRopeItems(c.qkv.dtype as FloatDType, c.headDim, c.rotaryDim, c.neox);
    const group = Math.min(warpSize, nextPowerOfTwo(Math.ceil(items / QK_ITEMS_PER_THREAD)));
    const headsPerBlock = QK_BLOCK_THREADS / group;
    const shape = { grid: [Math.min(Math.ceil(normedHeads / headsPerBlock), maxGridDim[0]), 1] as [number, number],
      block: [group, headsPerBlock] as [number, number] };
    const qkBytes = c.qkv.bytes * (c.qHeads + c.kvHeads) / (c.qHeads + 2 * c.kvHeads);
    const cacheRead = c.distinct * (c.cache.bytes / c.cache.shape[0]);
    launchBuiltin("fused.qkNormRope", c.neox ? QK_NORM_ROPE_NEOX : QK_NORM_ROPE_INTERLEAVED, c.qkv, shape,
      qkBytes + c.qw.bytes + c.kw.bytes + c.pos.bytes + cacheRead, qkBytes,
      [c.qkv, c.qw, c.kw, c.pos, c.cache, c.tokens, c.qHeads, c.kvHeads, c.headDim / 2, c.cache.shape[0], c.rotaryDim / 2, c.eps]);
    return { qkv: c.qkv };
  },
  unfused: (qkv: Tensor, qWeight: Tensor, kWeight: Tensor, positions: Tensor, cosSinCache: Tensor,
            options: QkNormRopeOptions): { qkv: Tensor } => {
    const where = "fl.unfused.qkNormRope";
    const c = checkQkNormRope(where, qkv, qWeight, kWeight, positions, cosSinCache, options);
    const parts: [number, number, Tensor][] = [[0, c.qHeads, c.qw], [c.qHeads * c.headDim, c.kvHeads, c.kw]];
    for (const [start, heads, weight] of parts) {
      const part = takeColumns("unfused.qkNormRope", c.qkv, start, heads * c.headDim, [c.tokens, heads, c.headDim]);
      const turned = ropePositions.fn(rmsNorm.fn(part, weight, { eps: c.eps }), c.pos, c.cache, { neox: c.neox });
      putColumns("unfused.qkNormRope", c.qkv, turned, start);
    }
    return { qkv: c.qkv };
  },
  examples: [
    // `rows` tokens, grouped-query heads (3 q heads a kv head; 6 at model widths), full rotary dim.
    {
      label: "", args: (make, rows, cols) => {
        const h = qkHeadsOf(cols, [3, 1], 8);
        return [make([rows, h.width]), make([h.headDim]), make([h.headDim]), make([rows], { below: 2 * rows + 1 }),
          make([2 * rows + 1, h.headDim]), { qHeads: h.qHeads, kvHeads: h.kvHeads }];
      },
    },
    {
      label: "interleaved, partial rotary dim",
      args: (make, rows, cols) => {
        const h = qkHeadsOf(cols, [4, 2], 4);
        return [make([rows, h.width]), make([h.headDim]), make([h.headDim]), make([rows], { below: 5 }),
          make([5, partialRotaryDim(h.headDim)]), { qHeads: h.qHeads, kvHeads: h.kvHeads, neox: false, eps: 1e-5 }];
      },
    },
  ],
});

/**
 * The heads of a qkNormRope example at width `cols`. Up to 256 (the head dims
 * the tests take), one head of `cols` values: `small` q and kv heads a token. At
 * a model's width (a multiple of 1024 above 256), heads of 128 values whose
 * q, k and v together fill `cols`, one kv head in `kvShare` (4096 and 8: 24 q
 * heads and 4 kv heads). A head of 4096 values is no model's, and the vLLM
 * kernel this op follows takes 64 to 256.
 */
function qkHeadsOf(cols: number, small: [number, number], kvShare: number): { headDim: number; qHeads: number; kvHeads: number; width: number } {
  if (cols > 256 && cols % 1024 === 0) {
    const heads = cols / 128;
    const kvHeads = heads / kvShare;
    return { headDim: 128, qHeads: heads - 2 * kvHeads, kvHeads, width: cols };
  }
  const [qHeads, kvHeads] = small;
  return { headDim: cols, qHeads, kvHeads, width: (qHeads + 2 * kvHeads) * cols };
}

export const ROPE_OPS = [ropeI, rope, ropeThd, ropePositions] as const;
export const ROPE_FUSED = [qkNormRope] as const;
