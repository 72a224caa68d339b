// References for 16-bit float arithmetic: one rounding of an exact result to f16
// or bf16, as the GPU's f16 and bf16 instructions round; and f32's fused
// multiply-add, as the GPU's FFMA rounds.

interface Format {
  mantissaBits: number;
  minExponent: number;
  /** The smallest magnitude that rounds to Inf. */
  overflow: number;
}

const F16: Format = { mantissaBits: 10, minExponent: -14, overflow: 65520 };
const BF16: Format = { mantissaBits: 7, minExponent: -126, overflow: 2 ** 128 - 2 ** 119 };
const F32: Format = { mantissaBits: 23, minExponent: -126, overflow: 2 ** 128 - 2 ** 103 };

/**
 * The value of `format` nearest to `x` (a double), ties to even. `beyond`, when
 * nonzero, is what the exact value adds to x below a double's precision: it
 * decides a tie.
 */
function roundTo(format: Format, x: number, beyond: number): number {
  if (!Number.isFinite(x) || x === 0) return x;
  const magnitude = Math.abs(x);
  let e = Math.max(Math.floor(Math.log2(magnitude)), format.minExponent);
  // Math.log2 may be off by one near powers of two.
  if (e > format.minExponent && magnitude < 2 ** e) e--;
  else if (magnitude >= 2 ** (e + 1)) e++;
  const ulp = 2 ** (e - format.mantissaBits);
  const q = magnitude / ulp;
  let n = Math.floor(q);
  const rest = q - n;
  const away = beyond === 0 ? n % 2 === 1 : Math.sign(beyond) === Math.sign(x);
  if (rest > 0.5 || (rest === 0.5 && away)) n += 1;
  const rounded = n * ulp;
  return Math.sign(x) * (rounded >= format.overflow ? Infinity : rounded);
}

// x * y + z as a double and the part of the exact value it lost: x * y is exact
// in a double (16- and 32-bit operands), the sum's error is recovered exactly (two-sum).
function exactFma(x: number, y: number, z: number): [number, number] {
  const product = x * y;
  const sum = product + z;
  const bb = sum - product;
  return [sum, (product - (sum - bb)) + (z - bb)];
}

/** x (an exact result) rounded once to f16. */
export function roundF16(x: number, beyond = 0): number {
  return roundTo(F16, x, beyond);
}

/** x (an exact result) rounded once to bf16. */
export function roundBf16(x: number, beyond = 0): number {
  return roundTo(BF16, x, beyond);
}

/** x * y + z rounded once to f16. */
export function roundF16Fma(x: number, y: number, z: number): number {
  return roundF16(...exactFma(x, y, z));
}

/** x * y + z rounded once to f32 (f32 operands). */
export function roundF32Fma(x: number, y: number, z: number): number {
  return roundTo(F32, ...exactFma(x, y, z));
}

/** x * y + z rounded once to bf16. */
export function roundBf16Fma(x: number, y: number, z: number): number {
  return roundBf16(...exactFma(x, y, z));
}

/** c10's 8-bit float formats: the FNUZ ones (AMD's) have no infinity, no negative zero and one NaN, 0x80. */
export type Fp8Format = "e4m3fn" | "e5m2" | "e4m3fnuz" | "e5m2fnuz";
const FP8_FORMATS: Record<Fp8Format, { mantissaBits: number; bias: number; fnuz: boolean }> = {
  e4m3fn: { mantissaBits: 3, bias: 7, fnuz: false },
  e5m2: { mantissaBits: 2, bias: 15, fnuz: false },
  e4m3fnuz: { mantissaBits: 3, bias: 8, fnuz: true },
  e5m2fnuz: { mantissaBits: 2, bias: 16, fnuz: true },
};

/**
 * The code of c10's 8-bit float nearest to x, ties to even, as c10 converts a
 * float: E4M3FN (3 mantissa bits, bias 7; 0x7f NaN, also reached by rounding
 * past 448) or E5M2 (2 bits, bias 15; past 57344 rounds to infinity, 0x7c);
 * E4M3FNUZ and E5M2FNUZ (bias 8 and 16) give 0x80 for NaN, infinity and what
 * rounds past their largest (240, 57344), and +0 for -0.
 */
export function fp8Code(x: number, format: Fp8Format): number {
  const { mantissaBits, bias, fnuz } = FP8_FORMATS[format];
  const sign = x < 0 || Object.is(x, -0) ? 0x80 : 0;
  const nan = fnuz ? 0x80 : 0x7f | sign;
  if (Number.isNaN(x)) return nan;
  const magnitude = Math.abs(x);
  if (magnitude === Infinity) return format === "e5m2" ? 0x7c | sign : nan;
  const evenRound = (q: number) => {
    const n = Math.floor(q);
    return q - n > 0.5 || (q - n === 0.5 && n % 2 === 1) ? n + 1 : n;
  };
  const minNormal = 2 ** (1 - bias);
  let code: number;
  if (magnitude < minNormal) {
    code = evenRound(magnitude / 2 ** (1 - bias - mantissaBits));  // a subnormal's steps (reaching the smallest normal's code)
  } else {
    let e = Math.floor(Math.log2(magnitude));
    if (2 ** e > magnitude) e--;
    else if (2 ** (e + 1) <= magnitude) e++;
    let m = evenRound((magnitude / 2 ** e - 1) * 2 ** mantissaBits);
    if (m === 2 ** mantissaBits) {
      m = 0;
      e++;
    }
    code = ((e + bias) << mantissaBits) | m;
  }
  if (fnuz) return code > 0x7f ? 0x80 : code === 0 ? 0 : code | sign;
  const top = format === "e4m3fn" ? 0x7f : 0x7c;
  return (code >= top ? top : code) | sign;
}

/** The value of c10's 8-bit float `code`. */
export function fp8Value(code: number, format: Fp8Format): number {
  const { mantissaBits, bias, fnuz } = FP8_FORMATS[format];
  const sign = code & 0x80 ? -1 : 1;
  const exponent = (code & 0x7f) >> mantissaBits, mantissa = code & ((1 << mantissaBits) - 1);
  const top = (1 << (7 - mantissaBits)) - 1;
  if (fnuz && code === 0x80) return NaN;
  if (format === "e4m3fn" ? (code & 0x7f) === 0x7f : format === "e5m2" && exponent === top) return mantissa === 0 && format === "e5m2" ? sign * Infinity : NaN;
  if (exponent === 0) return sign * mantissa * 2 ** (1 - bias - mantissaBits);
  return sign * (1 + mantissa / 2 ** mantissaBits) * 2 ** (exponent - bias);
}
