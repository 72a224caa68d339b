// Exercise 06: fused add + RMSNorm, in place (the residual stream of a transformer layer).
import { offsetRows } from "../../src/grading/data";
import { KernelCase, KernelExercise, KernelTest, Visibility } from "../../src/grading/exercise";
import { normal } from "../../src/random";

const THREADS = 256;
const EPS = 1e-2;

function addNormCase(rows: number, cols: number, seed: number): KernelCase {
  const input = offsetRows(rows, cols, seed, 2);
  const residual = offsetRows(rows, cols, seed + 1, 2);
  return {
    label: `rows = ${rows}, cols = ${cols}, eps = ${EPS}`,
    inputs: [{ name: "w", dtype: "f32", values: normal(cols, seed + 2) }],
    outputs: [
      { name: "input", dtype: "f32", elements: rows * cols, tolerance: { rtol: 2e-5, atol: 1e-6 }, initial: input },
      { name: "residual", dtype: "f32", elements: rows * cols, tolerance: { rtol: 0, atol: 0 }, initial: residual },
    ],
    launches: [{ kernel: "fused_add_rms_norm", grid: rows, block: THREADS, args: ["input", "residual", "w", EPS, rows, cols] }],
    reference: ({ input: x, residual: r, w }) => {
      const sum = x.map((v, i) => Math.fround(v + r[i]));
      const out = new Float64Array(rows * cols);
      for (let row = 0; row < rows; row++) {
        let squares = 0;
        for (let c = 0; c < cols; c++) squares += sum[row * cols + c] ** 2;
        const scale = 1 / Math.sqrt(squares / cols + EPS);
        for (let c = 0; c < cols; c++) out[row * cols + c] = sum[row * cols + c] * scale * w[c];
      }
      return { input: out, residual: sum };
    },
    // input and residual read and written, w read.
    bytes: 16 * rows * cols + 4 * cols,
  };
}

function test(name: string, points: number, visibility: Visibility, rows: number, cols: number, hint: number): KernelTest {
  return { name, points, visibility, hint, description: `${rows} rows of ${cols}`, make: (seed, small) => addNormCase(small ? 2 : rows, small ? 5 : cols, seed) };
}

export const exercise: KernelExercise = {
  kind: "kernel",
  id: "06-add-rms-norm",
  title: "Fused add + RMSNorm, in place",
  kernels: ["fused_add_rms_norm"],
  tests: [
    test("short rows", 2, "visible", 3, 9, 0),
    test("rows of 1000", 2, "visible", 17, 1000, 1),
    test("long rows", 2, "visible", 2, 5003, 1),
    test("many rows", 2, "hidden", 513, 129, 2),
  ],
  performance: [{
    name: "bandwidth", points: 2, visibility: "visible", full: 0.7, zero: 0.3, hint: 3,
    description: "8192 rows of 4096 against the copy ceiling (16 bytes an element): full points from 70%",
    make: (seed) => addNormCase(8192, 4096, seed),
  }],
  hints: [
    "Two results, both in place: residual becomes input + residual (the stream carries the sum on), and input becomes RMSNorm of that sum, times w.",
    "First pass: each thread adds, stores the sum into residual and accumulates its square. Reduce the squares across the block (shuffles, then shared memory, then a barrier).",
    "Second pass: read the sums back from residual (your own writes: each thread reads only the elements it wrote) and write the normalised values into input.",
    "16 bytes an element is the least this can move: input and residual each read once and written once.",
  ],
};
