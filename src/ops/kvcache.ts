// The KV cache append (kernels/kvcache.hip): ROCmForge's fused RoPE + KV cache
// append kernels (K turned into its cache, V alone, K and V together, and the
// batch form for a prompt) as three ops: cacheAppend (V alone: rows copied into
// a cache at the new tokens' slots), and the fused ropeKAppend and ropeKvAppend,
// whose chains turn K into a temporary (ops.ropePositions) and copy it into the
// cache (ops.cacheAppend). Each op serves a decode step (one new token a
// sequence) and a prompt or a batch of prompts (many tokens a sequence) alike:
// the shapes say how many tokens each sequence gets.
//
// Positions live on the device, and are checked on the host before anything is
// launched (each op's comment says so): the host reads them back rather than
// letting the kernel skip bad ones and raise a flag the host reads afterwards,
// because an error must leave the caches as they were, not half written, and
// reading a flag back would wait for the device all the same.
import { ArgumentError, describe, shapeString } from "../errors";
import { Tensor, tensor } from "../tensor";
import { checkFloatTensor, checkOptions, checkSameDevice, checkSameDtype, launch1D, launchBuiltin, vectorWidth } from "./common";
import { FloatDType, MakeTensor, declareFused, declareOp, kernelsByDType } from "./declare";
import { RopePositionsOptions, checkCosSinCache, ropePositions } from "./rope";

/** Options of ropeKAppend and ropeKvAppend: how K's pairs turn, as ops.ropePositions. */
export type RopeAppendOptions = RopePositionsOptions;

const CACHE_APPEND = kernelsByDType("cache_append_f32", "cache_append_f16", "cache_append_bf16");
const ROPE_K_APPEND_NEOX = kernelsByDType("rope_k_append_neox_f32", "rope_k_append_neox_f16", "rope_k_append_neox_bf16");
const ROPE_K_APPEND_INTERLEAVED = kernelsByDType(
  "rope_k_append_interleaved_f32", "rope_k_append_interleaved_f16", "rope_k_append_interleaved_bf16");
const ROPE_KV_APPEND_NEOX = kernelsByDType("rope_kv_append_neox_f32", "rope_kv_append_neox_f16", "rope_kv_append_neox_bf16");
const ROPE_KV_APPEND_INTERLEAVED = kernelsByDType(
  "rope_kv_append_interleaved_f32", "rope_kv_append_interleaved_f16", "rope_kv_append_interleaved_bf16");

/** A cache and the sizes it implies: [maxSeq, heads, d] is one sequence, [seqs, maxSeq, heads, d] many. */
interface Cache {
  cache: Tensor;
  seqs: number;
  maxSeq: number;
  heads: number;
  d: number;
}

function checkCache(where: string, name: string, value: unknown): Cache {
  const cache = checkFloatTensor(where, name, value);
  const rank = cache.shape.length;
  if (rank !== 3 && rank !== 4) {
    throw new ArgumentError(where, name, "a cache of shape [maxSeq, heads, headDim] (one sequence) or [seqs, maxSeq, heads, headDim]",
      shapeString(cache.shape));
  }
  const [maxSeq, heads, d] = cache.shape.slice(-3);
  return { cache, seqs: rank === 4 ? cache.shape[0] : 1, maxSeq, heads, d };
}

/** `other` has the shape, dtype and device of the first cache (vCache beside kCache). */
function checkSecondCache(where: string, name: string, value: unknown, firstName: string, first: Cache): Tensor {
  const cache = checkFloatTensor(where, name, value);
  checkSameDevice(where, name, cache, firstName, first.cache);
  checkSameDtype(where, name, cache, firstName, first.cache);
  if (shapeString(cache.shape) !== shapeString(first.cache.shape)) {
    throw new ArgumentError(where, name, `have shape ${shapeString(first.cache.shape)} (the shape of ${firstName})`, shapeString(cache.shape));
  }
  return cache;
}

/**
 * New tokens for `c`: x [tokens, heads, d] with the cache's heads, head dim,
 * dtype and device, and tokens a multiple of its sequences (each sequence gets
 * tokens / seqs of them, one sequence after another).
 */
