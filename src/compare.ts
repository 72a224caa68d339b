// Comparing results: allclose as NumPy defines it (|a - b| <= atol + rtol * |b|,
// b the reference), with a report of the worst elements by their indices.
import { inspect } from "util";
import { ArgumentError, FuselabError, checkOptionsObject, describe, shapeString } from "./errors";
import { MAX_DIMS, Tensor, TensorView, checkNotDisposed, elementCount, isBigIntArray, isNumberArray } from "./tensor";
import { inspectRich } from "./tslab";
import type { DType } from "./dtype";

/** Tolerances: `a` is close to `b` where |a - b| <= atol + rtol * |b|. */
export interface CloseOptions {
  /** Relative tolerance, 1e-5 when left out. */
  rtol?: number;
  /** Absolute tolerance, 1e-8 when left out. */
  atol?: number;
  /** NaN is close to NaN (false when left out: a NaN is never close, so a poisoned output shows). */
  equalNan?: boolean;
}

/**
 * What `compare()` may compare: tensors of any dtype and views of them, nested arrays of numbers
 * (or bigints) or typed arrays. Integers given as bigints (i64 and u64 tensors,
 * BigInt64Array) are compared exactly: their difference is taken before it is rounded.
 */
export type Comparable = Tensor<DType> | TensorView<DType> | ArrayLike<number> | ArrayLike<bigint> | readonly unknown[];

/** One element that is not close. */
export interface Mismatch {
  /** Multi-dimensional index, e.g. [2, 5]. */
  index: number[];
  actual: number | bigint;
  expected: number | bigint;
  absError: number;
  relError: number;
}

/** The outcome of `compare()`. */
export interface CompareReport {
  /** Every element is close. */
  close: boolean;
  size: number;
  shape: number[];
  rtol: number;
  atol: number;
  /** Elements that are not close. */
  mismatches: number;
  /** Largest |a - b| and |a - b| / |b| over the elements that are numbers on both sides. */
  maxAbsError: number;
  maxRelError: number;
  /** Up to `WORST_SHOWN` elements that are not close, the largest excess over the tolerance first. */
  worst: Mismatch[];
  /** The report as text. */
  toString(): string;
}

const WORST_SHOWN = 8;

// Every report compare() made, so that a notebook can tell one to display it.
const reports = new WeakSet<object>();

/** Whether `value` is a report from `compare()`. */
export function isCompareReport(value: unknown): value is CompareReport {
  return typeof value === "object" && value !== null && reports.has(value);
}

type Element = number | bigint;

function values(where: string, argument: string, value: unknown): { data: ArrayLike<Element>; shape: number[] } {
  if (Tensor.isTensor(value)) {
    checkNotDisposed(where, argument, value);
    return { data: value.toArray(), shape: [...value.shape] };
  }
  if (TensorView.isView(value)) {
    checkNotDisposed(where, argument, value.tensor);
    return { data: value.toArray(), shape: [value.size] };
  }
  if (isNumberArray(value) || isBigIntArray(value)) return { data: value, shape: [value.length] };
  if (Array.isArray(value)) {
    const shape: number[] = [];
    for (let level: unknown = value; Array.isArray(level); level = level[0]) {
      if (shape.length === MAX_DIMS) throw new ArgumentError(where, argument, `arrays nested at most ${MAX_DIMS} deep`, "deeper arrays");
      shape.push(level.length);
    }
    const flat = (value as unknown[]).flat(Infinity);
    if (flat.length !== elementCount(shape) || flat.some((v) => typeof v !== "number" && typeof v !== "bigint")) {
      throw new ArgumentError(where, argument, "numbers in evenly nested arrays", describe(value));
    }
    return { data: flat as Element[], shape };
  }
  throw new ArgumentError(where, argument, "a tensor, a view, an array of numbers or a typed array", describe(value));
}

function tolerance(where: string, o: Record<string, unknown>, key: "rtol" | "atol", fallback: number): number {
  const v = o[key];
  if (v === undefined) return fallback;
  if (typeof v !== "number" || !(v >= 0) || !Number.isFinite(v)) throw new ArgumentError(where, `options.${key}`, "a finite number >= 0", describe(v));
  return v;
}

// |x - y|: exact for two integers where either is a bigint (the difference is rounded, not the values).
function difference(x: Element, y: Element): number {
  if (typeof x === "number" && typeof y === "number") return x === y ? 0 : Math.abs(x - y);
  const whole = (v: Element) => typeof v === "bigint" || Number.isInteger(v);
  if (!whole(x) || !whole(y)) return Math.abs(Number(x) - Number(y));
  const d = BigInt(x) - BigInt(y);
  return Number(d < 0n ? -d : d);
}

function indexOf(flat: number, shape: readonly number[]): number[] {
  const index = new Array<number>(shape.length);
  for (let d = shape.length - 1; d >= 0; d--) {
    index[d] = flat % shape[d];
    flat = Math.floor(flat / shape[d]);
  }
  return index;
}

