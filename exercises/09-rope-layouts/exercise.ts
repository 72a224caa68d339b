// Exercise 09: RoPE in place on the query and key heads, in both layouts: pairs
// rot_dim/2 apart (neox) and side by side (interleaved).
import { KernelCase, KernelExercise, KernelTest, Visibility } from "../../src/grading/exercise";
import { normal, uniform } from "../../src/random";

const THREADS = 64;
// The base of the rotary frequencies (Llama's, GPT-NeoX's).
const THETA = 10000;

type Layout = "neox" | "interleaved";

interface RopeShape {
  tokens: number;
  qHeads: number;
  kvHeads: number;
  headDim: number;
  rotDim: number;
}

/** Row p of the cache: cos(p θ_j) for j < rotDim/2, then sin(p θ_j), θ_j = THETA^(-2j / rotDim). */
function cosSinCache(maxPositions: number, rotDim: number): Float32Array {
  const half = rotDim / 2;
  const cache = new Float32Array(maxPositions * rotDim);
  for (let p = 0; p < maxPositions; p++) {
    for (let j = 0; j < half; j++) {
      const angle = p * THETA ** (-2 * j / rotDim);
      cache[p * rotDim + j] = Math.cos(angle);
      cache[p * rotDim + half + j] = Math.sin(angle);
    }
  }
  return cache;
}

/** Positions among 2 * tokens + 3 cache rows: the first token at the last row, some repeated, rarely 0. */
function positionsFor(tokens: number, maxPositions: number, seed: number): Int32Array {
  const pick = uniform(tokens, seed);
  const positions = Int32Array.from(pick, (p) => Math.floor(p * maxPositions));
  positions[0] = maxPositions - 1;
  if (tokens > 2) positions[2] = positions[1];
  return positions;
}

/** The heads of x [tokens, heads * headDim] turned by each token's row of the cache (the reference, in float64). */
function turned(layout: Layout, x: ArrayLike<number>, heads: number, s: RopeShape, positions: ArrayLike<number>,
                cache: ArrayLike<number>): Float64Array {
  const out = Float64Array.from(x);
  const half = s.rotDim / 2;
  for (let t = 0; t < s.tokens; t++) {
    const row = positions[t] * s.rotDim;
    for (let h = 0; h < heads; h++) {
      const head = (t * heads + h) * s.headDim;
      for (let j = 0; j < half; j++) {
        const lo = head + (layout === "neox" ? j : 2 * j), hi = head + (layout === "neox" ? j + half : 2 * j + 1);
        const c = cache[row + j], sn = cache[row + half + j];
        out[lo] = x[lo] * c - x[hi] * sn;
        out[hi] = x[lo] * sn + x[hi] * c;
      }
    }
  }
  return out;
}

function ropeCase(layout: Layout, s: RopeShape, seed: number): KernelCase {
  const maxPositions = 2 * s.tokens + 3;
  const positions = positionsFor(s.tokens, maxPositions, seed);
  const distinct = new Set(positions).size;
  const qSize = s.tokens * s.qHeads * s.headDim, kSize = s.tokens * s.kvHeads * s.headDim;
  // Turning is one multiply-add of two f32 products: a few f32 roundings of values of about 1.
  const tolerance = { rtol: 1e-5, atol: 1e-6 };
  return {
    label: `${layout}: tokens = ${s.tokens}, q heads = ${s.qHeads}, kv heads = ${s.kvHeads}, head_dim = ${s.headDim}, rot_dim = ${s.rotDim}`,
    inputs: [
      { name: "positions", dtype: "i32", values: positions },
      { name: "cos_sin_cache", dtype: "f32", values: cosSinCache(maxPositions, s.rotDim) },
    ],
    outputs: [
      { name: "q", dtype: "f32", elements: qSize, tolerance, initial: normal(qSize, seed + 1) },
      { name: "k", dtype: "f32", elements: kSize, tolerance, initial: normal(kSize, seed + 2) },
    ],
    launches: [{
      kernel: `rope_${layout}`, grid: s.tokens, block: THREADS,
      args: ["positions", "q", "k", "cos_sin_cache", s.tokens, s.qHeads, s.kvHeads, s.headDim, s.rotDim],
    }],
    reference: ({ positions: pos, cos_sin_cache: cache, q, k }) => ({
      q: turned(layout, q, s.qHeads, s, pos, cache),
      k: turned(layout, k, s.kvHeads, s, pos, cache),
    }),
    // q and k read and written in place, the positions read, one cache row a distinct position.
    bytes: 8 * (qSize + kSize) + 4 * s.tokens + 4 * s.rotDim * distinct,
  };
}