function checkNewTokens(where: string, name: string, value: unknown, cacheName: string, c: Cache): Tensor {
  const x = checkFloatTensor(where, name, value);
  checkSameDevice(where, name, x, cacheName, c.cache);
  checkSameDtype(where, name, x, cacheName, c.cache);
  const [tokens, heads, d] = x.shape;
  if (x.shape.length !== 3 || heads !== c.heads || d !== c.d || tokens % c.seqs !== 0) {
    const each = c.seqs === 1 ? "" : ` with tokens a multiple of ${c.seqs} (the sequences of ${cacheName}), the same count each`;
    throw new ArgumentError(where, name, `of shape [tokens, ${c.heads}, ${c.d}]${each}`, shapeString(x.shape));
  }
  return x;
}

/** Each tensor a different one: an op must not read what it writes. */
function checkDistinct(where: string, named: [string, Tensor][]): void {
  named.forEach(([name, t], i) => {
    const earlier = named.slice(0, i).find(([, u]) => u === t);
    if (earlier) throw new ArgumentError(where, name, `a tensor other than ${earlier[0]} (one is written, the other read or written)`, `${earlier[0]} itself`);
  });
}

/** A limit on positions: `count` of them, from 0, as `what` says ("kCache holds 4096 slots a sequence"). */
interface Limit {
  count: number;
  what: string;
}

/**
 * positions: an i32 tensor of one value a sequence of `c`, the slot of its first
 * new token; read back to the host and checked so that all `perSeq` new tokens
 * of every sequence stay under each limit. Returns the values.
 */
function checkPositions(where: string, value: unknown, cacheName: string, c: Cache, perSeq: number, limits: Limit[]): Int32Array {
  if (!Tensor.isTensor(value)) throw new ArgumentError(where, "positions", "a tensor", describe(value));
  if (value.disposed) throw new ArgumentError(where, "positions", "a tensor that has not been disposed", "a disposed tensor");
  if (value.dtype !== "i32" || value.shape.length !== 1 || value.shape[0] !== c.seqs) {
    throw new ArgumentError(where, "positions", `an i32 tensor of shape [${c.seqs}] (the first new slot of each sequence of ${cacheName})`,
      `a tensor of dtype ${value.dtype} and shape ${shapeString(value.shape)}`);
  }
  checkSameDevice(where, "positions", value, cacheName, c.cache);
  const values = value.toArray() as Int32Array;
  const limit = limits.reduce((a, b) => (b.count < a.count ? b : a));
  const last = limit.count - perSeq;
  const bad = values.findIndex((p) => p < 0 || p > last);
  if (bad >= 0) {
    const why = perSeq === 1 ? limit.what : `its ${perSeq} new tokens take the positions from there on, and ${limit.what}`;
    const expected = last < 0 ? `a position from which its ${perSeq} new tokens fit, but ${limit.what}` : `from 0 to ${last} (${why})`;
    throw new ArgumentError(where, `positions[${bad}]`, expected, String(values[bad]));
  }
  return values;
}

/** The distinct positions the new tokens take (the rows of cos/sin a turn reads). */
function takenPositions(positions: Int32Array, perSeq: number): number {
  const taken = new Set<number>();
  for (const p of positions) for (let t = 0; t < perSeq; t++) taken.add(p + t);
  return taken.size;
}

/** Work items of a row copy: 16-byte vectors when a token's row is whole vectors (as the kernel decides), else values. */
function rowItems(x: Tensor): number {
  const row = x.shape[1] * x.shape[2];
  return row % vectorWidth(x.dtype as FloatDType) === 0 ? x.size / vectorWidth(x.dtype as FloatDType) : x.size;
}

/**
 * Work items of a turn, as the kernel decides them: neox, chunks of a 16-byte
 * vector's worth of pairs of each half when both half dims are whole chunks,
 * else pairs; interleaved, two chunks of a head (16-byte vectors of values when
 * both half dims are whole half vectors, else pairs) an item.
 */
