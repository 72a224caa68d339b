// References for Q4_0, GGML's 4-bit block format, written from its definition:
// a block is 18 bytes, an f16 scale d (little-endian) and 16 bytes of codes;
// value j (0-15) is the low nibble of code byte j, value j + 16 its high nibble,
// and each value is (q - 8) * d. Quantizing follows GGML's quantize_row_q4_0 in
// f32 arithmetic (each step rounded with Math.fround, as its C code rounds).
import { rmsNormReference } from "./norm";
import { roundF16 } from "./half";

export const Q4_0_BLOCK_VALUES = 32;
export const Q4_0_BLOCK_BYTES = 18;

/** The value of an f16 bit pattern. */
export function halfValue(bits: number): number {
  const sign = bits & 0x8000 ? -1 : 1;
  const exponent = (bits >> 10) & 0x1f;
  const fraction = bits & 0x3ff;
  if (exponent === 0x1f) return fraction === 0 ? sign * Infinity : NaN;
  if (exponent === 0) return sign * fraction * 2 ** -24;
  return sign * (1 + fraction / 1024) * 2 ** (exponent - 15);
}

/** The f16 bit pattern of a value f16 holds exactly (±0, ±Inf and NaN included). */
export function halfBits(value: number): number {
  if (Number.isNaN(value)) return 0x7e00;
  const sign = value < 0 || Object.is(value, -0) ? 0x8000 : 0;
  const magnitude = Math.abs(value);
  if (magnitude === Infinity) return sign | 0x7c00;
  if (magnitude < 2 ** -14) return sign | (magnitude / 2 ** -24);
  let exponent = -14;
  while (magnitude >= 2 ** (exponent + 1)) exponent++;
  const fraction = (magnitude / 2 ** exponent - 1) * 1024;
  if (!Number.isInteger(fraction) || exponent > 15) throw new Error(`halfBits: ${value} is not an f16 value`);
  return sign | ((exponent + 15) << 10) | fraction;
}

/** The values of Q4_0 blocks (bytes as numbers), in order. */
export function dequantizeQ4_0Reference(bytes: ArrayLike<number>): Float64Array {
  const blocks = bytes.length / Q4_0_BLOCK_BYTES;
  const out = new Float64Array(blocks * Q4_0_BLOCK_VALUES);
  for (let b = 0; b < blocks; b++) {
    const at = b * Q4_0_BLOCK_BYTES;
    const d = halfValue(bytes[at] | (bytes[at + 1] << 8));
    for (let j = 0; j < 16; j++) {
      const byte = bytes[at + 2 + j];
      out[b * Q4_0_BLOCK_VALUES + j] = ((byte & 0x0f) - 8) * d;
      out[b * Q4_0_BLOCK_VALUES + j + 16] = ((byte >> 4) - 8) * d;
    }
  }
  return out;
}

/** The 4-bit code of x with inverse scale id, in f32 as GGML rounds: x * id, then + 8.5, truncated, at most 15. */
function codeOf(x: number, id: number): number {
  const shifted = Math.fround(Math.fround(x * id) + 8.5);
  return Number.isNaN(shifted) ? 0 : Math.min(15, Math.max(0, Math.trunc(shifted)));
}

/**
 * GGML's Q4_0 blocks of x (its length a multiple of 32): per block, d = the value
 * of largest magnitude (the first one, sign kept) / -8, stored as f16; codes from
 * x * (1/d) with 1/d in f32 from the unrounded d. A block holding a NaN gets a
 * NaN scale (this library's rule; GGML leaves it undefined).
 */
export function quantizeQ4_0Reference(x: ArrayLike<number>): Uint8Array {
  const blocks = x.length / Q4_0_BLOCK_VALUES;
  const out = new Uint8Array(blocks * Q4_0_BLOCK_BYTES);
  for (let b = 0; b < blocks; b++) {
    const values = Array.from({ length: Q4_0_BLOCK_VALUES }, (_, j) => Math.fround(x[b * Q4_0_BLOCK_VALUES + j]));
    let amax = 0, max = 0;
    for (const v of values) {
      if (amax < Math.abs(v)) {
        amax = Math.abs(v);
        max = v;
      }
    }
    const d = values.some(Number.isNaN) ? NaN : Math.fround(max / -8);
    const id = d !== 0 ? Math.fround(1 / d) : 0;
    const scale = halfBits(roundF16(d));
    const at = b * Q4_0_BLOCK_BYTES;
    out[at] = scale & 0xff;
    out[at + 1] = scale >> 8;
    for (let j = 0; j < 16; j++) out[at + 2 + j] = codeOf(values[j], id) | (codeOf(values[j + 16], id) << 4);
  }
  return out;
}

// The default eps of rmsNorm, as documented.
const RMS_EPS = 1e-6;

/** Each op's reference by its public name (tensors replaced by their values: a u8 tensor by its bytes). */
export const REFERENCES: Record<string, (args: any[], cols: number) => Float64Array> = {
  "ops.dequantizeQ4_0": ([q]) => dequantizeQ4_0Reference(q),
  "fused.dequantizeQ4_0RmsNorm": ([q, weight, options], cols) =>
    rmsNormReference(dequantizeQ4_0Reference(q), cols, weight, options?.eps ?? RMS_EPS),
};
