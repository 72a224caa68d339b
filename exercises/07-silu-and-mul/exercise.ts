// Exercise 07: SwiGLU's act_and_mul in f16, 16-byte vectors.
import { mixedScales } from "../../src/grading/data";
import { KernelCase, KernelExercise, KernelTest, Visibility } from "../../src/grading/exercise";

const THREADS = 256;

function siluAndMulCase(rows: number, d: number, seed: number): KernelCase {
  // Gates from -60 to 60: SiLU saturates at both ends, where a careless exp overflows.
  const x = mixedScales(rows * 2 * d, seed);
  for (let i = 0; i < x.length; i++) x[i] = Math.max(-60, Math.min(60, x[i]));
  return {
    label: `rows = ${rows}, d = ${d}`,
    inputs: [{ name: "x", dtype: "f16", values: x }],
    // Computed in f32 from f16 inputs and rounded to f16 once: within an f16 ulp.
    outputs: [{ name: "out", dtype: "f16", elements: rows * d, tolerance: { rtol: 2 ** -10, atol: 1e-6 } }],
    launches: [{ kernel: "silu_and_mul_f16x8", grid: [Math.max(1, Math.ceil(d / 8 / THREADS)), rows], block: THREADS, args: ["out", "x", rows, d] }],
    reference: ({ x: v }) => {
      const out = new Float64Array(rows * d);
      for (let r = 0; r < rows; r++) {
        for (let j = 0; j < d; j++) {
          const gate = v[r * 2 * d + j];
          out[r * d + j] = (gate / (1 + Math.exp(-gate))) * v[r * 2 * d + d + j];
        }
      }
      return { out };
    },
    bytes: 6 * rows * d,
  };
}

function test(name: string, points: number, visibility: Visibility, rows: number, d: number, hint: number): KernelTest {
  return { name, points, visibility, hint, description: `${rows} rows, d = ${d}`, make: (seed, small) => siluAndMulCase(small ? 2 : rows, small ? 16 : d, seed) };
}

export const exercise: KernelExercise = {
  kind: "kernel",
  id: "07-silu-and-mul",
  title: "SwiGLU act_and_mul, vectorised",
  kernels: ["silu_and_mul_f16x8"],
  tests: [
    test("one vector", 1, "visible", 1, 8, 0),
    test("d = 1000", 2, "visible", 3, 1000, 1),
    test("d past one block", 2, "visible", 5, 2056, 2),
    test("many rows", 2, "hidden", 301, 64, 1),
  ],
  performance: [{
    name: "bandwidth", points: 3, visibility: "visible", full: 0.8, zero: 0.4, hint: 3,
    description: "8192 rows, d = 4096, f16, against the copy ceiling: full points from 80%",
    make: (seed) => siluAndMulCase(8192, 4096, seed),
  }],
  hints: [
    "Row r of x holds the gate x[r][0..d) and then the up projection x[r][d..2d): out[r][j] = silu(gate[j]) * up[j], silu(g) = g / (1 + exp(-g)).",
    "Thread (blockIdx.x * 256 + threadIdx.x) of row blockIdx.y owns outputs 8v to 8v + 7: check 8v < d (d is a multiple of 8, so a vector is whole or absent).",
    "Load the 8 gates and the 8 ups as one float4 each (16 bytes of __half), compute in f32, convert back and store one float4. Row starts are 16-byte aligned because d is a multiple of 8.",
    "Three 16-byte accesses a thread for 8 outputs: the fewer, wider transactions, the closer to the copy ceiling.",
  ],
};
