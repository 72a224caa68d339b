// Float64 references for the norm family, written from the formulas alone.
// Inputs are row-major [rows, cols] arrays already rounded to the dtype under
// test (what the kernel reads); outputs are exact to float64.

/** out = x / sqrt(mean(x^2) + eps) [* weight], per row. */
export function rmsNormReference(x: ArrayLike<number>, cols: number, weight: ArrayLike<number> | null,
                                 eps: number): Float64Array {
  const out = new Float64Array(x.length);
  for (let start = 0; start < x.length; start += cols) {
    let sumSquares = 0;
    for (let c = 0; c < cols; c++) sumSquares += x[start + c] * x[start + c];
    const invRms = 1 / Math.sqrt(sumSquares / cols + eps);
    for (let c = 0; c < cols; c++) out[start + c] = x[start + c] * invRms * (weight ? weight[c] : 1);
  }
  return out;
}

/** out = (x - mean) / sqrt(var + eps) [* gamma] [+ beta], per row; var is the biased variance. */
export function layerNormReference(x: ArrayLike<number>, cols: number, gamma: ArrayLike<number> | null,
                                   beta: ArrayLike<number> | null, eps: number): Float64Array {
  const out = new Float64Array(x.length);
  for (let start = 0; start < x.length; start += cols) {
    let sum = 0;
    for (let c = 0; c < cols; c++) sum += x[start + c];
    const mean = sum / cols;
    let sumSquaredDeviations = 0;
    for (let c = 0; c < cols; c++) sumSquaredDeviations += (x[start + c] - mean) ** 2;
    const invStd = 1 / Math.sqrt(sumSquaredDeviations / cols + eps);
    for (let c = 0; c < cols; c++) {
      out[start + c] = (x[start + c] - mean) * invStd * (gamma ? gamma[c] : 1) + (beta ? beta[c] : 0);
    }
  }
  return out;
}

/** residual' = x + residual; out = rmsNorm(residual') * weight. */
export function addRmsNormReference(x: ArrayLike<number>, residual: ArrayLike<number>, cols: number,
                                    weight: ArrayLike<number>, eps: number): { out: Float64Array; residual: Float64Array } {
  const sum = new Float64Array(x.length);
  for (let i = 0; i < x.length; i++) sum[i] = x[i] + residual[i];
  return { out: rmsNormReference(sum, cols, weight, eps), residual: sum };
}

// The ops' default epsilons, as documented.
const RMS_EPS = 1e-6;
const LAYER_EPS = 1e-5;

/** Each op's reference by its public name (tensors replaced by their values). */
export const REFERENCES: Record<string, (args: any[], cols: number) => Float64Array | Record<string, Float64Array>> = {
  "ops.rmsNorm": ([x, weight, options], cols) => rmsNormReference(x, cols, weight ?? null, options?.eps ?? RMS_EPS),
  "ops.layerNorm": ([x, gamma, beta, options], cols) =>
    layerNormReference(x, cols, gamma ?? null, beta ?? null, options?.eps ?? LAYER_EPS),
  "fused.addRmsNorm": ([x, residual, weight, options], cols) =>
    addRmsNormReference(x, residual, cols, weight, options?.eps ?? RMS_EPS),
};
