// The KV cache append against float64 references, with its traffic, from the
// ops' declarations (test/op-tests.ts), on the default device (the CPU emulator
// in CI, the GPU with FUSELAB_DEVICE=gpu); below them, what only this family
// has: slots outside the new tokens' left as they were (poisoned caches),
// positions out of range refused by the ops and skipped by the kernels, V copied
// bit for bit, any launch shape, 64-lane warps, errors.
import { expect } from "chai";
import * as fl from "../src";
import { FloatDType } from "../src/ops/declare";
import { expectThrows } from "./helpers";
import { describeFusedOps, describeOps } from "./op-tests";
import { REFERENCES, appendReference, ropeAppendReference } from "./reference/kvcache";
import { ROPE_SHAPES, ROPE_TOLERANCE } from "./rope-cases";

// RoPE's tolerance: the chain rounds where the fused kernel does (its temporary
// holds the turned K in the dtype). RoPE's shapes: the examples read rows as the
// sequences of a decode step or the tokens of a prompt, and put 3 heads in a token.
const TOLERANCE = ROPE_TOLERANCE;
const OPTIONS = { shapes: { f32: ROPE_SHAPES, f16: ROPE_SHAPES, bf16: ROPE_SHAPES }, tolerance: TOLERANCE, chainTolerance: TOLERANCE };

describeOps(fl.declarations.kvcache.ops, REFERENCES, OPTIONS);
describeFusedOps(fl.declarations.kvcache.fused, REFERENCES, OPTIONS);

let seed = 1;
const dev = () => fl.device();
const randn = (shape: number[], dtype: FloatDType = "f32", device = dev()) => fl.randn(shape, { dtype, device, seed: seed++ });
const positionsOf = (values: number[], device = dev()) => fl.tensor(Int32Array.from(values), { shape: [values.length], dtype: "i32", device });

/** A cache whose every byte is 0xFF (NaN in f32, f16 and bf16): a slot the op writes shows, and so does one it should not have. */
function poisoned(shape: number[], dtype: FloatDType, device = dev()): fl.Tensor {
  const before = fl.debug.poison;
  fl.debug.poison = true;
  try {
    return fl.empty(shape, { dtype, device });
  } finally {
    fl.debug.poison = before;
  }
}

/** The slots (cache rows of heads * d values) that the new tokens of each sequence take. */
function takenSlots(maxSeq: number, positions: number[], perSeq: number): Set<number> {
  return new Set(positions.flatMap((p, b) => Array.from({ length: perSeq }, (_, t) => b * maxSeq + p + t)));
}

/** Every value of a slot not taken is still the poison; every value of a taken one is close to `expected`. */
function expectOnlySlots(cache: fl.Tensor, expected: Float64Array, taken: Set<number>, row: number, tolerance: { rtol: number; atol: number }) {
  const got = cache.toArray();
  for (let i = 0; i < got.length; i++) {
    const slot = Math.floor(i / row);
    if (!taken.has(slot)) {
      if (!Number.isNaN(got[i])) expect.fail(`slot ${slot}, value ${i % row}: written (${got[i]}), but no new token goes there`);
    } else if (!(Math.abs(got[i] - expected[i]) <= tolerance.atol + tolerance.rtol * Math.abs(expected[i]))) {
      expect.fail(`slot ${slot}, value ${i % row}: ${got[i]}, expected ${expected[i]}`);
    }
  }
}

/** A decode step or a prompt: sizes and the positions of each sequence's first new token. */
interface Case {
  label: string;
  seqDims: number[];
  perSeq: number;
  heads: number;
  d: number;
  rotaryDim: number;
  positions: number[];
}

const CASES: Case[] = [
  { label: "decode, 5 sequences, 1 head of 80", seqDims: [5, 9], perSeq: 1, heads: 1, d: 80, rotaryDim: 80, positions: [8, 0, 3, 3, 7] },
  { label: "prompt of 6 tokens, one sequence, 5 heads of 256, rotary dim 64", seqDims: [11], perSeq: 6, heads: 5, d: 256, rotaryDim: 64, positions: [2] },
  { label: "3 prompts of 4 tokens, 3 heads of 6", seqDims: [3, 7], perSeq: 4, heads: 3, d: 6, rotaryDim: 4, positions: [3, 0, 1] },
];

