// Exercise 13: find the race. The given kernel sums each block's 256 elements
// with a tree in shared memory and is right most of the time on a GPU; fix it
// so that it is right in any order of its threads.
import { mixedScales } from "../../src/grading/data";
import { KernelCase, KernelExercise, KernelTest, Visibility } from "../../src/grading/exercise";

const THREADS = 256;

/**
 * Multiples of 1/256 no larger than 100: every partial sum of 256 of them is
 * a multiple of 1/256 under 2^24/256 in size, so exact in f32 in any order.
 * The check can then be exact: a tree that adds in another order passes, one
 * that loses an addition fails.
 */
function exactlySummable(values: Float32Array): Float32Array {
  return values.map((v) => Math.round(Math.max(-100, Math.min(100, v)) * 256) / 256);
}

function sumsCase(n: number, seed: number): KernelCase {
  const blocks = Math.ceil(n / THREADS);
  return {
    label: `n = ${n} (${blocks} blocks)`,
    inputs: [{ name: "x", dtype: "f32", values: exactlySummable(mixedScales(n, seed)) }],
    outputs: [{ name: "sums", dtype: "f32", elements: blocks, tolerance: { rtol: 0, atol: 0 } }],
    launches: [{ kernel: "block_sums", grid: blocks, block: THREADS, args: ["sums", "x", n] }],
    reference: ({ x }) => {
      const sums = new Float64Array(blocks);
      for (let i = 0; i < n; i++) sums[Math.floor(i / THREADS)] += x[i];
      return { sums };
    },
  };
}

function test(name: string, points: number, visibility: Visibility, n: number): KernelTest {
  return {
    name, points, visibility, hint: 0, device: { check: true },
    description: `${n} elements, threads in shuffled order between barriers (check mode)`,
    make: (seed, small) => sumsCase(small ? 300 : n, seed),
  };
}

export const exercise: KernelExercise = {
  kind: "kernel",
  id: "13-find-the-race",
  title: "Find the race",
  kernels: ["block_sums"],
  tests: [test("one block", 2, "visible", 256), test("a partial block", 2, "visible", 1000), test("many blocks", 3, "hidden", 100003)],
  performance: [],
  hints: [
    "Step s of the tree reads partial[t + s], which another thread wrote in step 2s. What guarantees that write has happened before the read?",
    "Every step needs a __syncthreads() after its additions, reached by all the block's threads: a barrier inside `if (t < s)` would leave the others waiting.",
  ],
};
