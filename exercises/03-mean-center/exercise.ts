// Exercise 03: fused mean-centering, a reduction and an elementwise step in one launch.
import { offsetRows } from "../../src/grading/data";
import { KernelCase, KernelExercise, KernelTest, Visibility } from "../../src/grading/exercise";

const THREADS = 256;

function centerCase(rows: number, cols: number, seed: number): KernelCase {
  return {
    label: `rows = ${rows}, cols = ${cols}`,
    inputs: [{ name: "x", dtype: "f32", values: offsetRows(rows, cols, seed, 50) }],
    // An f32 sum of a row of values near 50 is good to a few parts in 10^7 of the sum.
    outputs: [{ name: "out", dtype: "f32", elements: rows * cols, tolerance: { rtol: 1e-5, atol: 2e-4 } }],
    launches: [{ kernel: "center_rows", grid: rows, block: THREADS, args: ["out", "x", rows, cols] }],
    reference: ({ x }) => {
      const out = new Float64Array(rows * cols);
      for (let r = 0; r < rows; r++) {
        let sum = 0;
        for (let c = 0; c < cols; c++) sum += x[r * cols + c];
        const mean = sum / cols;
        for (let c = 0; c < cols; c++) out[r * cols + c] = x[r * cols + c] - mean;
      }
      return { out };
    },
    bytes: 8 * rows * cols,
  };
}

function test(name: string, points: number, visibility: Visibility, rows: number, cols: number, hint: number, description: string): KernelTest {
  return { name, points, visibility, hint, description, make: (seed, small) => centerCase(small ? 2 : rows, small ? 5 : cols, seed) };
}

export const exercise: KernelExercise = {
  kind: "kernel",
  id: "03-mean-center",
  title: "Fused mean-centering",
  kernels: ["center_rows"],
  tests: [
    test("one short row", 1, "visible", 1, 7, 0, "cols = 7: most of the block's threads have no element"),
    test("rows of 1000", 2, "visible", 33, 1000, 1, "33 rows of 1000: not a multiple of the block"),
    test("one column", 1, "visible", 5, 1, 0, "cols = 1: the mean is the element"),
    test("long rows", 2, "visible", 4, 4097, 1, "cols = 4097: each thread sums many elements"),
    test("many rows", 2, "hidden", 1031, 257, 2, "1031 rows of 257"),
  ],
  performance: [{
    name: "bandwidth", points: 2, visibility: "visible", full: 0.7, zero: 0.3, hint: 3,
    description: "8192 rows of 4096 f32 against the copy ceiling: full points from 70%",
    make: (seed) => centerCase(8192, 4096, seed),
  }],
  hints: [
    "One block a row (blockIdx.x), 256 threads: thread t sums elements t, t + 256, t + 512, ... of its row. Threads past the row's end add nothing, but still take part in the reduction.",
    "Combine the 256 partial sums in __shared__ memory: a tree, halving the active threads each step, with __syncthreads() after every step (and before the first). The mean is the total over cols, not over blockDim.x.",
    "After the mean is known to every thread (read it from shared memory after a barrier), each thread writes x - mean for the same elements it summed: the row is read twice, but it is still one launch.",
    "Consecutive threads on consecutive elements (t, t + 256, ...) keep the loads coalesced; the second pass over a row mostly hits the cache.",
  ],
};
