// Element types of tensors, and exact conversions between f32 and the 16-bit
// float formats (round to nearest, ties to even; NaN, Inf and subnormals kept).

/** A tensor's element type. Half types are stored in 16 bits and computed in f32 inside kernels. */
export type DType = "f32" | "f16" | "bf16" | "i32" | "u8";

/** Every dtype, in the order messages list them. */
export const DTYPES: readonly DType[] = ["f32", "f16", "bf16", "i32", "u8"];

/** Bytes per element of each dtype. */
export const DTYPE_BYTES: Readonly<Record<DType, number>> = { f32: 4, f16: 2, bf16: 2, i32: 4, u8: 1 };

/** Whether `value` names a dtype. */
export function isDType(value: unknown): value is DType {
  return typeof value === "string" && (DTYPES as readonly string[]).includes(value);
}

/** Whether the dtype holds floating-point values. */
export function isFloatDType(dtype: DType): boolean {
  return dtype === "f32" || dtype === "f16" || dtype === "bf16";
}

/** What `toArray()` returns for each dtype: f32 for the float types, the integer array otherwise. */
export type HostArray<D extends DType = DType> = D extends "i32" ? Int32Array : D extends "u8" ? Uint8Array : Float32Array;

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

/** The value of an f16 bit pattern. */
export function f16BitsToF32(bits: number): number {
  const sign = bits & 0x8000 ? -1 : 1;
  const exponent = (bits >>> 10) & 0x1f;
  const mantissa = bits & 0x3ff;
  if (exponent === 0) return sign * mantissa * 2 ** -24;
  if (exponent === 0x1f) return mantissa !== 0 ? NaN : sign * Infinity;
  return sign * (1 + mantissa / 1024) * 2 ** (exponent - 15);
}

/** The bf16 bit pattern nearest to `value` (rounded to f32 first, then to nearest even). */
export function f32ToBf16Bits(value: number): number {
  f32Scratch[0] = value;
  const bits = u32Scratch[0];
  if ((bits & 0x7f800000) === 0x7f800000 && (bits & 0x7fffff) !== 0) return (bits >>> 16) | 0x40;
  return (bits + 0x7fff + ((bits >>> 16) & 1)) >>> 16;
}

/** The value of a bf16 bit pattern. */
export function bf16BitsToF32(bits: number): number {
  u32Scratch[0] = (bits & 0xffff) << 16;
  return f32Scratch[0];
}

/** `values` in the dtype's storage layout, ready to upload. */
export function encode(dtype: DType, values: ArrayLike<number>): Float32Array | Uint16Array | Int32Array | Uint8Array {
  switch (dtype) {
    case "f32":
      return values instanceof Float32Array ? values : Float32Array.from(values);
    case "i32":
      return values instanceof Int32Array ? values : Int32Array.from(values);
    case "u8":
      return values instanceof Uint8Array ? values : Uint8Array.from(values);
    case "f16":
    case "bf16": {
      const convert = dtype === "f16" ? f32ToF16Bits : f32ToBf16Bits;
      const out = new Uint16Array(values.length);
      for (let i = 0; i < values.length; i++) out[i] = convert(values[i]);
      return out;
    }
  }
}

/** Storage of `size` elements of `dtype`, as the host array type it downloads into. */
export function storageFor(dtype: DType, size: number): Float32Array | Uint16Array | Int32Array | Uint8Array {
  switch (dtype) {
    case "f32": return new Float32Array(size);
    case "f16": case "bf16": return new Uint16Array(size);
    case "i32": return new Int32Array(size);
    case "u8": return new Uint8Array(size);
  }
}

/** Downloaded storage as values: f16/bf16 bits widened to f32, other types as they are. */
export function decode(dtype: DType, storage: Float32Array | Uint16Array | Int32Array | Uint8Array): HostArray {
  if (dtype !== "f16" && dtype !== "bf16") return storage as HostArray;
  const convert = dtype === "f16" ? f16BitsToF32 : bf16BitsToF32;
  const out = new Float32Array(storage.length);
  for (let i = 0; i < storage.length; i++) out[i] = convert(storage[i]);
  return out;
}