function measure(where: string, a: unknown, b: unknown, options: unknown): CompareReport {
  const o = checkOptionsObject(where, options, ["rtol", "atol", "equalNan"]);
  const rtol = tolerance(where, o, "rtol", 1e-5);
  const atol = tolerance(where, o, "atol", 1e-8);
  if (o.equalNan !== undefined && typeof o.equalNan !== "boolean") throw new ArgumentError(where, "options.equalNan", "a boolean", describe(o.equalNan));
  const equalNan = o.equalNan === true;
  const actual = values(where, "a", a);
  const expected = values(where, "b", b);
  if (Tensor.isTensor(a) && Tensor.isTensor(b)) {
    if (shapeString(a.shape) !== shapeString(b.shape)) {
      throw new ArgumentError(where, "b", `of shape ${shapeString(a.shape)} (the shape of a)`, shapeString(b.shape));
    }
    if (a.dtype !== b.dtype) {
      throw new ArgumentError(where, "b", `of dtype ${a.dtype} (the dtype of a; compare with b.toArray() across dtypes)`, b.dtype);
    }
  }
  if (actual.data.length !== expected.data.length) {
    throw new ArgumentError(where, "b", `${actual.data.length} elements (as many as a)`, `${expected.data.length} elements`);
  }
  // Indices follow the tensor's shape when one side is a flat array.
  const shape = Tensor.isTensor(a) || !Tensor.isTensor(b) ? actual.shape : expected.shape;
  let mismatches = 0;
  let maxAbsError = 0;
  let maxRelError = 0;
  const candidates: { flat: number; excess: number }[] = [];
  for (let i = 0; i < actual.data.length; i++) {
    const x = actual.data[i];
    const y = Number(expected.data[i]);
    const bothNan = Number.isNaN(x) && Number.isNaN(y);
    const absError = equalNan && bothNan ? 0 : difference(x, expected.data[i]); // equal infinities are close
    const relError = absError === 0 ? 0 : absError / Math.abs(y);
    if (!Number.isNaN(absError)) {
      maxAbsError = Math.max(maxAbsError, absError);
      if (!Number.isNaN(relError)) maxRelError = Math.max(maxRelError, relError);
    }
    // Past equality, a NaN or an infinity on either side is never close (the tolerance would be infinite too).
    const close = absError === 0 || (Number.isFinite(absError) && Number.isFinite(y) && absError <= atol + rtol * Math.abs(y));
    if (close) continue;
    mismatches++;
    const excess = Number.isNaN(absError) || !Number.isFinite(absError) ? Infinity : absError - (atol + rtol * Math.abs(y));
    candidates.push({ flat: i, excess });
    if (candidates.length > 4 * WORST_SHOWN) {
      candidates.sort((p, q) => q.excess - p.excess);
      candidates.length = WORST_SHOWN;
    }
  }
  candidates.sort((p, q) => q.excess - p.excess || p.flat - q.flat);
  const worst = candidates.slice(0, WORST_SHOWN).map(({ flat }) => {
    const x = actual.data[flat];
    const y = expected.data[flat];
    const absError = difference(x, y);
    return { index: indexOf(flat, shape), actual: x, expected: y, absError, relError: absError / Math.abs(Number(y)) };
  });
  const report: CompareReport = {
    close: mismatches === 0, size: actual.data.length, shape, rtol, atol, mismatches, maxAbsError, maxRelError, worst,
    toString: () => formatReport(report),
  };
  Object.defineProperty(report, inspect.custom, { value: () => inspectRich(report, report.toString) });
  reports.add(report);
  return report;
}

// Values with up to 9 significant digits (an f32 in full), errors with 3.
const value = (v: Element) => (typeof v === "bigint" ? String(v) : String(Number(v.toPrecision(9))));
const error = (v: number) => {
  if (!Number.isFinite(v) || v === 0) return String(v);
  return v >= 1e-3 && v < 1e4 ? v.toPrecision(3) : v.toExponential(2);
};

function formatReport(r: CompareReport): string {
  const errors = `max abs error ${error(r.maxAbsError)}, max rel error ${error(r.maxRelError)}`;
  const head = r.close
    ? `all ${r.size} elements are close (rtol ${r.rtol}, atol ${r.atol}); ${errors}`
    : `${r.mismatches} of ${r.size} elements differ (rtol ${r.rtol}, atol ${r.atol}); ${errors}`;
  const lines = r.worst.map((m) => `  at ${shapeString(m.index)}: got ${value(m.actual)}, expected ${value(m.expected)} ` +
    `(abs error ${error(m.absError)}, rel error ${error(m.relError)})`);
  const more = r.mismatches > r.worst.length ? [`  ... and ${r.mismatches - r.worst.length} more`] : [];
  return [head, ...lines, ...more].join("\n");
}

/** Whether every element of `a` is close to the one of `b` (the reference). NaN is never close. */
export function allclose(a: Comparable, b: Comparable, options?: CloseOptions): boolean {
  return measure("fl.allclose", a, b, options).close;
}

/** How `a` differs from `b` (the reference): max errors, mismatch count and the worst elements. */
export function compare(a: Comparable, b: Comparable, options?: CloseOptions): CompareReport {
  return measure("fl.compare", a, b, options);
}

/** Throws an Error holding the `compare()` report when `a` is not close to `b`. */
export function assertClose(a: Comparable, b: Comparable, options?: CloseOptions): void {
  const report = measure("fl.assertClose", a, b, options);
  if (!report.close) throw new FuselabError(`fl.assertClose: ${report.toString()}`);
}
