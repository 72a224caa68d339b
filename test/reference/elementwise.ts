// Plain float64 references for the elementwise ops, from their formulas. Inputs
// are rounded to the storage dtype first (roundTo), as the kernels see them.

import type { FloatDType } from "../../src/ops/declare";

const f32Scratch = new Float32Array(1);
const u32View = new Uint32Array(f32Scratch.buffer);

/** x rounded to the nearest f32. */
function roundF32(x: number): number {
  return Math.fround(x);
}

/** x rounded to the nearest bf16 (ties to even): the top 16 bits of the f32. */
function roundBf16(x: number): number {
  if (Number.isNaN(x)) return NaN;
  f32Scratch[0] = x;
  const bits = u32View[0];
  u32View[0] = ((bits + 0x7fff + ((bits >>> 16) & 1)) >>> 0) & 0xffff0000;
  return f32Scratch[0];
}

/** x rounded to the nearest f16 (ties to even), with subnormals, overflow to ±Infinity. */
function roundF16(x: number): number {
  if (!Number.isFinite(x) || x === 0) return x;
  const a = Math.abs(x);
  if (a >= 65520) return Math.sign(x) * Infinity;  // halfway between 65504 and 2^16 rounds up
  // Spacing of f16 values around a: 2^(e - 10) for normals, 2^-24 for subnormals.
  let exponent = Math.floor(Math.log2(a));
  if (2 ** exponent > a) exponent -= 1;  // log2 rounded up just below a power of two
  exponent = Math.max(exponent, -14);
  const ulp = 2 ** (exponent - 10);
  const q = a / ulp;
  let n = Math.floor(q);
  const rest = q - n;
  if (rest > 0.5 || (rest === 0.5 && n % 2 === 1)) n += 1;
  return Math.sign(x) * n * ulp;
}

/** `values` rounded to what `dtype` stores. */
export function roundTo(dtype: FloatDType, values: ArrayLike<number>): Float64Array {
  const round = dtype === "f32" ? roundF32 : dtype === "f16" ? roundF16 : roundBf16;
  return Float64Array.from(values, round);
}

/**
 * erf(x) = 2/sqrt(pi) e^(-x^2) sum_n 2^n x^(2n+1) / (1·3·…·(2n+1)): a series of
 * positive terms, so no cancellation at any x.
 */
export function erf(x: number): number {
  const a = Math.abs(x);
  if (a >= 6) return Math.sign(x);  // 1 - erf(6) < 3e-17
  let term = a, sum = a;
  for (let n = 1; term > 1e-17 * sum; n++) {
    term *= (2 * a * a) / (2 * n + 1);
    sum += term;
  }
  return Math.sign(x) * (2 / Math.sqrt(Math.PI)) * Math.exp(-a * a) * sum;
}

const map1 = (x: Float64Array, f: (v: number) => number) => x.map(f);
const map2 = (a: Float64Array, b: Float64Array, f: (u: number, v: number) => number) => a.map((u, i) => f(u, b[i]));
// f(x[r, c], bias[c]) over rows of bias.length.
const mapBias = (x: Float64Array, bias: Float64Array, f: (v: number, b: number) => number) =>
  x.map((v, i) => f(v, bias[i % bias.length]));

export const relu = (x: Float64Array) => map1(x, (v) => Math.max(v, 0));
export const geluErf = (v: number) => 0.5 * v * (1 + erf(v / Math.SQRT2));
export const geluTanh = (v: number) => 0.5 * v * (1 + Math.tanh(Math.sqrt(2 / Math.PI) * (v + 0.044715 * v ** 3)));
export const geluOf = (approximate: "none" | "tanh") => (approximate === "tanh" ? geluTanh : geluErf);
export const siluOf = (v: number) => v / (1 + Math.exp(-v));

export const add = (a: Float64Array, b: Float64Array) => map2(a, b, (u, v) => u + v);
export const mul = (a: Float64Array, b: Float64Array) => map2(a, b, (u, v) => u * v);
export const scale = (x: Float64Array, s: number) => map1(x, (v) => v * s);
export const biasAdd = (x: Float64Array, bias: Float64Array) => mapBias(x, bias, (v, b) => v + b);
export const gelu = (x: Float64Array, approximate: "none" | "tanh") => map1(x, geluOf(approximate));
export const silu = (x: Float64Array) => map1(x, siluOf);

export const addRelu = (a: Float64Array, b: Float64Array) => map2(a, b, (u, v) => Math.max(u + v, 0));
export const addReluScale = (a: Float64Array, b: Float64Array, s: number) => map2(a, b, (u, v) => Math.max(u + v, 0) * s);
export const reluScaleBias = (x: Float64Array, s: number, bias?: Float64Array) =>
  bias ? mapBias(x, bias, (v, b) => Math.max(v, 0) * s + b) : map1(x, (v) => Math.max(v, 0) * s);
export const scaleBias = (x: Float64Array, s: number, bias: Float64Array) => mapBias(x, bias, (v, b) => v * s + b);
export const biasGelu = (x: Float64Array, bias: Float64Array, approximate: "none" | "tanh") =>
  mapBias(x, bias, (v, b) => geluOf(approximate)(v + b));

/** x is [rows, 2, d]: out[r, c] = act(x[r, 0, c]) * x[r, 1, c]. */
export function actAndMul(x: Float64Array, d: number, act: (v: number) => number): Float64Array {
  const rows = x.length / (2 * d);
  const out = new Float64Array(rows * d);
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < d; c++) out[r * d + c] = act(x[2 * r * d + c]) * x[(2 * r + 1) * d + c];
  }
  return out;
}

type GeluForm = { approximate?: "none" | "tanh" } | undefined;
const form = (options: GeluForm) => options?.approximate ?? "none";

/**
 * Each op's reference by its public name: the op's arguments with every tensor
 * replaced by its values, and the length of the last dim.
 */
export const REFERENCES: Record<string, (args: any[], cols: number) => Float64Array | Record<string, Float64Array>> = {
  "ops.add": ([a, b]) => add(a, b),
  "ops.mul": ([a, b]) => mul(a, b),
  "ops.scale": ([x, s]) => scale(x, s),
  "ops.biasAdd": ([x, bias]) => biasAdd(x, bias),
  "ops.relu": ([x]) => relu(x),
  "ops.gelu": ([x, options]) => gelu(x, form(options)),
  "ops.silu": ([x]) => silu(x),
  "ops.exp": ([x]) => Float64Array.from(x as ArrayLike<number>, Math.exp),
  "fused.addRelu": ([a, b]) => addRelu(a, b),
  "fused.addReluScale": ([a, b, s]) => addReluScale(a, b, s),
  "fused.reluScaleBias": ([x, s, bias]) => reluScaleBias(x, s, bias ?? undefined),
  "fused.scaleBias": ([x, s, bias]) => scaleBias(x, s, bias),
  "fused.biasGelu": ([x, bias, options]) => biasGelu(x, bias, form(options)),
  "fused.siluAndMul": ([x], d) => actAndMul(x, d, siluOf),
  "fused.geluAndMul": ([x, options], d) => actAndMul(x, d, geluOf(form(options))),
};