describe("kvcache ops", () => {
  describe("write the new tokens' slots and nothing else (poisoned caches)", () => {
    for (const c of CASES) {
      for (const dtype of ["f32", "bf16"] as FloatDType[]) {
        for (const form of ["fused", "unfused"] as const) {
          it(`${form}, ${dtype}: ${c.label}`, () => {
            const seqs = c.positions.length, maxSeq = c.seqDims[c.seqDims.length - 1];
            const tokens = seqs * c.perSeq, cacheShape = [...c.seqDims, c.heads, c.d];
            const k = randn([tokens, c.heads, c.d], dtype), v = randn([tokens, c.heads, c.d], dtype);
            const cosSin = randn([maxSeq + 2, c.rotaryDim], dtype);
            const positions = positionsOf(c.positions);
            const kCache = poisoned(cacheShape, dtype), vCache = poisoned(cacheShape, dtype);
            const kCacheBefore = kCache.toArray(), vCacheBefore = vCache.toArray();
            const neox = c.perSeq === 1;
            const result = fl[form].ropeKvAppend(k, v, positions, cosSin, kCache, vCache, { neox });
            expect(result.kCache).to.equal(kCache);
            expect(result.vCache).to.equal(vCache);
            const taken = takenSlots(maxSeq, c.positions, c.perSeq);
            const row = c.heads * c.d;
            expectOnlySlots(kCache, ropeAppendReference(kCacheBefore, cacheShape, k.toArray(), k.shape as number[], c.positions,
              cosSin.toArray(), c.rotaryDim, neox), taken, row, TOLERANCE[dtype]);
            expectOnlySlots(vCache, appendReference(vCacheBefore, cacheShape, v.toArray(), v.shape as number[], c.positions),
              taken, row, { rtol: 0, atol: 0 });
            // K alone and V alone, into fresh poisoned caches, write the same.
            const kOnly = poisoned(cacheShape, dtype), vOnly = poisoned(cacheShape, dtype);
            fl[form].ropeKAppend(k, positions, cosSin, kOnly, { neox });
            fl.ops.cacheAppend(v, positions, vOnly);
            // The same arithmetic in another kernel: a GPU compiler may contract it into FMAs differently.
            fl.assertClose(kOnly, kCache.toArray(), { ...TOLERANCE[dtype], equalNan: true });
            fl.assertClose(vOnly, vCache.toArray(), { rtol: 0, atol: 0, equalNan: true });
          });
        }
      }
    }
  });

  it("copies V as stored, bit for bit: infinities, -0, subnormals, the largest values", () => {
    for (const dtype of ["f32", "f16", "bf16"] as FloatDType[]) {
      const specials = [Infinity, -Infinity, -0, 0, 1e-40, 6e-8, 65504, -3.0e38, 1.5, -2.25];
      const values = Array.from({ length: 2 * 3 * 8 }, (_, i) => specials[i % specials.length]);
      const v = fl.tensor(values, { shape: [2, 3, 8], dtype, device: dev() });
      const cache = fl.zeros([2, 4, 3, 8], { dtype, device: dev() });
      fl.ops.cacheAppend(v, positionsOf([3, 1]), cache);
      const got = cache.toArray(), stored = v.toArray();
      for (const [b, p] of [[0, 3], [1, 1]]) {
        for (let i = 0; i < 24; i++) expect(Object.is(got[(b * 4 + p) * 24 + i], stored[b * 24 + i]), `${dtype} sequence ${b} value ${i}`).to.equal(true);
      }
    }
  });

  it("turns K as ops.ropePositions turns it, at the position of every new token", () => {
    const [tokens, heads, d] = [6, 3, 64];
    const k = randn([tokens, heads, d]);
    const cosSin = randn([16, 32]);
    const kCache = fl.zeros([2, 8, heads, d], { device: dev() });
    fl.fused.ropeKAppend(k, positionsOf([5, 2]), cosSin, kCache, { neox: false });
    const turned = fl.ops.ropePositions(k, positionsOf([5, 6, 7, 2, 3, 4]), cosSin, { neox: false }).toArray();
    const got = kCache.toArray();
    const row = heads * d;
    [[0, 5], [0, 6], [0, 7], [1, 2], [1, 3], [1, 4]].forEach(([b, p], token) => {
      const slot = fl.tensor(got.subarray((b * 8 + p) * row, (b * 8 + p + 1) * row));
      fl.assertClose(slot, turned.subarray(token * row, (token + 1) * row), TOLERANCE.f32);
    });
  });

  it("kernels take any launch shape: one thread, a few blocks, more threads than work", () => {
    const device = dev();
    for (const dtype of ["f32", "bf16"] as FloatDType[]) {
      for (const d of [6, 128]) {
        const [seqs, perSeq, heads, maxSeq] = [2, 3, 3, 7];
        const k = randn([seqs * perSeq, heads, d], dtype), v = randn([seqs * perSeq, heads, d], dtype);
        const cosSin = randn([maxSeq, d], dtype);
        const positions = [4, 1];
        const expectedK = ropeAppendReference(new Float64Array(seqs * maxSeq * heads * d), [seqs, maxSeq, heads, d], k.toArray(),
          [seqs * perSeq, heads, d], positions, cosSin.toArray(), d, true);
        const expectedV = appendReference(new Float64Array(seqs * maxSeq * heads * d), [seqs, maxSeq, heads, d], v.toArray(),
          [seqs * perSeq, heads, d], positions);
        for (const shape of [{ grid: 1, block: 1 }, { grid: 3, block: 32 }, { grid: 64, block: 256 }]) {
          const kCache = fl.zeros([seqs, maxSeq, heads, d], { dtype, device }), vCache = fl.zeros([seqs, maxSeq, heads, d], { dtype, device });
          fl.builtins(device).fn(`rope_kv_append_neox_${dtype}`).launch(shape, kCache, vCache, k, v, positionsOf(positions), cosSin,
            seqs * perSeq, seqs, heads, d / 2, maxSeq, maxSeq, d / 2);
          fl.assertClose(kCache, expectedK, TOLERANCE[dtype]);
          fl.assertClose(vCache, expectedV, { rtol: 0, atol: 0 });
        }
      }
    }
  });

  it("runs the same on the CPU emulator with 64-lane warps in check mode", () => {
    const device = fl.device("cpu", { warpSize: 64, check: true });
    const k = randn([4, 5, 80], "f32", device), v = randn([4, 5, 80], "f32", device);
    const cosSin = randn([12, 40], "f32", device);
    const kCache = fl.zeros([2, 9, 5, 80], { device }), vCache = fl.zeros([2, 9, 5, 80], { device });
    fl.fused.ropeKvAppend(k, v, positionsOf([7, 0], device), cosSin, kCache, vCache);
    fl.assertClose(kCache, ropeAppendReference(new Float64Array(kCache.size), [2, 9, 5, 80], k.toArray(), [4, 5, 80], [7, 0],
      cosSin.toArray(), 40, true), TOLERANCE.f32);
    fl.assertClose(vCache, appendReference(new Float64Array(vCache.size), [2, 9, 5, 80], v.toArray(), [4, 5, 80], [7, 0]), { rtol: 0, atol: 0 });
  });

  it("counts each row of cos/sin its tokens take once, and the cache's slots as written, never read", () => {
    // Two prompts of 3 tokens from positions 2 and 3 take positions 2..4 and 3..5: rows 2 to 5 of cos/sin, 4 rows.
    const [heads, d] = [2, 8];
    const k = fl.zeros([6, heads, d], { dtype: "bf16", device: dev() }), v = fl.zeros([6, heads, d], { dtype: "bf16", device: dev() });
    const positions = positionsOf([2, 3]);
    const cosSin = fl.zeros([100, 8], { dtype: "bf16", device: dev() });
    const kCache = fl.zeros([2, 10, heads, d], { dtype: "bf16", device: dev() }), vCache = fl.zeros([2, 10, heads, d], { dtype: "bf16", device: dev() });
    const fused = fl.traffic(() => fl.fused.ropeKvAppend(k, v, positions, cosSin, kCache, vCache));
    expect(fused.entries.map((e) => [e.bytesRead, e.bytesWritten])).to.deep.equal([[2 * k.bytes + 8 + 4 * 8 * 2, 2 * k.bytes]]);
    // The chain: ropePositions reads k, the 6 token positions and the same 4 rows, writes a temporary; each
    // of the two appends (one entry of the ledger) reads its rows and the positions, and writes the rows.
    const chain = fl.traffic(() => fl.unfused.ropeKvAppend(k, v, positions, cosSin, kCache, vCache));
    expect(chain.launches).to.equal(3);
    expect(chain.entries.map((e) => [e.op, e.launches, e.bytesRead, e.bytesWritten])).to.deep.equal([
      ["ops.ropePositions", 1, k.bytes + 24 + 4 * 8 * 2, k.bytes],
      ["ops.cacheAppend", 2, k.bytes + v.bytes + 2 * 8, k.bytes + v.bytes],
    ]);
  });

  describe("positions out of range", () => {
    // One sequence of 3 new tokens, or 2 sequences of one each, into caches of 8 slots a sequence; cos/sin of 6 or 20 rows.
    const forms = [
      { label: "a prompt", seqDims: [8], tokens: 3, bad: [[6], [-1]], limit: 5, why: "its 3 new tokens take the positions from there on, and kCache holds 8 slots a sequence" },
      { label: "a decode step", seqDims: [2, 8], tokens: 2, bad: [[0, 8], [-3, 1]], limit: 7, why: "kCache holds 8 slots a sequence" },
    ];
    for (const f of forms) {
      it(`are an error naming the position, before any launch, for ${f.label}; the caches keep what they held`, () => {
        const k = randn([f.tokens, 3, 16]), v = randn([f.tokens, 3, 16]);
        const cosSin = randn([20, 16]);
        const kCache = randn([...f.seqDims, 3, 16]), vCache = randn([...f.seqDims, 3, 16]);
        const kBefore = kCache.toArray(), vBefore = vCache.toArray();
        for (const bad of f.bad) {
          const index = bad.findIndex((p) => p < 0 || p > f.limit);
          const positions = positionsOf(bad);
          const message = (op: string, cache = "kCache") =>
            `${op}: positions[${index}] must be from 0 to ${f.limit} (${f.why.replace("kCache", cache)}), got ${bad[index]}`;
          const ledger = fl.traffic(() => {
            expectThrows(() => fl.fused.ropeKvAppend(k, v, positions, cosSin, kCache, vCache), fl.ArgumentError, message("fl.fused.ropeKvAppend"));
            expectThrows(() => fl.unfused.ropeKvAppend(k, v, positions, cosSin, kCache, vCache), fl.ArgumentError, message("fl.unfused.ropeKvAppend"));
            expectThrows(() => fl.fused.ropeKAppend(k, positions, cosSin, kCache), fl.ArgumentError, message("fl.fused.ropeKAppend"));
            expectThrows(() => fl.unfused.ropeKAppend(k, positions, cosSin, kCache), fl.ArgumentError, message("fl.unfused.ropeKAppend"));
            expectThrows(() => fl.ops.cacheAppend(v, positions, vCache), fl.ArgumentError, message("fl.ops.cacheAppend", "cache"));
          });
          expect(ledger.launches).to.equal(0);
        }
        fl.assertClose(kCache, kBefore, { rtol: 0, atol: 0 });
        fl.assertClose(vCache, vBefore, { rtol: 0, atol: 0 });
        // In range, the same tensors are accepted: the last position that fits.
        const good = f.seqDims.length === 1 ? [f.limit] : [f.limit, 0];
        fl.fused.ropeKvAppend(k, v, positionsOf(good), cosSin, kCache, vCache);
        fl.ops.cacheAppend(v, positionsOf(good), vCache);
      });
    }

    it("name the position when a prompt is longer than the cache, where no position fits", () => {
      const x = randn([6, 3, 16]), cache = randn([4, 3, 16]);
      const ledger = fl.traffic(() => expectThrows(() => fl.ops.cacheAppend(x, positionsOf([0]), cache), fl.ArgumentError,
        "fl.ops.cacheAppend: positions[0] must be a position from which its 6 new tokens fit, but cache holds 4 slots a sequence, got 0"));
      expect(ledger.launches).to.equal(0);
    });

    it("past the rows of cosSinCache are an error naming the position, though the cache has room", () => {
      const k = randn([2, 3, 16]);
      const cosSin = randn([4, 16]);
      const kCache = randn([2, 8, 3, 16]);
      const kBefore = kCache.toArray();
      const ledger = fl.traffic(() => expectThrows(() => fl.fused.ropeKAppend(k, positionsOf([3, 4]), cosSin, kCache),
        fl.ArgumentError, "fl.fused.ropeKAppend: positions[1] must be from 0 to 3 (cosSinCache has 4 rows), got 4"));
      expect(ledger.launches).to.equal(0);
      fl.assertClose(kCache, kBefore, { rtol: 0, atol: 0 });
    });

    it("are skipped by the kernels themselves: a direct launch writes the other sequences' slots and nothing out of bounds", () => {
      const [seqs, maxSeq, heads, d] = [3, 5, 3, 16];
      const shape = [seqs, maxSeq, heads, d];
      // Position 5 is past the cache of 5 slots (though cos/sin has a row for it), 4 past a cos/sin of 4 rows
      // (though the cache has a slot for it), -1 before both: each skips its sequence's token, K and V alike.
      const launches = [
        { positions: [2, 5, 4], angles: 8, taken: [0, 2] },
        { positions: [2, 1, 4], angles: 4, taken: [0, 1] },
        { positions: [-1, 1, 0], angles: 8, taken: [1, 2] },
      ];
      for (const device of [dev(), fl.device("cpu", { check: true })]) {
        for (const dtype of ["f32", "f16"] as FloatDType[]) {
          const k = randn([seqs, heads, d], dtype, device), v = randn([seqs, heads, d], dtype, device);
          for (const { positions, angles, taken } of launches) {
            const cosSin = randn([angles, d], dtype, device);
            const kCache = poisoned(shape, dtype, device), vCache = poisoned(shape, dtype, device);
            const kBefore = kCache.toArray(), vBefore = vCache.toArray();
            fl.builtins(device).fn(`rope_kv_append_interleaved_${dtype}`).launch({ grid: 4, block: 64 }, kCache, vCache, k, v,
              positionsOf(positions, device), cosSin, seqs, seqs, heads, d / 2, maxSeq, angles, d / 2);
            // The references place every sequence's token (a skipped one at slot 0); only the taken slots are compared.
            const placed = positions.map((p, b) => (taken.includes(b) ? p : 0));
            const slots = new Set(taken.map((b) => b * maxSeq + positions[b]));
            expectOnlySlots(kCache, ropeAppendReference(kBefore, shape, k.toArray(), [seqs, heads, d], placed, cosSin.toArray(), d, false),
              slots, heads * d, TOLERANCE[dtype]);
            expectOnlySlots(vCache, appendReference(vBefore, shape, v.toArray(), [seqs, heads, d], placed), slots, heads * d, { rtol: 0, atol: 0 });
          }
          // cache_append has no cos/sin: only the cache bounds a position.
          const vCache = poisoned(shape, dtype, device);
          const vBefore = vCache.toArray();
          fl.builtins(device).fn(`cache_append_${dtype}`).launch({ grid: 2, block: 32 }, vCache, v, positionsOf([5, 4, -1], device),
            seqs, seqs, heads, d, maxSeq);
          expectOnlySlots(vCache, appendReference(vBefore, shape, v.toArray(), [seqs, heads, d], [0, 4, 0]), new Set([maxSeq + 4]),
            heads * d, { rtol: 0, atol: 0 });
        }
      }
    });
  });

  describe("argument errors", () => {
    const k = () => fl.zeros([2, 3, 8], { device: dev() });
    const cache = () => fl.zeros([2, 5, 3, 8], { device: dev() });
    const cosSin = () => fl.zeros([5, 8], { device: dev() });

    it("names new tokens that do not fit the cache: heads, head dim, a count not shared evenly by its sequences", () => {
      expectThrows(() => fl.ops.cacheAppend(fl.zeros([3, 3, 8], { device: dev() }), positionsOf([0, 0]), cache()), fl.ArgumentError,
        "fl.ops.cacheAppend: x must be of shape [tokens, 3, 8] with tokens a multiple of 2 (the sequences of cache), the same count each, got [3, 3, 8]");
      expectThrows(() => fl.fused.ropeKAppend(fl.zeros([2, 5, 8], { device: dev() }), positionsOf([0, 0]), cosSin(), cache()), fl.ArgumentError,
        "fl.fused.ropeKAppend: k must be of shape [tokens, 3, 8] with tokens a multiple of 2 (the sequences of kCache), the same count each, got [2, 5, 8]");
      expectThrows(() => fl.ops.cacheAppend(fl.zeros([2, 8], { device: dev() }), positionsOf([0]), fl.zeros([5, 3, 8], { device: dev() })),
        fl.ArgumentError, "fl.ops.cacheAppend: x must be of shape [tokens, 3, 8], got [2, 8]");
      expectThrows(() => fl.ops.cacheAppend(k(), positionsOf([0, 0]), fl.zeros([5, 8], { device: dev() })), fl.ArgumentError,
        "fl.ops.cacheAppend: cache must be a cache of shape [maxSeq, heads, headDim] (one sequence) or [seqs, maxSeq, heads, headDim], got [5, 8]");
      expectThrows(() => fl.fused.ropeKvAppend(k(), fl.zeros([4, 3, 8], { device: dev() }), positionsOf([0, 0]), cosSin(), cache(), cache()),
        fl.ArgumentError, "fl.fused.ropeKvAppend: v must have shape [2, 3, 8] (the shape of k), got [4, 3, 8]");
      expectThrows(() => fl.fused.ropeKvAppend(k(), k(), positionsOf([0, 0]), cosSin(), cache(), fl.zeros([2, 6, 3, 8], { device: dev() })),
        fl.ArgumentError, "fl.fused.ropeKvAppend: vCache must have shape [2, 5, 3, 8] (the shape of kCache), got [2, 6, 3, 8]");
      expectThrows(() => fl.fused.ropeKAppend(fl.zeros([2, 3, 7], { device: dev() }), positionsOf([0, 0]), cosSin(), fl.zeros([2, 5, 3, 7], { device: dev() })),
        fl.ArgumentError, "fl.fused.ropeKAppend: kCache must be a cache whose head dim is even (RoPE turns pairs), got [2, 5, 3, 7]");
    });

    it("names positions of the wrong dtype or length, a cache given twice, a tensor read and written, a bad rotary dim or option", () => {
      expectThrows(() => fl.ops.cacheAppend(k(), fl.zeros([2], { device: dev() }), cache()), fl.ArgumentError,
        "fl.ops.cacheAppend: positions must be an i32 tensor of shape [2] (the first new slot of each sequence of cache), got a tensor of dtype f32 and shape [2]");
      expectThrows(() => fl.ops.cacheAppend(k(), positionsOf([0, 0, 0]), cache()), fl.ArgumentError,
        "fl.ops.cacheAppend: positions must be an i32 tensor of shape [2] (the first new slot of each sequence of cache), got a tensor of dtype i32 and shape [3]");
      const kc = cache();
      expectThrows(() => fl.fused.ropeKvAppend(k(), k(), positionsOf([0, 0]), cosSin(), kc, kc), fl.ArgumentError,
        "fl.fused.ropeKvAppend: vCache must be a tensor other than kCache (one is written, the other read or written), got kCache itself");
      const oneSequence = fl.zeros([2, 3, 8], { device: dev() });
      expectThrows(() => fl.ops.cacheAppend(oneSequence, positionsOf([0]), oneSequence), fl.ArgumentError,
        "fl.ops.cacheAppend: x must be a tensor other than cache (one is written, the other read or written), got cache itself");
      expectThrows(() => fl.fused.ropeKAppend(k(), positionsOf([0, 0]), fl.zeros([5, 10], { device: dev() }), cache()), fl.ArgumentError,
        "fl.fused.ropeKAppend: cosSinCache must be of shape [maxPositions, rotaryDim] with rotaryDim even, from 2 to 8 (the head dim of k), got [5, 10]");
      expectThrows(() => fl.fused.ropeKAppend(k(), positionsOf([0, 0]), cosSin(), cache(), { neox: "yes" } as never), fl.ArgumentError,
        'fl.fused.ropeKAppend: options.neox must be a boolean, got "yes"');
      expectThrows(() => fl.unfused.ropeKAppend(k(), positionsOf([0, 0]), cosSin(), cache(), { rotary: 4 } as never), fl.ArgumentError,
        /^fl\.unfused\.ropeKAppend: options/);
      expectThrows(() => fl.fused.ropeKAppend(k(), positionsOf([0, 0]), fl.zeros([5, 8], { dtype: "bf16", device: dev() }), cache()),
        fl.ArgumentError, "fl.fused.ropeKAppend: cosSinCache must be of dtype f32 (the dtype of k), got bf16");
    });
  });
});
