// Exercise 14: find the out-of-bounds write. The given kernel scales every row
// and also writes one element it must not; fix it so that every guard band stays whole.
import { mixedScales } from "../../src/grading/data";
import { KernelCase, KernelExercise, KernelTest, Visibility } from "../../src/grading/exercise";

const THREADS = 128;
const SCALE = -1.5;

function scaleCase(rows: number, cols: number, seed: number): KernelCase {
  return {
    label: `rows = ${rows}, cols = ${cols}`,
    inputs: [{ name: "x", dtype: "f32", values: mixedScales(rows * cols, seed) }],
    outputs: [{ name: "out", dtype: "f32", elements: rows * cols, tolerance: { rtol: 0, atol: 0 } }],
    launches: [{ kernel: "scale_rows", grid: rows, block: THREADS, args: ["out", "x", SCALE, rows, cols] }],
    reference: ({ x }) => ({ out: x.map((v) => Math.fround(v * SCALE)) }),
  };
}

function test(name: string, points: number, visibility: Visibility, rows: number, cols: number): KernelTest {
  return {
    name, points, visibility, hint: 0, device: { check: true },
    description: `${rows} rows of ${cols}, every buffer between guard bands`,
    make: (seed, small) => scaleCase(small ? 2 : rows, small ? 5 : cols, seed),
  };
}

export const exercise: KernelExercise = {
  kind: "kernel",
  id: "14-find-the-oob",
  title: "Find the out-of-bounds write",
  kernels: ["scale_rows"],
  tests: [test("one row", 2, "visible", 1, 100), test("rows of 1000", 2, "visible", 7, 1000), test("many rows", 3, "hidden", 1001, 33)],
  performance: [],
  hints: [
    "Which element does the last thread of the last row write? Count the elements of a row from 0.",
    "A loop over a row's columns runs while c < cols: element cols is the next row's first, or past the end of the buffer.",
  ],
};
