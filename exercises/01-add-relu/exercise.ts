// Exercise 01: fused add + ReLU in f32; bonus: f16 with 16-byte loads.
import { blocksFor, cancelling, mixedScales, reluF32, trapsFirst } from "../../src/grading/data";
import { KernelCase, KernelExercise, KernelTest, PerformanceTest, Visibility } from "../../src/grading/exercise";

const THREADS = 256;

function f32Case(n: number, seed: number): KernelCase {
  const a = mixedScales(n, seed);
  const b = cancelling(a, seed + 1);
  trapsFirst(a, b);
  return {
    label: `f32, n = ${n}`,
    inputs: [{ name: "a", dtype: "f32", values: a }, { name: "b", dtype: "f32", values: b }],
    outputs: [{ name: "out", dtype: "f32", elements: n, tolerance: { rtol: 0, atol: 0 } }],
    launches: [{ kernel: "add_relu", grid: blocksFor(n, THREADS), block: THREADS, args: ["out", "a", "b", n] }],
    reference: ({ a: x, b: y }) => ({ out: x.map((v, i) => reluF32(v + y[i])) }),
    bytes: 12 * n,
  };
}

function f16Case(n: number, seed: number): KernelCase {
  // f16 holds up to 65504: scales to 1e3 only.
  const a = mixedScales(n, seed).map((v) => Math.max(-6e4, Math.min(6e4, v)));
  const b = cancelling(a, seed + 1).map((v) => Math.max(-6e4, Math.min(6e4, v)));
  trapsFirst(a, b);
  return {
    label: `f16, n = ${n}`,
    inputs: [{ name: "a", dtype: "f16", values: a }, { name: "b", dtype: "f16", values: b }],
    // The sum of two halves is exact in f32; rounding it to f16 is the only error: half an ulp.
    outputs: [{ name: "out", dtype: "f16", elements: n, tolerance: { rtol: 2 ** -11, atol: 2 ** -24 } }],
    launches: [{ kernel: "add_relu_f16x8", grid: blocksFor(Math.ceil(n / 8), THREADS), block: THREADS, args: ["out", "a", "b", n] }],
    reference: ({ a: x, b: y }) => ({ out: x.map((v, i) => Math.max(v + y[i], 0)) }),
    bytes: 6 * n,
  };
}

function test(name: string, points: number, visibility: Visibility, description: string, n: number, f16: boolean, hint: number): KernelTest {
  return {
    name, points, visibility, description, hint,
    make: (seed, small) => (f16 ? f16Case : f32Case)(small ? (f16 ? 11 : 7) : n, seed),
  };
}

function perf(name: string, points: number, n: number, f16: boolean): PerformanceTest {
  return {
    name, points, visibility: "visible", full: 0.8, zero: 0.4, hint: f16 ? 2 : 3,
    description: `bandwidth at n = 2^${Math.log2(n)} (${f16 ? "f16" : "f32"}) against the copy ceiling: full points from 80%`,
    make: (seed) => (f16 ? f16Case : f32Case)(n, seed),
  };
}

export const exercise: KernelExercise = {
  kind: "kernel",
  id: "01-add-relu",
  title: "Fused add + ReLU",
  kernels: ["add_relu", "add_relu_f16x8"],
  tests: [
    test("f32 small", 2, "visible", "n = 1000: not a multiple of the block", 1000, false, 0),
    test("f32 one element", 1, "visible", "n = 1: one thread of 256 has work", 1, false, 0),
    test("f32 sums near zero", 2, "visible", "a + b just above, at and below zero: ReLU of the sum, not of each input", 65537, false, 1),
    test("f32 large", 3, "hidden", "n = 2^20 + 3", (1 << 20) + 3, false, 1),
    test("f16 tail", 2, "visible", "n = 8005: 1000 whole vectors of 8 and a tail of 5", 8005, true, 2),
    test("f16 shorter than a vector", 1, "visible", "n = 3: no whole vector at all", 3, true, 2),
    test("f16 large", 2, "hidden", "n = 2^20 + 7", (1 << 20) + 7, true, 2),
  ],
  performance: [perf("f32 bandwidth", 3, 1 << 23, false), perf("f16 bandwidth (bonus)", 2, 1 << 24, true)],
  hints: [
    "One thread an element: i = blockIdx.x * blockDim.x + threadIdx.x. The grid rounds n up to whole blocks of 256, so some threads have no element.",
    "Check i < n before reading or writing. ReLU applies to the sum: max(a[i] + b[i], 0), not max(a[i], 0) + max(b[i], 0).",
    "f16: thread v owns elements 8v to 8v + 7 (16 bytes). Where they all lie below n, load a and b as one float4 each, convert each __half to float, add, clamp at 0, convert back and store one float4. Otherwise handle the elements from 8v up to n one by one.",
    "Bandwidth: one read of a and b and one write of out is all the kernel needs; keep each element's work in registers and let consecutive threads touch consecutive addresses.",
  ],
};
