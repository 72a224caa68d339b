// Float64 references for the row reductions and softmax, written from the
// formulas alone. Inputs are row-major [rows, cols] arrays already rounded to the
// dtype under test; outputs are exact to float64.

/** f over each row of `cols` values: one result a row. */
function perRow(x: ArrayLike<number>, cols: number, f: (row: number[]) => number): Float64Array {
  const rows = x.length / cols;
  return Float64Array.from({ length: rows }, (_, r) => f(Array.from({ length: cols }, (_, c) => x[r * cols + c])));
}

/** The max of each row; NaN anywhere in a row gives NaN (Math.max does). */
export function rowMaxReference(x: ArrayLike<number>, cols: number): Float64Array {
  return perRow(x, cols, (row) => row.reduce((m, v) => Math.max(m, v), -Infinity));
}

export function rowSumReference(x: ArrayLike<number>, cols: number): Float64Array {
  return perRow(x, cols, (row) => row.reduce((s, v) => s + v, 0));
}

export function rowMeanReference(x: ArrayLike<number>, cols: number): Float64Array {
  return perRow(x, cols, (row) => row.reduce((s, v) => s + v, 0) / cols);
}

/** out[r, c] = f(x[r, c], v[r]). */
function withRowValue(x: ArrayLike<number>, v: ArrayLike<number>, cols: number,
                      f: (a: number, b: number) => number): Float64Array {
  return Float64Array.from({ length: x.length }, (_, i) => f(x[i], v[Math.floor(i / cols)]));
}

/**
 * exp(x - max) / sum(exp(x - max)) per row. A row of -inf gives NaN (-inf - -inf),
 * a row with +inf or NaN gives NaN everywhere, as PyTorch's softmax.
 */
export function softmaxReference(x: ArrayLike<number>, cols: number): Float64Array {
  const out = new Float64Array(x.length);
  for (let start = 0; start < x.length; start += cols) {
    let max = -Infinity;
    for (let c = 0; c < cols; c++) max = Math.max(max, x[start + c]);
    let sum = 0;
    for (let c = 0; c < cols; c++) sum += Math.exp(x[start + c] - max);
    for (let c = 0; c < cols; c++) out[start + c] = Math.exp(x[start + c] - max) / sum;
  }
  return out;
}

/** Each op's reference by its public name (tensors replaced by their values). */
export const REFERENCES: Record<string, (args: any[], cols: number) => Float64Array | Record<string, Float64Array>> = {
  "ops.rowMax": ([x], cols) => rowMaxReference(x, cols),
  "ops.rowSum": ([x], cols) => rowSumReference(x, cols),
  "ops.rowMean": ([x], cols) => rowMeanReference(x, cols),
  "ops.subRows": ([x, v], cols) => withRowValue(x, v, cols, (a, b) => a - b),
  "ops.divRows": ([x, v], cols) => withRowValue(x, v, cols, (a, b) => a / b),
  "fused.softmax": ([x], cols) => softmaxReference(x, cols),
};
