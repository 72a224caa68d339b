// Element types of tensors, and exact conversions between f32 and the 16-bit
// float formats (round to nearest, ties to even; NaN, Inf and subnormals kept).

/**
 * A tensor's element type. Half types are stored in 16 bits and computed in f32
 * inside kernels; 64-bit integers travel as bigints (BigInt64Array, BigUint64Array),
 * so that values beyond 2^53 keep every bit.
 */
export type DType = "f32" | "f16" | "bf16" | "f64" | "i8" | "u8" | "i16" | "u16" | "i32" | "u32" | "i64" | "u64";

/** Every dtype, in the order messages list them. */
export const DTYPES: readonly DType[] = ["f32", "f16", "bf16", "f64", "i8", "u8", "i16", "u16", "i32", "u32", "i64", "u64"];

/** Bytes per element of each dtype. */
export const DTYPE_BYTES: Readonly<Record<DType, number>> = {
  f32: 4, f16: 2, bf16: 2, f64: 8, i8: 1, u8: 1, i16: 2, u16: 2, i32: 4, u32: 4, i64: 8, u64: 8,
};

/** Whether `value` names a dtype. */
export function isDType(value: unknown): value is DType {
  return typeof value === "string" && (DTYPES as readonly string[]).includes(value);
}

/** Whether the dtype holds floating-point values (f32, f16, bf16, f64). */
export function isFloatDType(dtype: DType): boolean {
  return dtype === "f32" || dtype === "f16" || dtype === "bf16" || dtype === "f64";
}

/** The dtypes whose values are numbers on the host: all but i64 and u64. */
export type NumberDType = Exclude<DType, "i64" | "u64">;

/** Whether the dtype's values are bigints on the host (i64, u64). */
export function isBigDType(dtype: DType): dtype is "i64" | "u64" {
  return dtype === "i64" || dtype === "u64";
}

/** The inclusive range of each integer dtype. */
export const INTEGER_RANGES: Readonly<Partial<Record<DType, readonly [bigint, bigint]>>> = {
  i8: [-(2n ** 7n), 2n ** 7n - 1n], u8: [0n, 2n ** 8n - 1n],
  i16: [-(2n ** 15n), 2n ** 15n - 1n], u16: [0n, 2n ** 16n - 1n],
  i32: [-(2n ** 31n), 2n ** 31n - 1n], u32: [0n, 2n ** 32n - 1n],
  i64: [-(2n ** 63n), 2n ** 63n - 1n], u64: [0n, 2n ** 64n - 1n],
};

/** The host array of each dtype's values: what `toArray()` returns. */
interface HostArrays {
  f32: Float32Array; f16: Float32Array; bf16: Float32Array; f64: Float64Array;
  i8: Int8Array; u8: Uint8Array; i16: Int16Array; u16: Uint16Array; i32: Int32Array; u32: Uint32Array;
  i64: BigInt64Array; u64: BigUint64Array;
}

/** What `toArray()` returns for each dtype: f32 values for the half types, the dtype's own typed array otherwise. */
export type HostArray<D extends DType = DType> = HostArrays[D];

/** A typed array of any dtype's storage. */
export type Storage = Float32Array | Float64Array | Int8Array | Uint8Array | Int16Array | Uint16Array | Int32Array | Uint32Array |
  BigInt64Array | BigUint64Array;

// The storage array of each dtype (16-bit floats as their bits).
const STORAGE: Readonly<Record<DType, new (n: number) => Storage>> = {
  f32: Float32Array, f16: Uint16Array, bf16: Uint16Array, f64: Float64Array, i8: Int8Array, u8: Uint8Array,
  i16: Int16Array, u16: Uint16Array, i32: Int32Array, u32: Uint32Array, i64: BigInt64Array, u64: BigUint64Array,
};

const f32Scratch = new Float32Array(1);
const u32Scratch = new Uint32Array(f32Scratch.buffer);

/** The f16 bit pattern nearest to `value` (rounded to f32 first, then to nearest even). */
export function f32ToF16Bits(value: number): number {
  f32Scratch[0] = value;
  const bits = u32Scratch[0];
  const sign = (bits >>> 16) & 0x8000;
  const exponent = (bits >>> 23) & 0xff;
  const mantissa = bits & 0x7fffff;
  if (exponent === 0xff) return sign | (mantissa !== 0 ? 0x7e00 : 0x7c00);
  const halfExponent = exponent - 112; // rebias 127 -> 15
  if (halfExponent >= 0x1f) return sign | 0x7c00;
  if (halfExponent <= 0) {
    // Subnormal in f16: the value is m * 2^-24 with m = full >> shift.
    const shift = 14 - halfExponent;
    if (shift > 24) return sign;
    const full = mantissa | 0x800000;
    let m = full >>> shift;
    const rest = full & ((1 << shift) - 1);
    const half = 1 << (shift - 1);
    if (rest > half || (rest === half && (m & 1) === 1)) m += 1;
    return sign | m;
  }
  let h = (halfExponent << 10) | (mantissa >>> 13);
  const rest = mantissa & 0x1fff;
  // A carry out of the mantissa bumps the exponent, up to Inf: the right answer.
  if (rest > 0x1000 || (rest === 0x1000 && (h & 1) === 1)) h += 1;
  return sign | h;
}