function turnItems(k: Tensor, rotaryDim: number, neox: boolean): number {
  const v = vectorWidth(k.dtype as FloatDType);
  const [tokens, heads, d] = k.shape;
  const pairs = neox ? v : v / 2;
  const vectors = (d / 2) % pairs === 0 && (rotaryDim / 2) % pairs === 0;
  if (neox) return vectors ? k.size / 2 / pairs : k.size / 2;
  const chunks = vectors ? d / v : d / 2;
  return tokens * heads * Math.ceil(chunks / 2);
}

/** Everything cacheAppend checks, and the sizes it derives. */
function checkAppend(where: string, x: unknown, positions: unknown, cache: unknown) {
  const c = checkCache(where, "cache", cache);
  const rows = checkNewTokens(where, "x", x, "cache", c);
  checkDistinct(where, [["cache", c.cache], ["x", rows]]);
  const perSeq = rows.shape[0] / c.seqs;
  const pos = checkPositions(where, positions, "cache", c, perSeq, [{ count: c.maxSeq, what: `cache holds ${c.maxSeq} slots a sequence` }]);
  return { c, x: rows, positions: positions as Tensor, values: pos, perSeq };
}

/**
 * The V append: x [tokens, heads, headDim] copied into cache [maxSeq, heads,
 * headDim] (one sequence) or [seqs, maxSeq, heads, headDim], values as they are
 * stored. Each sequence gets tokens / seqs new tokens, one sequence after
 * another; positions, i32 [seqs], is the slot of each sequence's first new token
 * (its length so far), the next ones following it: a decode step is one token a
 * sequence, a prompt many. Positions are read back to the host (on a GPU, a
 * copy of 4 bytes a sequence, which waits for the device) and checked before
 * the launch: a token that would land outside the cache is an error naming its
 * position, and nothing is written. The kernel also skips any such token, so
 * that a direct launch of it never writes out of bounds. Only the new tokens'
 * slots are written. Returns `{ cache }`, the tensor given.
 */
export const cacheAppend = declareOp({
  name: "cacheAppend", kernels: [CACHE_APPEND], scatters: [{ into: 2, from: 0 }],
  fn: (x: Tensor, positions: Tensor, cache: Tensor): { cache: Tensor } => {
    const where = "fl.ops.cacheAppend";
    const a = checkAppend(where, x, positions, cache);
    const [tokens, heads, d] = a.x.shape;
    launchBuiltin("ops.cacheAppend", CACHE_APPEND, a.x, launch1D(a.x.device, rowItems(a.x)), a.x.bytes + a.positions.bytes,
      a.x.bytes, [a.c.cache, a.x, a.positions, tokens, a.c.seqs, heads, d, a.c.maxSeq]);
    return { cache: a.c.cache };
  },
  examples: [
    { label: "decode", args: (make, rows, cols) => decodeArgs(make, rows, cols, "x") },
    { label: "prompt", args: (make, rows, cols) => promptArgs(make, rows, cols, false, "x") },
    { label: "batch of prompts", args: (make, rows, cols) => promptArgs(make, rows, cols, true, "x") },
  ],
});

