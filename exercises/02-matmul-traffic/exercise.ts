// Exercise 02: the memory traffic of MatMul + bias + GELU at M = N = K = 4096, in f16.
import { NumbersExercise } from "../../src/grading/exercise";

const SIZE = 4096;
const HALF = 2;
const MATRIX = SIZE * SIZE * HALF;  // one 4096 x 4096 f16 matrix: 33,554,432 bytes
const BIAS = SIZE * HALF;           // 8,192 bytes
const UNFUSED = 3 * MATRIX + (2 * MATRIX + BIAS) + 2 * MATRIX;
const FUSED = 3 * MATRIX + BIAS;
const FLOPS = 2 * SIZE ** 3;

export const exercise: NumbersExercise = {
  kind: "numbers",
  id: "02-matmul-traffic",
  title: "Traffic of MatMul + bias + GELU at 4096³",
  questions: [
    {
      key: "unfused_bytes", points: 2, visibility: "visible", rtol: 0.01, unit: "bytes", hint: 0, answer: UNFUSED,
      question: "Bytes the unfused chain moves: matmul, then bias add, then GELU, three launches",
      working: "matmul reads A and B and writes C: 3 x 33,554,432; bias add reads C and the bias, writes D: 2 x 33,554,432 + 8,192; GELU reads D, writes E: 2 x 33,554,432. In all 234,889,216 bytes.",
    },
    {
      key: "fused_bytes", points: 2, visibility: "visible", rtol: 0.01, unit: "bytes", hint: 1, answer: FUSED,
      question: "Bytes the fused kernel moves (bias and GELU applied in the matmul's epilogue)",
      working: "reads A, B and the bias, writes E: 3 x 33,554,432 + 8,192 = 100,671,488 bytes.",
    },
    {
      key: "saved_bytes", points: 1, visibility: "visible", rtol: 0.01, unit: "bytes", hint: 1, answer: UNFUSED - FUSED,
      question: "Bytes fusion saves",
      working: "C and D each written once and read once: 4 x 33,554,432 = 134,217,728 bytes.",
    },
    {
      key: "traffic_ratio", points: 1, visibility: "visible", rtol: 0.01, unit: "x", hint: 1, answer: UNFUSED / FUSED,
      question: "Unfused bytes over fused bytes",
      working: "234,889,216 / 100,671,488 = 2.333.",
    },
    {
      key: "fused_intensity", points: 2, visibility: "hidden", rtol: 0.01, unit: "FLOP/byte", hint: 2, answer: FLOPS / FUSED,
      question: "Arithmetic intensity of the fused kernel: the matmul's FLOPs over the fused bytes",
      working: "2 x 4096^3 = 137,438,953,472 FLOPs over 100,671,488 bytes = 1365.2 FLOP/byte: compute-bound on any GPU, which is why the epilogue is free.",
    },
    {
      key: "saved_us_at_3000", points: 2, visibility: "after_due_date", rtol: 0.01, unit: "µs", hint: 3, answer: ((UNFUSED - FUSED) / 3000e9) * 1e6,
      question: "Time the saved bytes take at a copy ceiling of 3000 GB/s (10^9 bytes a second), in microseconds",
      working: "134,217,728 bytes / 3000e9 bytes/s = 44.74 µs, plus two launches' overhead.",
    },
  ],
  hints: [
    "Count each kernel on its own: every tensor it reads and every tensor it writes, once each (assume perfect caching inside a kernel). A 4096 x 4096 f16 matrix is 4096 * 4096 * 2 bytes.",
    "Fused, the intermediates C = A B and D = C + bias never leave the chip: only A, B, the bias and the result E touch memory.",
    "A matmul of M x K by K x N does M * N * K multiply-adds: 2 * M * N * K FLOPs.",
    "Bytes over bandwidth: 134,217,728 bytes at 3000e9 bytes a second, then scale seconds to microseconds.",
  ],
};
