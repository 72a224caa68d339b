// Exercise 08: softmax of each row, max and sum found in one pass (online softmax).
import { offsetRows } from "../../src/grading/data";
import { KernelCase, KernelExercise, KernelTest, TestDevice, Visibility } from "../../src/grading/exercise";
import { normal, uniform } from "../../src/random";

const THREADS = 256;

/** How the rows of a case are made. */
type RowKind =
  | "normal"        // each row its own offset (up to ±3) plus normals
  | "large"         // offsets up to ±500 and a spread of 30: exp(x) overflows, or underflows to 0, without the max subtracted
  | "leading-inf"   // each row starts with a run of -inf (a padding mask), and every 7th value after it is -inf
  | "masked"        // row 1 all -inf (the answer is NaN, as PyTorch's), row 2 all but one -inf, the others with some -inf
  | "peak-at-end";  // each row's largest value, 3 above the rest, in its last element

function makeRows(kind: RowKind, rows: number, cols: number, seed: number): Float32Array {
  if (kind === "large") {
    const x = offsetRows(rows, cols, seed, 500);
    const noise = normal(rows * cols, seed + 7);
    // Row 0 always far below 0, whatever the seed: there exp(v) underflows to 0 for every value.
    for (let c = 0; c < cols; c++) x[c] = -500 + noise[(c * 7919) % noise.length];
    return x.map((v, i) => v + 29 * noise[i]);
  }
  const x = offsetRows(rows, cols, seed, 3);
  const pick = uniform(rows, seed + 11);
  for (let r = 0; r < rows; r++) {
    const row = x.subarray(r * cols, (r + 1) * cols);
    if (kind === "leading-inf") {
      // From a few values up to all but the last: whole rounds of the block's threads see only -inf first.
      const run = Math.min(cols - 1, Math.floor(pick[r] * cols) + 1);
      for (let c = 0; c < cols - 1; c++) if (c < run || (c - run) % 7 === 6) row[c] = -Infinity;
    } else if (kind === "masked") {
      if (r === 1) row.fill(-Infinity);
      else if (r === 2) row.fill(-Infinity, 0, cols - 1);
      else for (let c = 0; c < cols; c += 5) row[c] = -Infinity;
    } else if (kind === "peak-at-end") {
      row[cols - 1] = row.reduce((m, v) => Math.max(m, v), -Infinity) + 3;
    }
  }
  return x;
}

/** Softmax of each row in float64; a row of only -inf gives NaN, as PyTorch's softmax does. */
function softmaxRows(x: ArrayLike<number>, rows: number, cols: number): Float64Array {
  const out = new Float64Array(rows * cols);
  for (let r = 0; r < rows; r++) {
    let max = -Infinity;
    for (let c = 0; c < cols; c++) max = Math.max(max, x[r * cols + c]);
    if (max === -Infinity) {
      out.fill(NaN, r * cols, (r + 1) * cols);
      continue;
    }
    let sum = 0;
    for (let c = 0; c < cols; c++) sum += Math.exp(x[r * cols + c] - max);
    for (let c = 0; c < cols; c++) out[r * cols + c] = Math.exp(x[r * cols + c] - max) / sum;
  }
  return out;
}

function softmaxCase(kind: RowKind, rows: number, cols: number, seed: number): KernelCase {
  return {
    label: `${kind} rows: rows = ${rows}, cols = ${cols}`,
    inputs: [{ name: "x", dtype: "f32", values: makeRows(kind, rows, cols, seed) }],
    // Outputs are about 1/cols: a tiny absolute term; the relative one covers f32 sums of a few hundred terms a thread.
    outputs: [{ name: "out", dtype: "f32", elements: rows * cols, tolerance: { rtol: 3e-5, atol: 1e-9 } }],
    launches: [{ kernel: "softmax_online", grid: rows, block: THREADS, args: ["out", "x", rows, cols] }],
    reference: ({ x }) => ({ out: softmaxRows(x, rows, cols) }),
    bytes: 8 * rows * cols,
  };
}

function test(name: string, points: number, visibility: Visibility, kind: RowKind, rows: number, cols: number, hint: number,
              device?: TestDevice): KernelTest {
  return {
    name, points, visibility, hint, device,
    description: `${rows} ${kind} rows of ${cols}${device?.warpSize ? `, ${device.warpSize}-lane warps (on a GPU: its own)` : ""}`,
    make: (seed, small) => softmaxCase(kind, small ? (kind === "masked" ? 3 : 2) : rows, small ? 6 : cols, seed),
  };
}

export const exercise: KernelExercise = {
  kind: "kernel",
  id: "08-online-softmax",
  title: "Online softmax",
  kernels: ["softmax_online"],
  tests: [
    test("short rows", 1, "visible", "normal", 3, 7, 1),
    test("rows of 1000", 2, "visible", "normal", 9, 1000, 0),
    test("large values", 2, "visible", "large", 5, 1000, 0),
    test("rows starting with -inf", 2, "visible", "leading-inf", 6, 1000, 2),
    test("a fully masked row", 1, "visible", "masked", 4, 300, 2),
    test("rows of 65536", 2, "visible", "peak-at-end", 2, 65536, 3),
    test("many rows", 2, "hidden", "leading-inf", 1031, 257, 2, { warpSize: 64 }),
    test("a long row", 2, "hidden", "peak-at-end", 1, 65537, 3, { warpSize: 64 }),
  ],
  performance: [{
    name: "bandwidth", points: 2, visibility: "visible", full: 0.7, zero: 0.3, hint: 4,
    description: "8192 rows of 4096 against the copy ceiling (8 bytes an element): full points from 70%",
    make: (seed) => softmaxCase("normal", 8192, 4096, seed),
  }],
  hints: [
    "Softmax is exp(x - m) / sum(exp(x - m)) with m the row's max: subtracting m keeps every exp at most 1, where exp(x) alone overflows past x = 88.7. Online, a thread keeps (m, s): the largest value it has seen and the sum of exp(v - m) over what it has seen. A new value v larger than m rescales the sum: s = s * exp(m - v) + 1, m = v; else s += exp(v - m).",
    "Two pairs merge the same way: M = max(m1, m2), S = s1 * exp(m1 - M) + s2 * exp(m2 - M). Threads with no element hold (-inf, 0), and so do threads that have seen only -inf: merging two of them must give (-inf, 0), not NaN.",
    "-inf - -inf is NaN. Whenever m is still -inf, exp(v - m) and exp(m - M) are NaN, not 0 or 1: guard them, or a row that starts with -inf (a padding mask) turns to NaN. A row of only -inf is NaN, as PyTorch gives it: its (m, s) is (-inf, 0), and exp(-inf - -inf) / 0 is NaN without any special case.",
    "Each thread loops over c = threadIdx.x, threadIdx.x + blockDim.x, ... up to cols, however long the row: 65536 values are 256 a thread. Merge the threads' pairs across each warp with __shfl_xor (offsets from warpSize / 2), then the warps' through __shared__ memory and a barrier.",
    "One pass for (m, s), then one for the output: the second read of a row mostly hits the cache, so the kernel moves 8 bytes an element.",
  ],
};