/** Everything the RoPE appends check, with the sizes they derive; `v` and `vCache` only for ropeKvAppend. */
function checkRopeAppend(where: string, k: unknown, v: unknown, positions: unknown, cosSinCache: unknown, kCache: unknown,
                         vCache: unknown, options: unknown, withV: boolean) {
  const kc = checkCache(where, "kCache", kCache);
  const kt = checkNewTokens(where, "k", k, "kCache", kc);
  if (kc.d % 2 !== 0) throw new ArgumentError(where, "kCache", "a cache whose head dim is even (RoPE turns pairs)", shapeString(kc.cache.shape));
  const vc = withV ? checkSecondCache(where, "vCache", vCache, "kCache", kc) : undefined;
  const vt = withV ? checkNewTokens(where, "v", v, "vCache", kc) : undefined;
  if (vt && vt.shape[0] !== kt.shape[0]) {
    throw new ArgumentError(where, "v", `have shape ${shapeString(kt.shape)} (the shape of k)`, shapeString(vt.shape));
  }
  const cosSin = checkCosSinCache(where, cosSinCache, "k", kt, kc.d);
  const neox = checkOptions<RopeAppendOptions>(where, options, ["neox"]).neox ?? true;
  if (typeof neox !== "boolean") throw new ArgumentError(where, "options.neox", "a boolean", describe(neox));
  const named: [string, Tensor | undefined][] = [["kCache", kc.cache], ["vCache", vc], ["k", kt], ["v", vt], ["cosSinCache", cosSin]];
  checkDistinct(where, named.filter((n): n is [string, Tensor] => n[1] !== undefined));
  const perSeq = kt.shape[0] / kc.seqs;
  const [maxPositions, rotaryDim] = cosSin.shape;
  const values = checkPositions(where, positions, "kCache", kc, perSeq, [
    { count: kc.maxSeq, what: `kCache holds ${kc.maxSeq} slots a sequence` },
    { count: maxPositions, what: `cosSinCache has ${maxPositions} rows` },
  ]);
  return { kc, k: kt, v: vt, vCache: vc, positions: positions as Tensor, values, perSeq, cosSin, maxPositions, rotaryDim, neox };
}
type RopeAppend = ReturnType<typeof checkRopeAppend>;

/** The bytes a fused append reads: k (and v), positions, and each row of cos/sin its tokens take, once. */
function ropeAppendBytesRead(a: RopeAppend): number {
  const rowBytes = a.cosSin.bytes / a.maxPositions;
  return a.k.bytes + (a.v?.bytes ?? 0) + a.positions.bytes + takenPositions(a.values, a.perSeq) * rowBytes;
}

/** The scalars after the tensors of both RoPE append kernels. */
function ropeAppendSizes(a: RopeAppend): number[] {
  const [tokens, heads, d] = a.k.shape;
  return [tokens, a.kc.seqs, heads, d / 2, a.kc.maxSeq, a.maxPositions, a.rotaryDim / 2];
}

/** The unfused chain's K: ops.ropePositions into a temporary, at the position of every new token, then ops.cacheAppend. */
function ropeThenAppend(a: RopeAppend): void {
  const tokenPositions = a.perSeq === 1 ? a.positions : tensor(
    Int32Array.from({ length: a.k.shape[0] }, (_, i) => a.values[Math.floor(i / a.perSeq)] + (i % a.perSeq)),
    { shape: [a.k.shape[0]], dtype: "i32", device: a.k.device });
  const turned = ropePositions.fn(a.k, tokenPositions, a.cosSin, { neox: a.neox });
  cacheAppend.fn(turned, a.positions, a.kc.cache);
}

// The examples' sizes from the tests' or the bench's [rows, cols]. The tests give
// a head dim as cols (up to 256, the largest of real models) and a few tokens as
// rows: 3 heads of cols (an odd count), a decode step of rows sequences, prompts
// of rows tokens. The bench gives [32768, 4096] on a GPU ([256, 4096] on the
// emulator): a token's K is then 4096 values, 32 heads of 128 (as Llama 2 7B's),
// a decode step takes 256 sequences, a prompt 4096 tokens.
const MAX_HEAD_DIM = 256;
const WIDE_HEAD_DIM = 128;
const MAX_DECODE_SEQS = 256;
const MAX_PROMPT_TOKENS = 4096;
const PROMPT_BATCH = 3;

/** Which tensors an example makes: x alone (cacheAppend), k, or k and v; and how K turns. */
type Parts = "x" | "k" | "kv";
type Turn = "neox" | "interleaved, partial";

/** One new token for each of up to 256 sequences, at positions among about rows / seqs + 2 slots each. */
function decodeArgs(make: MakeTensor, rows: number, cols: number, parts: Parts, turn: Turn = "neox"): unknown[] {
  const seqs = Math.min(rows, MAX_DECODE_SEQS);
  const maxSeq = Math.ceil(rows / seqs) + 2;
  return appendArgs(make, cols, [seqs, maxSeq], seqs, parts, turn);
}

