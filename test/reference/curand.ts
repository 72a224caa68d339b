// References for cuRAND's device generators, written from their published
// definitions: XORWOW (Marsaglia, 2003) with cuRAND's seeding and its
// subsequences of 2^67 draws, and Philox4x32-10 (Salmon et al., 2011).

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

// The float next to x (> 0) away from zero, or toward it.
function nextFloat(x: number, up: boolean): number {
  f32[0] = x;
  u32[0] += up ? 1 : -1;
  return f32[0];
}

/** fmaf(a, b, c) of floats a, b, c with c > 0: the exact a * b + c rounded once to a float, ties to even. */
export function fmaf(a: number, b: number, c: number): number {
  const p = a * b;  // exact: two 24-bit significands
  const s = p + c;
  const t = s - p;
  const e = (p - (s - t)) + (c - t);  // s + e is exactly p + c
  const r = Math.fround(s);
  if (e === 0 || r === s) return r;
  // s rounded once already: a tie between two floats at s is decided by e.
  const other = nextFloat(r, r < s);
  if ((r + other) / 2 !== s) return r;
  return e > 0 ? Math.max(r, other) : Math.min(r, other);
}

const INV = Math.fround(2.3283064e-10);
const INV_2PI = Math.fround(INV * Math.fround(6.2831855));

/** curand_uniform of one 32-bit draw. */
export function uniformOf(x: number): number {
  return fmaf(Math.fround(x), INV, Math.fround(INV / 2));
}

/** curand_uniform_double of XORWOW's two draws. */
export function uniformDoubleOf(x: number, y: number): number {
  const z = (BigInt(x) ^ (BigInt(y) << 21n));
  return Number(z) * 1.1102230246251565e-16 + 1.1102230246251565e-16 / 2;
}

/** The two normals of the Box-Muller transform of draws x and y, in double (the GPU's fast sine and logarithm agree to about 1e-6). */
export function boxMuller(x: number, y: number): [number, number] {
  const u = uniformOf(x);
  const v = fmaf(Math.fround(y), INV_2PI, Math.fround(INV_2PI / 2));
  const s = Math.sqrt(-2 * Math.log(u));
  return [Math.sin(v) * s, Math.cos(v) * s];
}

type Words = number[];

function xorwowStep(v: Words): void {
  const t = (v[0] ^ (v[0] >>> 2)) >>> 0;
  v[0] = v[1];
  v[1] = v[2];
  v[2] = v[3];
  v[3] = v[4];
  v[4] = ((v[4] ^ (v[4] << 4)) ^ (t ^ (t << 1))) >>> 0;
}

// A linear map of the 160 state bits, as the images of the unit vectors.
type Matrix = Words[];

function apply(m: Matrix, v: Words): Words {
  const r = [0, 0, 0, 0, 0];
  for (let i = 0; i < 160; i++) {
    if ((v[i >> 5] >>> (i & 31)) & 1) for (let j = 0; j < 5; j++) r[j] ^= m[i][j];
  }
  return r.map((w) => w >>> 0);
}

let powers: Matrix[] | undefined;  // powers[k]: 2^k steps, k up to 67 + 20

function stepsMatrix(k: number): Matrix {
  if (!powers) {
    let m: Matrix = [];
    for (let i = 0; i < 160; i++) {
      const v = [0, 0, 0, 0, 0];
      v[i >> 5] = (1 << (i & 31)) >>> 0;
      xorwowStep(v);
      m.push(v);
    }
    powers = [];
    for (let j = 0; j <= 67 + 20; j++) {
      powers.push(m);
      const current = m;
      m = current.map((row) => apply(current, row));
    }
  }
  return powers[k];
}

/** A cuRAND XORWOW generator (curandState) as curand_init(seed, subsequence, offset) leaves it, subsequence and offset below 2^20. */
export class Xorwow {
  private d: number;
  private v: Words;

  constructor(seed: bigint, subsequence: number, offset: number) {
    const s0 = (Number(seed & 0xffffffffn) ^ 0xaad26b49) >>> 0;
    const s1 = (Number(seed >> 32n) ^ 0xf7dcefdd) >>> 0;
    const t0 = Math.imul(1099087573, s0) >>> 0;
    const t1 = Math.imul(2591861531 | 0, s1) >>> 0;
    this.d = (6615241 + t1 + t0) >>> 0;
    this.v = [(123456789 + t0) >>> 0, (362436069 ^ t0) >>> 0, (521288629 + t1) >>> 0, (88675123 ^ t1) >>> 0, (5783321 + t0) >>> 0];
    for (let k = 0; k < 20; k++) if ((subsequence >> k) & 1) this.v = apply(stepsMatrix(67 + k), this.v);
    for (let k = 0; k < 20; k++) if ((offset >> k) & 1) this.v = apply(stepsMatrix(k), this.v);
    this.d = (this.d + Math.imul(362437, offset)) >>> 0;
  }