function test(name: string, points: number, visibility: Visibility, layout: Layout, s: RopeShape, hint: number): KernelTest {
  const partial = s.rotDim < s.headDim;
  return {
    name, points, visibility, hint,
    description: `${layout}, ${s.tokens} tokens, ${s.qHeads} query and ${s.kvHeads} key heads of ${s.headDim}` +
      (partial ? `, the first ${s.rotDim} turned` : ""),
    make: (seed, small) => ropeCase(layout, small
      ? { tokens: 2, qHeads: s.qHeads, kvHeads: s.kvHeads, headDim: 8, rotDim: partial ? 4 : 8 }
      : s, seed),
  };
}

const shape = (tokens: number, qHeads: number, kvHeads: number, headDim: number, rotDim = headDim): RopeShape =>
  ({ tokens, qHeads, kvHeads, headDim, rotDim });

export const exercise: KernelExercise = {
  kind: "kernel",
  id: "09-rope-layouts",
  title: "RoPE, neox and interleaved",
  kernels: ["rope_neox", "rope_interleaved"],
  tests: [
    test("neox, 4 heads", 1, "visible", "neox", shape(5, 4, 4, 64), 0),
    test("interleaved, 4 heads", 1, "visible", "interleaved", shape(5, 4, 4, 64), 1),
    test("neox, 7 q heads, 1 kv head, d = 80", 2, "visible", "neox", shape(9, 7, 1, 80), 2),
    test("interleaved, 5 q heads, 3 kv heads, d = 80", 2, "visible", "interleaved", shape(9, 5, 3, 80), 2),
    test("neox, 32 of 80 dims turned", 2, "visible", "neox", shape(6, 3, 1, 80, 32), 1),
    test("interleaved, 64 of 128 dims turned", 2, "visible", "interleaved", shape(6, 5, 1, 128, 64), 1),
    test("neox, many tokens", 2, "hidden", "neox", shape(257, 9, 3, 96), 2),
    test("interleaved, many tokens", 2, "hidden", "interleaved", shape(301, 3, 3, 128, 96), 2),
  ],
  performance: [{
    name: "bandwidth", points: 2, visibility: "visible", full: 0.7, zero: 0.3, hint: 3,
    description: "neox, 4096 tokens, 32 query and 8 key heads of 128, against the copy ceiling: full points from 70%",
    make: (seed) => ropeCase("neox", shape(4096, 32, 8, 128), seed),
  }],
  hints: [
    "Token t turns by its position p = positions[t], not by t: row p of cos_sin_cache holds cos(p θ_j) in its first rot_dim/2 columns and sin(p θ_j) in the rest. Pair j of a head turns by that angle: a' = a cos - b sin, b' = a sin + b cos (read both before writing either).",
    "Which two values make pair j: neox (GPT-NeoX, Llama) pairs x[j] with x[j + rot_dim/2]; interleaved (GPT-J) pairs x[2j] with x[2j + 1]. Either way pair j takes column j of the cos and the sin, and only the first rot_dim values of a head turn: the rest stay as they are.",
    "q and k have head counts of their own (grouped-query attention: 7 query heads may share 1 key head). Token t's query heads start at q + t * q_heads * head_dim and its key heads at k + t * kv_heads * head_dim. Loop over heads x pairs from threadIdx.x in steps of blockDim.x: 7 heads of 40 pairs are more than 64 threads, and no count need be even or a multiple of anything.",
    "Consecutive threads on consecutive pairs keep both loads of a pair coalesced; the cache row is shared by every head of a token, so it comes from the cache after the first.",
  ],
};