/** Prompts of up to 4096 tokens, from positions that leave room for them: one in a cache of one sequence, or a batch of 3. */
function promptArgs(make: MakeTensor, rows: number, cols: number, batch: boolean, parts: Parts, turn: Turn = "neox"): unknown[] {
  const perSeq = Math.min(rows, MAX_PROMPT_TOKENS), maxSeq = 2 * perSeq + 1;
  return appendArgs(make, cols, batch ? [PROMPT_BATCH, maxSeq] : [maxSeq], (batch ? PROMPT_BATCH : 1) * perSeq, parts, turn);
}

/** An append's arguments for caches of `seqDims` ([maxSeq] or [seqs, maxSeq]) and `tokens` new tokens. */
function appendArgs(make: MakeTensor, cols: number, seqDims: number[], tokens: number, parts: Parts, turn: Turn): unknown[] {
  const [heads, d] = cols <= MAX_HEAD_DIM || cols % WIDE_HEAD_DIM !== 0 ? [3, cols] : [cols / WIDE_HEAD_DIM, WIDE_HEAD_DIM];
  const cacheShape = [...seqDims, heads, d];
  const maxSeq = seqDims[seqDims.length - 1], seqs = seqDims.length === 2 ? seqDims[0] : 1;
  const newTokens = () => make([tokens, heads, d]);
  const positions = make([seqs], { below: maxSeq - tokens / seqs + 1 });
  if (parts === "x") return [newTokens(), positions, make(cacheShape)];
  const rotaryDim = turn === "neox" ? d : Math.max(2, 2 * Math.floor(d / 4));
  const options = turn === "neox" ? [] : [{ neox: false }];
  const cosSin = make([maxSeq, rotaryDim]);
  if (parts === "k") return [newTokens(), positions, cosSin, make(cacheShape), ...options];
  return [newTokens(), newTokens(), positions, cosSin, make(cacheShape), make(cacheShape), ...options];
}

/** New tokens a sequence: the tokens of k over the sequences of positions. */
function perSequence(k: Tensor, positions: Tensor): number {
  return k.shape[0] / positions.shape[0];
}

/**
 * K turned by RoPE and appended to its cache, in one launch (ROCmForge's
 * fused_rope_k_cache_append): k [tokens, heads, headDim] goes into kCache
 * [maxSeq, heads, headDim] or [seqs, maxSeq, heads, headDim] as
 * ops.cacheAppend puts it (positions, i32 [seqs], the slot of each sequence's
 * first new token), each token turned at its position as ops.ropePositions
 * turns it (cosSinCache [maxPositions, rotaryDim]; options.neox), in f32,
 * rounded once. Positions are read back to the host and checked before the
 * launch, as ops.cacheAppend checks them: a token past the cache, or past the
 * rows of cosSinCache, is an error naming its position, and nothing is written;
 * the kernel skips such a token too. Returns `{ kCache }`, the tensor given.
 */
export const ropeKAppend = declareFused({
  name: "ropeKAppend", computes: "kCache[seq, position] = rope(k, position) for each new token",
  chain: "t = ops.ropePositions(k, the position of every new token, cosSinCache); ops.cacheAppend(t, positions, kCache)",
  kernels: [ROPE_K_APPEND_NEOX, ROPE_K_APPEND_INTERLEAVED], mutates: ["kCache"],
  gathers: [{ table: 2, index: 1, span: (args) => perSequence(args[0], args[1]) }], scatters: [{ into: 3, from: 0 }],
  fused: (k: Tensor, positions: Tensor, cosSinCache: Tensor, kCache: Tensor, options?: RopeAppendOptions): { kCache: Tensor } => {
    const a = checkRopeAppend("fl.fused.ropeKAppend", k, undefined, positions, cosSinCache, kCache, undefined, options, false);
    launchBuiltin("fused.ropeKAppend", a.neox ? ROPE_K_APPEND_NEOX : ROPE_K_APPEND_INTERLEAVED, a.k,
      launch1D(a.k.device, turnItems(a.k, a.rotaryDim, a.neox)), ropeAppendBytesRead(a), a.k.bytes,
      [a.kc.cache, a.k, a.positions, a.cosSin, ...ropeAppendSizes(a)]);
    return { kCache: a.kc.cache };
  },
  unfused: (k: Tensor, positions: Tensor, cosSinCache: Tensor, kCache: Tensor, options?: RopeAppendOptions): { kCache: Tensor } => {
    ropeThenAppend(checkRopeAppend("fl.unfused.ropeKAppend", k, undefined, positions, cosSinCache, kCache, undefined, options, false));
    return { kCache };
  },
  examples: [
    { label: "decode", args: (make, rows, cols) => decodeArgs(make, rows, cols, "k") },
    {
      label: "prompt, interleaved, partial rotary dim",
      args: (make, rows, cols) => promptArgs(make, rows, cols, false, "k", "interleaved, partial"),
    },
  ],
});