// Every f16 value by its bits: a lookup decodes a large tensor several times faster than arithmetic.
const F16_VALUES = (() => {
  const table = new Float32Array(0x10000);
  for (let bits = 0; bits < 0x10000; bits++) {
    const sign = bits & 0x8000 ? -1 : 1;
    const exponent = (bits >>> 10) & 0x1f;
    const mantissa = bits & 0x3ff;
    if (exponent === 0) table[bits] = sign * mantissa * 2 ** -24;
    else if (exponent === 0x1f) table[bits] = mantissa !== 0 ? NaN : sign * Infinity;
    else table[bits] = sign * (1 + mantissa / 1024) * 2 ** (exponent - 15);
  }
  return table;
})();

/** The value of an f16 bit pattern. */
export function f16BitsToF32(bits: number): number {
  return F16_VALUES[bits & 0xffff];
}

/** The bf16 bit pattern nearest to `value` (rounded to f32 first, then to nearest even). */
export function f32ToBf16Bits(value: number): number {
  f32Scratch[0] = value;
  const bits = u32Scratch[0];
  if ((bits & 0x7f800000) === 0x7f800000 && (bits & 0x7fffff) !== 0) return (bits >>> 16) | 0x40;
  return (bits + 0x7fff + ((bits >>> 16) & 1)) >>> 16;
}

/** How an 8-bit float is rounded from a number: its format, and what a value past its range becomes. */
export interface Fp8Conversion {
  format: "e4m3" | "e5m2";
  /** The largest finite value (CUDA's constructors, __NV_SATFINITE), else NaN for E4M3 and infinity for E5M2 (c10's). */
  saturate: boolean;
  /** Rounded to f32 first (c10's types convert from float). */
  viaFloat: boolean;
}

const f64Scratch = new DataView(new ArrayBuffer(8));

/** The code of the 8-bit float nearest to `value`, ties to even, as CUDA's `__nv_cvt_double_to_fp8` and c10 round. */
export function fp8Code(value: number, conversion: Fp8Conversion): number {
  const e4m3 = conversion.format === "e4m3";
  const [mantissaBits, bias] = e4m3 ? [3, 7] : [2, 15];
  if (Number.isNaN(value)) return 0x7f;
  const x = conversion.viaFloat ? Math.fround(value) : value;
  const sign = x < 0 || Object.is(x, -0) ? 0x80 : 0;
  const magnitude = Math.abs(x);
  // E4M3's largest is 448, with 480 NaN: a tie at 464 goes to 448. E5M2's is 57344: a tie at 61440 goes to infinity.
  if (e4m3 ? magnitude > 464 : magnitude >= 61440) return sign | (conversion.saturate ? (e4m3 ? 0x7e : 0x7b) : (e4m3 ? 0x7f : 0x7c));
  f64Scratch.setFloat64(0, magnitude);
  // The binade's exponent, no less than the smallest normal one (below it: subnormals, one quantum apart).
  const exponent = Math.max(((f64Scratch.getUint16(0) >> 4) & 0x7ff) - 1023, 1 - bias);
  const quantum = 2 ** (exponent - mantissaBits), leading = 2 ** mantissaBits;
  const q = magnitude / quantum, down = Math.floor(q);
  let steps = q - down > 0.5 || (q - down === 0.5 && down % 2 === 1) ? down + 1 : down;
  let field = exponent + bias;
  if (steps >= 2 * leading) steps /= 2, field++;  // rounded up into the next binade
  if (steps < leading) return sign | steps;  // zero or subnormal
  return sign | (field << mantissaBits) | (steps - leading);
}

/** The value of a bf16 bit pattern. */
export function bf16BitsToF32(bits: number): number {
  u32Scratch[0] = (bits & 0xffff) << 16;
  return f32Scratch[0];
}

/** Whether `values` is a typed array of the dtype's own values (no 16-bit float type has one: its storage holds bits). */
export function holdsValuesOf(dtype: DType, values: unknown): values is Storage {
  return dtype !== "f16" && dtype !== "bf16" && values instanceof STORAGE[dtype];
}

/**
 * `values` in the dtype's storage layout, ready to upload. Values are those the
 * dtype may hold (checked before): numbers, and for i64/u64 bigints or safe integers.
 */
export function encode(dtype: DType, values: ArrayLike<number | bigint>): Storage {
  if (dtype === "f16" || dtype === "bf16") {
    const convert = dtype === "f16" ? f32ToF16Bits : f32ToBf16Bits;
    const out = new Uint16Array(values.length);
    for (let i = 0; i < values.length; i++) out[i] = convert(values[i] as number);
    return out;
  }
  if (holdsValuesOf(dtype, values)) return values;
  const out = new STORAGE[dtype](values.length);
  if (isBigDType(dtype)) {
    const big = out as BigInt64Array | BigUint64Array;
    for (let i = 0; i < values.length; i++) big[i] = BigInt(values[i]);
  } else {
    const numbers = out as Exclude<Storage, BigInt64Array | BigUint64Array>;
    for (let i = 0; i < values.length; i++) numbers[i] = Number(values[i]);
  }
  return out;
}

/** Storage of `size` elements of `dtype`, as the host array type it downloads into. */
export function storageFor(dtype: DType, size: number): Storage {
  return new STORAGE[dtype](size);
}

/** Downloaded storage as values: f16/bf16 bits widened to f32, other types as they are. */
export function decode(dtype: DType, storage: Storage): HostArray {
  if (dtype !== "f16" && dtype !== "bf16") return storage as HostArray;
  const out = new Float32Array(storage.length);
  if (dtype === "f16") for (let i = 0; i < storage.length; i++) out[i] = F16_VALUES[storage[i] as number];
  else for (let i = 0; i < storage.length; i++) out[i] = bf16BitsToF32(storage[i] as number);
  return out;
}
