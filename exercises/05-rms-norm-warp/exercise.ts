// Exercise 05: RMSNorm with warp shuffles, right at warp 32 and at warp 64.
import { offsetRows } from "../../src/grading/data";
import { KernelCase, KernelExercise, KernelTest, TestDevice, Visibility } from "../../src/grading/exercise";
import { normal } from "../../src/random";

const THREADS = 256;
// Large enough that leaving it out, or adding it outside the root, shows.
const EPS = 0.25;

/** Rows with their own offsets, the second one all zeros (its output must be 0, not NaN). */
function rmsCase(rows: number, cols: number, seed: number): KernelCase {
  const x = offsetRows(rows, cols, seed, 3);
  if (rows > 1) x.fill(0, cols, 2 * cols);
  return {
    label: `rows = ${rows}, cols = ${cols}, eps = ${EPS}`,
    inputs: [{ name: "x", dtype: "f32", values: x }, { name: "w", dtype: "f32", values: normal(cols, seed + 3) }],
    outputs: [{ name: "out", dtype: "f32", elements: rows * cols, tolerance: { rtol: 2e-5, atol: 1e-6 } }],
    launches: [{ kernel: "rms_norm", grid: rows, block: THREADS, args: ["out", "x", "w", EPS, rows, cols] }],
    reference: ({ x: v, w }) => {
      const out = new Float64Array(rows * cols);
      for (let r = 0; r < rows; r++) {
        let squares = 0;
        for (let c = 0; c < cols; c++) squares += v[r * cols + c] ** 2;
        const scale = 1 / Math.sqrt(squares / cols + EPS);
        for (let c = 0; c < cols; c++) out[r * cols + c] = v[r * cols + c] * scale * w[c];
      }
      return { out };
    },
    bytes: 8 * rows * cols + 4 * cols,
  };
}

function test(name: string, points: number, visibility: Visibility, warpSize: 32 | 64, rows: number, cols: number, hint: number): KernelTest {
  const device: TestDevice = { warpSize };
  return {
    name: `${name}, warp ${warpSize}`, points, visibility, hint, device,
    description: `${rows} rows of ${cols} with ${warpSize}-lane warps (on a GPU: its own warp size)`,
    make: (seed, small) => rmsCase(small ? 2 : rows, small ? 6 : cols, seed),
  };
}

export const exercise: KernelExercise = {
  kind: "kernel",
  id: "05-rms-norm-warp",
  title: "RMSNorm with warp shuffles",
  kernels: ["rms_norm"],
  tests: [
    test("short rows", 1, "visible", 32, 3, 7, 0),
    test("rows of 1000", 2, "visible", 32, 9, 1000, 1),
    test("short rows", 1, "visible", 64, 3, 7, 2),
    test("rows of 1000", 2, "visible", 64, 9, 1000, 2),
    test("long rows", 1, "hidden", 32, 4, 4099, 1),
    test("long rows", 2, "hidden", 64, 4, 4099, 2),
  ],
  performance: [{
    name: "bandwidth", points: 2, visibility: "visible", full: 0.7, zero: 0.3, hint: 3,
    description: "8192 rows of 4096 against the copy ceiling: full points from 70%",
    make: (seed) => rmsCase(8192, 4096, seed),
  }],
  hints: [
    "One block a row: each thread sums the squares of elements t, t + 256, ...; out = x * w / sqrt(mean of squares + eps), the mean over cols.",
    "Within a warp, __shfl_xor(sum, offset) for offset = warpSize / 2, warpSize / 4, ..., 1 leaves every lane with the warp's total. Then lane 0 of each warp writes it to __shared__ memory, a __syncthreads(), and the block's total is the sum of blockDim.x / warpSize entries.",
    "Never write 32 where warpSize is meant: with 64-lane warps (AMD, and the emulator's warpSize 64) offsets must start at 32, lanes are threadIdx.x % 64, and a block of 256 has 4 warps, not 8.",
    "Read x twice (squares, then the output): the second pass mostly hits the cache. One barrier is all the block needs.",
  ],
};
