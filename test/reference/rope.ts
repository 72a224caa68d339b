// Float64 references for RoPE, written from the formulas alone: a pair (a, b)
// turned by angle θ is (a cos θ - b sin θ, a sin θ + b cos θ), where cos θ and
// sin θ are read from the op's tables. Inputs are row-major arrays already
// rounded to the dtype under test.

/** Which values of a head of `d` pair up: pair i's two indices. */
type Pairing = (i: number, d: number) => [number, number];
const interleaved: Pairing = (i) => [2 * i, 2 * i + 1];
const halves: Pairing = (i, d) => [i, i + d / 2];

/** Every head (a run of d values) of x with its first `pairs` pairs turned; angle(head, i) gives [cos, sin]. */
function turnHeads(x: ArrayLike<number>, d: number, pairs: number, pairing: Pairing,
                   angle: (head: number, i: number) => [number, number]): Float64Array {
  const out = Float64Array.from(x);
  for (let head = 0; head < x.length / d; head++) {
    for (let i = 0; i < pairs; i++) {
      const [p, q] = pairing(i, 2 * pairs).map((k) => head * d + k);
      const [c, s] = angle(head, i);
      out[p] = x[p] * c - x[q] * s;
      out[q] = x[p] * s + x[q] * c;
    }
  }
  return out;
}

/** x [b, h, t, d] (or [b, t, h, d] when `timeDim` is 1), cos and sin [t, d/2]. */
export function ropeTablesReference(x: ArrayLike<number>, shape: number[], cos: ArrayLike<number>, sin: ArrayLike<number>,
                                    pairing: "interleaved" | "halves", timeDim: 1 | 2): Float64Array {
  const [, second, third, d] = shape;
  const half = d / 2;
  // Heads are numbered over [b, second, third]: the time step is second's or third's index.
  const step = (head: number) => (timeDim === 2 ? head % third : Math.floor(head / third) % second);
  return turnHeads(x, d, half, pairing === "interleaved" ? interleaved : halves,
    (head, i) => [cos[step(head) * half + i], sin[step(head) * half + i]]);
}

/**
 * x [tokens, heads, d]; each token's row of cache [maxPositions, rotaryDim] holds
 * the cosines then the sines of its rotaryDim / 2 pairs; the values past rotaryDim stay.
 */
export function ropePositionsReference(x: ArrayLike<number>, shape: number[], positions: ArrayLike<number>,
                                       cache: ArrayLike<number>, rotaryDim: number, neox: boolean): Float64Array {
  const [, heads, d] = shape;
  const rotHalf = rotaryDim / 2;
  return turnHeads(x, d, rotHalf, (i) => (neox ? [i, i + rotHalf] : [2 * i, 2 * i + 1]), (head, i) => {
    const row = positions[Math.floor(head / heads)] * rotaryDim;
    return [cache[row + i], cache[row + rotHalf + i]];
  });
}

/** Each op's reference by its public name (tensors replaced by their values). */
export const REFERENCES: Record<string, (args: any[], cols: number, shapes: (number[] | undefined)[]) => Float64Array | Record<string, Float64Array>> = {
  "ops.ropeI": ([x, cos, sin], _cols, [shape]) => ropeTablesReference(x, shape!, cos, sin, "interleaved", 2),
  "ops.rope": ([x, cos, sin], _cols, [shape]) => ropeTablesReference(x, shape!, cos, sin, "halves", 2),
  "ops.ropeThd": ([x, cos, sin], _cols, [shape]) => ropeTablesReference(x, shape!, cos, sin, "halves", 1),
  "ops.ropePositions": ([x, positions, cache, options], _cols, [shape, , cacheShape]) =>
    ropePositionsReference(x, shape!, positions, cache, cacheShape![1], options?.neox ?? true),
};
