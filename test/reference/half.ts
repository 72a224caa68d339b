// References for 16-bit float arithmetic: one rounding of an exact result to f16
// or bf16, as the GPU's f16 and bf16 instructions round.

interface Format {
  mantissaBits: number;
  minExponent: number;
  /** The smallest magnitude that rounds to Inf. */
  overflow: number;
}

const F16: Format = { mantissaBits: 10, minExponent: -14, overflow: 65520 };
const BF16: Format = { mantissaBits: 7, minExponent: -126, overflow: 2 ** 128 - 2 ** 119 };

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
// in a double (16-bit operands), the sum's error is recovered exactly (two-sum).
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

/** x * y + z rounded once to bf16. */
export function roundBf16Fma(x: number, y: number, z: number): number {
  return roundBf16(...exactFma(x, y, z));
}
