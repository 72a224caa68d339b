// Exercise 10: Q4_0 dequantize + RMSNorm in one kernel (GGML's 4-bit blocks).
import { f16BitsToF32, f32ToF16Bits } from "../../src/dtype";
import { KernelCase, KernelExercise, KernelTest, TestDevice, Visibility } from "../../src/grading/exercise";
import { normal, uniform } from "../../src/random";

const THREADS = 256;
// Large enough that a row of zeros (every scale 0) shows where eps goes.
const EPS = 1e-4;
const BLOCK_VALUES = 32;
const BLOCK_BYTES = 18;

/**
 * rows x cols values as Q4_0 blocks, made to catch the usual mistakes: every
 * code from 0 to 15 in both nibbles, scales of either sign and from 1e-3 to 10
 * (so reading one scale for several blocks, or a scale's magnitude, shows). The
 * first block is the same in every case: scale -0.25 and code bytes j | (15 - j)
 * << 4, so the low nibbles rise and the high ones fall. With three rows or more,
 * the second row is all zeros (every scale 0): its output must be 0, not NaN.
 */
function q4_0Blocks(rows: number, cols: number, seed: number): Uint8Array {
  const count = (rows * cols) / BLOCK_VALUES;
  const bytes = new Uint8Array(count * BLOCK_BYTES);
  const signs = uniform(count, seed), magnitudes = uniform(count, seed + 1), codes = uniform(count * 16, seed + 2);
  for (let b = 0; b < count; b++) {
    const scale = (signs[b] < 0.5 ? -1 : 1) * 10 ** (4 * magnitudes[b] - 3);
    const bits = f32ToF16Bits(scale);
    bytes[b * BLOCK_BYTES] = bits & 0xff;
    bytes[b * BLOCK_BYTES + 1] = bits >> 8;
    for (let j = 0; j < 16; j++) bytes[b * BLOCK_BYTES + 2 + j] = Math.min(255, Math.floor(codes[b * 16 + j] * 256));
  }
  const first = [0x00, 0xb4, ...Array.from({ length: 16 }, (_, j) => j | ((15 - j) << 4))];
  bytes.set(first, 0);
  if (rows >= 3) {
    const rowBytes = (cols / BLOCK_VALUES) * BLOCK_BYTES;
    for (let b = 0; b < cols / BLOCK_VALUES; b++) bytes.fill(0, rowBytes + b * BLOCK_BYTES, rowBytes + b * BLOCK_BYTES + 2);
  }
  return bytes;
}

/** The values of Q4_0 blocks, from the format: value j of a block is (low nibble of byte j, or high nibble of byte j - 16) - 8, times the f16 scale. */
function dequantize(bytes: ArrayLike<number>): Float64Array {
  const count = bytes.length / BLOCK_BYTES;
  const values = new Float64Array(count * BLOCK_VALUES);
  for (let b = 0; b < count; b++) {
    const d = f16BitsToF32(bytes[b * BLOCK_BYTES] | (bytes[b * BLOCK_BYTES + 1] << 8));
    for (let j = 0; j < 16; j++) {
      const byte = bytes[b * BLOCK_BYTES + 2 + j];
      values[b * BLOCK_VALUES + j] = ((byte & 0x0f) - 8) * d;
      values[b * BLOCK_VALUES + j + 16] = ((byte >> 4) - 8) * d;
    }
  }
  return values;
}

function q4_0NormCase(rows: number, cols: number, seed: number): KernelCase {
  return {
    label: `rows = ${rows}, cols = ${cols} (${cols / BLOCK_VALUES} blocks a row), eps = ${EPS}`,
    inputs: [
      { name: "q", dtype: "u8", values: q4_0Blocks(rows, cols, seed) },
      { name: "w", dtype: "f32", values: normal(cols, seed + 3) },
    ],
    outputs: [{ name: "out", dtype: "f32", elements: rows * cols, tolerance: { rtol: 2e-5, atol: 1e-6 } }],
    launches: [{ kernel: "q4_0_rms_norm", grid: rows, block: THREADS, args: ["out", "q", "w", EPS, rows, cols] }],
    reference: ({ q, w }) => {
      const x = dequantize(q);
      const out = new Float64Array(rows * cols);
      for (let r = 0; r < rows; r++) {
        let squares = 0;
        for (let c = 0; c < cols; c++) squares += x[r * cols + c] ** 2;
        const scale = 1 / Math.sqrt(squares / cols + EPS);
        for (let c = 0; c < cols; c++) out[r * cols + c] = x[r * cols + c] * scale * w[c];
      }
      return { out };
    },
    // The blocks (18 bytes a 32 values) and w read, the f32 output written: nothing else need move.
    bytes: (rows * cols / BLOCK_VALUES) * BLOCK_BYTES + 4 * cols + 4 * rows * cols,
  };
}

function test(name: string, points: number, visibility: Visibility, rows: number, cols: number, hint: number,
              device?: TestDevice): KernelTest {
  return {
    name, points, visibility, hint, ...(device ? { device } : {}),
    description: `${rows} rows of ${cols} values (${cols / BLOCK_VALUES} blocks of ${BLOCK_BYTES} bytes a row)` +
      (device?.warpSize ? ` with ${device.warpSize}-lane warps (on a GPU: its own warp size)` : ""),
    make: (seed, small) => q4_0NormCase(small ? 3 : rows, small ? 64 : cols, seed),
  };
}

export const exercise: KernelExercise = {
  kind: "kernel",
  id: "10-q4-0-rms-norm",
  title: "Q4_0 dequantize + RMSNorm",
  kernels: ["q4_0_rms_norm"],
  tests: [
    test("one block", 1, "visible", 1, 32, 0),
    test("rows of 3 blocks", 2, "visible", 5, 96, 1),
    test("rows of 4096", 2, "visible", 7, 4096, 2),
    test("rows of 4096, warp 64", 1, "visible", 3, 4096, 2, { warpSize: 64 }),
    test("many short rows", 1, "hidden", 1000, 64, 1),
    test("long rows", 1, "hidden", 2, 32 * 313, 2),
  ],
  performance: [{
    name: "bandwidth", points: 2, visibility: "visible", full: 0.7, zero: 0.3, hint: 3,
    description: "8192 rows of 4096 against the copy ceiling (the blocks, w and the f32 output: 4.6 bytes a value): full points from 70%",
    make: (seed) => q4_0NormCase(8192, 4096, seed),
  }],
  hints: [
    "A block is 18 bytes: bytes 0-1 the scale d, an f16 (read them as one __half and convert with __half2float), then 16 code bytes. Value j of a block (0 to 15) is the LOW nibble of code byte j, and value j + 16 is its HIGH nibble: not two neighbours a byte. Each value is (code - 8) * d.",
    "Value c of a row lies in block c / 32, at j = c % 32. A row is cols / 32 blocks of 18 bytes, so row r starts at byte r * (cols / 32) * 18 (not r * cols / 2, which forgets the scales). Every block has its own scale, and a scale may be negative: keep its sign.",
    "Then it is RMSNorm (exercise 05): each thread sums the squares of the values it decodes, the block adds the sums up (shuffles, shared memory, one barrier), and a second pass decodes again and writes value * w[c] / sqrt(mean of squares + eps), the mean over cols.",
    "What must move: the blocks (18 bytes a 32 values), w, and the f32 output, about 4.6 bytes a value. Write decoded values nowhere but their final place in out: decoding a block twice costs less than storing and reloading it.",
  ],
};
