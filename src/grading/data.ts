// Test data that does not let a wrong kernel pass by luck: scales that span
// orders of magnitude, exact zeros, and a partner array that cancels the first
// in places (sums straddling zero), instead of uniform values a shortcut survives.
import { normal, uniform } from "../random";

/** Normals at mixed scales (1e-3 to 1e3), with about 1 in 16 exactly zero. */
export function mixedScales(size: number, seed: number): Float32Array {
  const base = normal(size, seed);
  const pick = uniform(size, seed ^ 0x9e3779b9);
  for (let i = 0; i < size; i++) {
    const p = pick[i];
    base[i] = p < 1 / 16 ? 0 : base[i] * SCALES[Math.floor(p * 7)];
  }
  return base;
}

const SCALES = [1e-3, 1e-2, 1e-1, 1, 1e1, 1e2, 1e3];

/**
 * A partner for `a`: where a coin comes up, -a plus a small nudge of either
 * sign (a + b just above or below zero, or exactly zero), elsewhere fresh normals.
 */
export function cancelling(a: Float32Array, seed: number): Float32Array {
  const out = normal(a.length, seed);
  const pick = uniform(a.length, seed ^ 0x7f4a7c15);
  for (let i = 0; i < a.length; i++) {
    if (pick[i] < 0.25) out[i] = -a[i] + (pick[i] - 0.125) * 1e-2;
    else if (pick[i] < 0.3) out[i] = -a[i];
  }
  return out;
}

/**
 * Puts the traps first, so that even a one-element case has them: a positive
 * value whose partner is more negative (ReLU of each input is wrong there),
 * then a pair summing to exactly zero.
 */
export function trapsFirst(a: Float32Array, b: Float32Array): void {
  if (a.length > 0) {
    a[0] = 0.75;
    b[0] = -1.25;
  }
  if (a.length > 1) {
    a[1] = -3.5;
    b[1] = 3.5;
  }
}

/** Math.max(x, 0) as a kernel stores it: f32 rounding of the sum first. */
export function reluF32(x: number): number {
  const s = Math.fround(x);
  return s < 0 ? 0 : s;
}

/** Blocks of `threads` covering `items`. */
export function blocksFor(items: number, threads: number): number {
  return Math.max(1, Math.ceil(items / threads));
}

/** rows x cols values: each row its own offset (from -scale to scale) plus normals, so a row's mean matters. */
export function offsetRows(rows: number, cols: number, seed: number, scale: number): Float32Array {
  const x = normal(rows * cols, seed);
  const offsets = uniform(rows, seed ^ 0x2545f491);
  for (let r = 0; r < rows; r++) {
    const offset = (2 * offsets[r] - 1) * scale;
    for (let c = 0; c < cols; c++) x[r * cols + c] += offset;
  }
  return x;
}
