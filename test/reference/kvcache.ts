// Float64 references for the KV cache append, written from the definition: the
// new tokens x [tokens, heads, d] are tokens / seqs tokens of each of seqs
// sequences, one sequence after another; token t of sequence b goes to the
// cache [seqs, maxSeq, heads, d] (or [maxSeq, heads, d], one sequence) at slot
// positions[b] + t, and every other slot keeps what it held. K is first turned
// at that position as ropePositionsReference turns it. Inputs are row-major
// arrays already rounded to the dtype under test.
import { ropePositionsReference } from "./rope";

/** The cache after the append: `cache` with each new token's heads in its slot. */
export function appendReference(cache: ArrayLike<number>, cacheShape: number[], x: ArrayLike<number>, xShape: number[],
                                positions: ArrayLike<number>): Float64Array {
  const [tokens, heads, d] = xShape;
  const maxSeq = cacheShape[cacheShape.length - 3];
  const seqs = positions.length;
  const perSeq = tokens / seqs;
  const row = heads * d;
  const out = Float64Array.from(cache);
  for (let b = 0; b < seqs; b++) {
    for (let t = 0; t < perSeq; t++) {
      const token = b * perSeq + t;
      const slot = b * maxSeq + positions[b] + t;
      for (let k = 0; k < row; k++) out[slot * row + k] = x[token * row + k];
    }
  }
  return out;
}

/** The position of every new token: positions[b] + t for token t of sequence b. */
export function tokenPositions(positions: ArrayLike<number>, tokens: number): number[] {
  const perSeq = tokens / positions.length;
  return Array.from({ length: tokens }, (_, i) => positions[Math.floor(i / perSeq)] + (i % perSeq));
}

/** kCache after k is turned (cosSin [maxPositions, rotaryDim]) and appended. */
export function ropeAppendReference(kCache: ArrayLike<number>, cacheShape: number[], k: ArrayLike<number>, kShape: number[],
                                    positions: ArrayLike<number>, cosSin: ArrayLike<number>, rotaryDim: number,
                                    neox: boolean): Float64Array {
  const turned = ropePositionsReference(k, kShape, tokenPositions(positions, kShape[0]), cosSin, rotaryDim, neox);
  return appendReference(kCache, cacheShape, turned, kShape, positions);
}

/** Each op's reference by its public name (tensors replaced by their values). */
export const REFERENCES: Record<string, (args: any[], cols: number, shapes: (number[] | undefined)[]) => Float64Array | Record<string, Float64Array>> = {
  "ops.cacheAppend": ([x, positions, cache], _cols, [xShape, , cacheShape]) =>
    ({ cache: appendReference(cache, cacheShape!, x, xShape!, positions) }),
  "fused.ropeKAppend": ([k, positions, cosSin, kCache, options], _cols, [kShape, , cosSinShape, cacheShape]) =>
    ({ kCache: ropeAppendReference(kCache, cacheShape!, k, kShape!, positions, cosSin, cosSinShape![1], options?.neox ?? true) }),
  "fused.ropeKvAppend": ([k, v, positions, cosSin, kCache, vCache, options], _cols, [kShape, , , cosSinShape, cacheShape]) => ({
    kCache: ropeAppendReference(kCache, cacheShape!, k, kShape!, positions, cosSin, cosSinShape![1], options?.neox ?? true),
    vCache: appendReference(vCache, cacheShape!, v, kShape!, positions),
  }),
};