  next(): number {
    xorwowStep(this.v);
    this.d = (this.d + 362437) >>> 0;
    return (this.v[4] + this.d) >>> 0;
  }
}

function philoxBlock(counter: bigint, key: [number, number]): Words {
  let c = [0, 1, 2, 3].map((i) => Number((counter >> BigInt(32 * i)) & 0xffffffffn));
  let [k0, k1] = key;
  for (let round = 0; round < 10; round++) {
    if (round > 0) {
      k0 = (k0 + 0x9e3779b9) >>> 0;
      k1 = (k1 + 0xbb67ae85) >>> 0;
    }
    const p0 = BigInt(0xd2511f53) * BigInt(c[0]), p1 = BigInt(0xcd9e8d57) * BigInt(c[2]);
    const hi = (p: bigint) => Number(p >> 32n), lo = (p: bigint) => Number(p & 0xffffffffn);
    c = [(hi(p1) ^ c[1] ^ k0) >>> 0, lo(p1), (hi(p0) ^ c[3] ^ k1) >>> 0, lo(p0)];
  }
  return c;
}

/** A cuRAND Philox4_32_10 generator as curand_init(seed, subsequence, offset) leaves it: draw i is word i % 4 of counter block i / 4. */
export class Philox {
  private position: bigint;
  private readonly base: bigint;
  private readonly key: [number, number];

  constructor(seed: bigint, subsequence: number, offset: number) {
    this.key = [Number(seed & 0xffffffffn), Number((seed >> 32n) & 0xffffffffn)];
    this.base = BigInt(subsequence) << 64n;
    this.position = BigInt(offset);
  }

  next(): number {
    const word = philoxBlock(this.base + this.position / 4n, this.key)[Number(this.position % 4n)];
    this.position++;
    return word;
  }
}

// MRG32k3a (L'Ecuyer, 1999): the one-step matrices of its two recurrences, and their moduli.
const M1 = 4294967087n, M2 = 4294944443n;
type Matrix3 = bigint[][];
const STEP1: Matrix3 = [[0n, 1n, 0n], [0n, 0n, 1n], [M1 - 810728n, 1403580n, 0n]];
const STEP2: Matrix3 = [[0n, 1n, 0n], [0n, 0n, 1n], [M2 - 1370589n, 0n, 527612n]];

function times(a: Matrix3, b: Matrix3, m: bigint): Matrix3 {
  return a.map((row) => [0, 1, 2].map((j) => row.reduce((sum, x, k) => sum + x * b[k][j], 0n) % m));
}

/** a^e modulo m, by squaring. */
function power(a: Matrix3, e: bigint, m: bigint): Matrix3 {
  let result: Matrix3 = [[1n, 0n, 0n], [0n, 1n, 0n], [0n, 0n, 1n]], base = a;
  for (; e > 0n; e >>= 1n) {
    if (e & 1n) result = times(base, result, m);
    base = times(base, base, m);
  }
  return result;
}

function jump(a: Matrix3, v: bigint[], m: bigint): bigint[] {
  return a.map((row) => row.reduce((sum, x, k) => sum + x * v[k], 0n) % m);
}

/** A cuRAND MRG32k3a generator as curand_init(seed, subsequence, offset) leaves it (subsequences of 2^76 draws). */
export class Mrg32k3a {
  private s1: bigint[];
  private s2: bigint[];

  constructor(seed: bigint, subsequence: number, offset: number) {
    this.s1 = [12345n, 12345n, 12345n];
    this.s2 = [12345n, 12345n, 12345n];
    if (seed !== 0n) {
      const x1 = (seed & 0xffffffffn) ^ 0x55555555n, x2 = ((seed >> 32n) & 0xffffffffn) ^ 0xaaaaaaaan;
      this.s1 = [x1, x2, x1].map((x, i) => (x * this.s1[i]) % M1);
      this.s2 = [x2, x1, x2].map((x, i) => (x * this.s2[i]) % M2);
    }
    const steps = (BigInt(subsequence) << 76n) + BigInt(offset);
    this.s1 = jump(power(STEP1, steps, M1), this.s1, M1);
    this.s2 = jump(power(STEP2, steps, M2), this.s2, M2);
  }

  /** The combined residue of the next step, in (0, m1]. */
  nextResidue(): number {
    this.s1 = [this.s1[1], this.s1[2], jump([STEP1[2]], this.s1, M1)[0]];
    this.s2 = [this.s2[1], this.s2[2], jump([STEP2[2]], this.s2, M2)[0]];
    const p1 = this.s1[2], p2 = this.s2[2];
    return Number(p1 > p2 ? p1 - p2 : p1 + M1 - p2);
  }

  /** curand(): the residue scaled to 32 bits. */
  next(): number {
    return Math.min(Math.trunc(this.nextResidue() * 1.000000048662), 0xffffffff);
  }

  /** curand_uniform_double(); curand_uniform() is it rounded to a float. */
  uniformDouble(): number {
    return this.nextResidue() * 2.3283065498378288e-10;
  }
}