/**
 * K turned into kCache and V copied into vCache in one launch (ROCmForge's
 * fused_rope_kv_cache_append, and its batch form for prompts): ropeKAppend and
 * ops.cacheAppend together, v [tokens, heads, headDim] beside k, vCache of
 * kCache's shape, positions checked as ropeKAppend checks them (a token the
 * kernel skips is skipped in both caches). Returns `{ kCache, vCache }`, the
 * tensors given.
 */
export const ropeKvAppend = declareFused({
  name: "ropeKvAppend", computes: "kCache[seq, position] = rope(k, position); vCache[seq, position] = v, for each new token",
  chain: "t = ops.ropePositions(k, the position of every new token, cosSinCache); ops.cacheAppend(t, positions, kCache); " +
    "ops.cacheAppend(v, positions, vCache)",
  kernels: [ROPE_KV_APPEND_NEOX, ROPE_KV_APPEND_INTERLEAVED], mutates: ["kCache", "vCache"],
  gathers: [{ table: 3, index: 2, span: (args) => perSequence(args[0], args[2]) }], scatters: [{ into: 4, from: 0 }, { into: 5, from: 1 }],
  fused: (k: Tensor, v: Tensor, positions: Tensor, cosSinCache: Tensor, kCache: Tensor, vCache: Tensor,
          options?: RopeAppendOptions): { kCache: Tensor; vCache: Tensor } => {
    const a = checkRopeAppend("fl.fused.ropeKvAppend", k, v, positions, cosSinCache, kCache, vCache, options, true);
    const items = Math.max(turnItems(a.k, a.rotaryDim, a.neox), rowItems(a.v!));
    launchBuiltin("fused.ropeKvAppend", a.neox ? ROPE_KV_APPEND_NEOX : ROPE_KV_APPEND_INTERLEAVED, a.k, launch1D(a.k.device, items),
      ropeAppendBytesRead(a), a.k.bytes + a.v!.bytes, [a.kc.cache, a.vCache!, a.k, a.v!, a.positions, a.cosSin, ...ropeAppendSizes(a)]);
    return { kCache: a.kc.cache, vCache: a.vCache! };
  },
  unfused: (k: Tensor, v: Tensor, positions: Tensor, cosSinCache: Tensor, kCache: Tensor, vCache: Tensor,
            options?: RopeAppendOptions): { kCache: Tensor; vCache: Tensor } => {
    const a = checkRopeAppend("fl.unfused.ropeKvAppend", k, v, positions, cosSinCache, kCache, vCache, options, true);
    ropeThenAppend(a);
    cacheAppend.fn(a.v!, a.positions, a.vCache!);
    return { kCache, vCache };
  },
  examples: [
    { label: "decode", args: (make, rows, cols) => decodeArgs(make, rows, cols, "kv") },
    { label: "prompt", args: (make, rows, cols) => promptArgs(make, rows, cols, false, "kv") },
    {
      label: "batch of prompts, interleaved, partial rotary dim",
      args: (make, rows, cols) => promptArgs(make, rows, cols, true, "kv", "interleaved, partial"),
    },
  ],
});

export const KVCACHE_OPS = [cacheAppend] as const;
export const KVCACHE_FUSED = [ropeKAppend, ropeKvAppend] as const;
