// What the tests of every op that turns by RoPE share (rope, kvcache): the
// tolerance of a turn and the awkward shapes it is tested on.
import type { Tolerance } from "./op-tests";

// Two products and a sum of values up to 4 in f32, rounded once: an absolute
// term for results that cancel.
export const ROPE_TOLERANCE: Tolerance = {
  f32: { rtol: 1e-5, atol: 1e-5 },
  f16: { rtol: 1e-3, atol: 1e-2 },
  bf16: { rtol: 8e-3, atol: 6e-2 },
};

// [rows, head dim]: the head dims of real models (64, 80, 128, 256: whole 16-byte
// vectors), and small ones whose halves are not a whole vector (2, 6, 10: the
// pair-at-a-time path), with 1 to 33 rows (time steps, tokens or sequences, as
// each family's examples read them).
export const ROPE_SHAPES: [number, number][] = [[1, 64], [7, 80], [5, 128], [3, 256], [33, 2], [4, 6], [9, 10], [2, 16]];
