// Exercise 04: relu / scale / bias from one template, every flag combination.
import { blocksFor, mixedScales } from "../../src/grading/data";
import { KernelCase, KernelExercise, KernelTest, Visibility } from "../../src/grading/exercise";
import { normal } from "../../src/random";

const THREADS = 256;
const KERNELS = { "00": "scale_only", "10": "relu_scale", "01": "scale_bias", "11": "relu_scale_bias" } as const;

function flagsCase(relu: boolean, bias: boolean, rows: number, cols: number, scale: number, seed: number): KernelCase {
  const n = rows * cols;
  const kernel = KERNELS[`${relu ? 1 : 0}${bias ? 1 : 0}`];
  return {
    label: `${kernel}, rows = ${rows}, cols = ${cols}, scale = ${scale}`,
    inputs: [{ name: "x", dtype: "f32", values: mixedScales(n, seed) }, { name: "bias", dtype: "f32", values: normal(cols, seed + 7) }],
    outputs: [{ name: "out", dtype: "f32", elements: n, tolerance: { rtol: 1e-6, atol: 1e-6 } }],
    launches: [{ kernel, grid: blocksFor(n, THREADS), block: THREADS, args: ["out", "x", "bias", scale, rows, cols] }],
    reference: ({ x, bias: b }) => ({
      out: x.map((v, i) => (relu ? Math.max(v, 0) : v) * scale + (bias ? b[i % cols] : 0)),
    }),
    bytes: 8 * n + 4 * cols,
  };
}

function test(relu: boolean, bias: boolean, visibility: Visibility, rows: number, cols: number, scale: number, hint: number): KernelTest {
  const kernel = KERNELS[`${relu ? 1 : 0}${bias ? 1 : 0}`];
  return {
    name: `${kernel} ${rows}x${cols}${visibility === "hidden" ? " (hidden)" : ""}`, points: visibility === "hidden" ? 1 : 2, visibility, hint,
    description: `FUSE_RELU = ${relu}, FUSE_BIAS = ${bias} on ${rows} x ${cols}, scale ${scale}`,
    make: (seed, small) => flagsCase(relu, bias, small ? 2 : rows, small ? 3 : cols, scale, seed),
  };
}

export const exercise: KernelExercise = {
  kind: "kernel",
  id: "04-relu-scale-bias",
  title: "relu / scale / bias with template flags",
  kernels: Object.values(KERNELS),
  tests: [
    test(false, false, "visible", 3, 333, 2.5, 0),
    test(true, false, "visible", 7, 129, -0.5, 1),
    test(false, true, "visible", 5, 257, 3, 2),
    test(true, true, "visible", 17, 1000, -1.25, 1),
    test(true, true, "hidden", 1, 100003, 0.75, 2),
    test(false, true, "hidden", 4099, 3, -2, 2),
  ],
  performance: [{
    name: "relu_scale_bias bandwidth", points: 2, visibility: "visible", full: 0.8, zero: 0.4, hint: 3,
    description: "relu_scale_bias on 4096 x 4096 f32 against the copy ceiling: full points from 80%",
    make: (seed) => flagsCase(true, true, 4096, 4096, 0.5, seed),
  }],
  hints: [
    "One thread an element i of the flattened rows x cols matrix; check i < rows * cols. Its column is i % cols.",
    "The order matters when scale is negative: ReLU first, then scale: max(x, 0) * scale, not max(x * scale, 0).",
    "The bias is a row vector: bias[i % cols], the same for every row (not bias[i / cols]).",
    "`if (FUSE_BIAS)` on a template parameter costs nothing at run time: the compiler removes the branch in each instantiation.",
  ],
};
