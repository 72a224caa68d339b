// Seeded random numbers made on the host by a counter-based generator: element i
// of a tensor depends only on (seed, i), so the same call gives the same numbers
// on every device, machine and tensor size.

// A 32-bit integer hash with good avalanche (lowbias32).
function hash32(x: number): number {
  x ^= x >>> 16;
  x = Math.imul(x, 0x21f0aaad);
  x ^= x >>> 15;
  x = Math.imul(x, 0x735a2d97);
  x ^= x >>> 15;
  return x >>> 0;
}

/** A 32-bit key from a seed (any safe integer). */
function keyOf(seed: number): number {
  const low = seed >>> 0;
  const high = Math.floor(seed / 4294967296) >>> 0;
  return hash32(low ^ hash32(high ^ 0x5bd1e995));
}

/** The 32 random bits for `counter` (below 2^32) under `key`: two hash rounds. */
function bitsAt(key: number, counter: number): number {
  return hash32(hash32(counter ^ key) + key);
}

/** `size` numbers uniform in [0, 1), each a multiple of 2^-24 (exact in f32). */
export function uniform(size: number, seed: number): Float32Array {
  const key = keyOf(seed);
  const out = new Float32Array(size);
  for (let i = 0; i < size; i++) out[i] = (bitsAt(key, i) >>> 8) * 2 ** -24;
  return out;
}

/** `size` standard normal numbers (Box-Muller over pairs of counters). */
export function normal(size: number, seed: number): Float32Array {
  const key = keyOf(seed);
  const out = new Float32Array(size);
  for (let pair = 0; 2 * pair < size; pair++) {
    const u1 = (bitsAt(key, 2 * pair) + 1) * 2 ** -32; // (0, 1]: log(u1) is finite
    const u2 = bitsAt(key, 2 * pair + 1) * 2 ** -32;
    const radius = Math.sqrt(-2 * Math.log(u1));
    const angle = 2 * Math.PI * u2;
    out[2 * pair] = radius * Math.cos(angle);
    if (2 * pair + 1 < size) out[2 * pair + 1] = radius * Math.sin(angle);
  }
  return out;
}

// Calls without a seed draw successive seeds from here, so that a script gives
// the same tensors on every run while two calls still differ.
let nextSeed = 0x5eed;

/** `seed` when given, else the next seed of the process-wide sequence. */
export function seedOrNext(seed: number | undefined): number {
  return seed ?? nextSeed++;
}
