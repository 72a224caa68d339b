// The tests every op gets from its declaration: on every dtype and awkward shape,
// with outputs poisoned before each launch (test/setup.ts), each example is run
// and compared with the op's float64 reference; a fused op is also run as its
// unfused chain (`fl.unfused.X`, same arguments), compared with both, and its
// traffic is checked against the rule: one launch, every distinct input read
// once, every output and every argument it changes written once.
import { expect } from "chai";
import * as fl from "../src";
import type { FloatDType } from "../src/ops/declare";
import { roundTo } from "./reference/elementwise";
import { roundF16 } from "./reference/half";
import { Q4_0_BLOCK_BYTES, Q4_0_BLOCK_VALUES, halfBits } from "./reference/quant";

export type Tolerance = Record<FloatDType, { rtol: number; atol: number }>;
/** The op's arguments with each tensor replaced by its values, the example's row length, and each argument's shape (undefined for non-tensors). */
export type Reference = (args: any[], cols: number, shapes: (number[] | undefined)[]) => Float64Array | Record<string, Float64Array>;

const DTYPES: FloatDType[] = ["f32", "f16", "bf16"];

// Uniform in [-4, 4), seeded (mulberry32), so failures reproduce.
export function uniform(count: number, seed: number): number[] {
  let state = seed >>> 0;
  const out = new Array<number>(count);
  for (let i = 0; i < count; i++) {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    out[i] = (((t ^ (t >>> 14)) >>> 0) / 2 ** 32) * 8 - 4;
  }
  return out;
}

/**
 * `count` Q4_0 blocks of random bytes, seeded: every code from 0 to 15 and
 * finite scales of either sign up to 0.5 in magnitude.
 */
export function randomQ4_0Blocks(count: number, seed: number): Uint8Array {
  const scales = uniform(count, seed);
  const codes = uniform(count * 16, seed + 1);
  const bytes = new Uint8Array(count * Q4_0_BLOCK_BYTES);
  for (let b = 0; b < count; b++) {
    const scale = halfBits(roundF16(scales[b] / 8));
    bytes[b * Q4_0_BLOCK_BYTES] = scale & 0xff;
    bytes[b * Q4_0_BLOCK_BYTES + 1] = scale >> 8;
    for (let j = 0; j < 16; j++) bytes[b * Q4_0_BLOCK_BYTES + 2 + j] = Math.floor(((codes[b * 16 + j] + 4) / 8) * 256);
  }
  return bytes;
}

/** Arguments made by an example, and the values each tensor held when made. */
interface Made {
  args: unknown[];
  values: Map<fl.Tensor<fl.DType>, Float64Array>;
}

// Runs `example.args` with tensors of seeded values (the same for the same `seed`).
function makeArgs(example: fl.OpExample, dtype: FloatDType, rows: number, cols: number, seed: number): Made {
  const values = new Map<fl.Tensor<fl.DType>, Float64Array>();
  let next = seed;
  const make = (shape: number[], kind?: fl.MadeKind) => {
    const count = shape.reduce((p, d) => p * d, 1);
    let v: Float64Array, t: fl.Tensor;
    if (kind && "below" in kind) {
      v = Float64Array.from(uniform(count, next++), (u) => Math.min(kind.below - 1, Math.floor(((u + 4) / 8) * kind.below)));
      t = fl.tensor(Int32Array.from(v), { shape, dtype: "i32", device: fl.device() });
    } else if (kind) {
      // Random codes and scales of either sign, whose bytes the reference decodes itself.
      const bytes = randomQ4_0Blocks(count / Q4_0_BLOCK_VALUES, next);
      next += 2;
      v = Float64Array.from(bytes);
      const rowBytes = (shape[shape.length - 1] / Q4_0_BLOCK_VALUES) * Q4_0_BLOCK_BYTES;
      t = fl.tensor(bytes, { shape: [...shape.slice(0, -1), rowBytes], dtype: "u8", device: fl.device() });
    } else {
      v = roundTo(dtype, uniform(count, next++));
      t = fl.tensor(Float32Array.from(v), { shape, dtype, device: fl.device() });
    }
    values.set(t, v);
    return t;
  };
  return { args: example.args(make, rows, cols, dtype), values };
}

/** The tensors an op returned, by name ("out" for a lone tensor). */
function outputsOf(result: unknown): Record<string, fl.Tensor> {
  if (fl.Tensor.isTensor(result)) return { out: result as fl.Tensor };
  return Object.fromEntries(Object.entries(result as object).filter(([, v]) => fl.Tensor.isTensor(v)));
}

function expectedOf(reference: Reference, made: Made, cols: number): Record<string, Float64Array> {
  const host = made.args.map((a) => (fl.Tensor.isTensor(a) ? made.values.get(a) : a));
  const shapes = made.args.map((a) => (fl.Tensor.isTensor(a) ? [...a.shape] : undefined));
  const expected = reference(host, cols, shapes);
  return expected instanceof Float64Array ? { out: expected } : expected;
}

function tensorArgs(args: unknown[]): fl.Tensor[] {
  return [...new Set(args.filter((a): a is fl.Tensor => fl.Tensor.isTensor(a)))];
}

const bytesOf = (tensors: Iterable<fl.Tensor>) => [...new Set(tensors)].reduce((sum, t) => sum + t.bytes, 0);

type Traffic = { gathers?: readonly fl.Gather[]; partial?: readonly fl.PartialAccess[]; scatters?: readonly fl.Scatter[] };

/**
 * The bytes an op must read: each distinct tensor argument once, whole, except a
 * table it gathers from, of which each distinct row its index names (and the
 * span of rows after it), once; the part it touches of an argument it touches
 * in part; and nothing of an argument it only writes into.
 */
function bytesToRead(made: Made, op: Traffic): number {
  const gathered = new Map((op.gathers ?? []).map((g) => {
    const span = g.span ? g.span(made.args) : 1;
    const rows = [...made.values.get(made.args[g.index] as fl.Tensor)!].flatMap((first) => Array.from({ length: span }, (_, i) => first + i));
    return [made.args[g.table] as fl.Tensor, rows];
  }));
  const parts = partsOf(made, op.partial);
  const scattered = scatterTargets(made, op.scatters);
  const whole = tensorArgs(made.args).filter((t) => !gathered.has(t) && !parts.has(t) && !scattered.has(t));
  let bytes = bytesOf(whole);
  for (const [table, rows] of gathered) bytes += new Set(rows).size * (table.bytes / table.shape[0]);
  for (const [t, fraction] of parts) bytes += t.bytes * fraction;
  return bytes;
}

/** The arguments an op touches only in part, with that part as a fraction. */
function partsOf(made: Made, partial: readonly fl.PartialAccess[] = []): Map<fl.Tensor, number> {
  return new Map(partial.map((p) => [made.args[p.arg] as fl.Tensor, p.fraction(made.args)]));
}

/** The arguments an op writes into without reading, with the bytes it writes there (as many as its `from` holds). */
function scatterTargets(made: Made, scatters: readonly fl.Scatter[] = []): Map<fl.Tensor, number> {
  return new Map(scatters.map((s) => [made.args[s.into] as fl.Tensor, (made.args[s.from] as fl.Tensor).bytes]));
}

/**
 * The bytes an op must write: each output once, the part it touches of each
 * argument it changes, and the elements it writes into an argument it scatters into.
 */
function bytesToWrite(op: Traffic & { mutates?: readonly string[] }, made: Made, outputs: Record<string, fl.Tensor>): number {
  const parts = partsOf(made, op.partial);
  const scattered = scatterTargets(made, op.scatters);
  const mutated = new Set((op.mutates ?? []).map((n) => outputs[n]));
  const whole = [...Object.values(outputs)].filter((t) => !scattered.has(t) && (!parts.has(t) || !mutated.has(t)));
  const partBytes = [...mutated].reduce((sum, t) => sum + (parts.has(t) && !scattered.has(t) ? t.bytes * parts.get(t)! : 0), 0);
  const scatteredBytes = [...scattered].reduce((sum, [t, bytes]) => sum + (Object.values(outputs).includes(t) ? bytes : 0), 0);
  return bytesOf(whole) + partBytes + scatteredBytes;
}

/** What an op changes in place is returned, as the very tensor passed in; nothing else it was given changes. */
function expectOnlyChanged(made: Made, changed: fl.Tensor[]): void {
  const inputs = tensorArgs(made.args);
  for (const t of changed) expect(inputs, "a changed argument is returned as itself").to.include(t);
  for (const t of inputs.filter((t) => !changed.includes(t))) fl.assertClose(t, made.values.get(t)!, { rtol: 0, atol: 0 });
}
const exampleName = (e: fl.OpExample) => (e.label ? ` (${e.label})` : "");

export interface OpTestOptions {
  /** [rows, cols] per dtype. */
  shapes: Record<FloatDType, [number, number][]>;
  /** An op against its reference. */
  tolerance: Tolerance;
  /** A chain against the reference and against the fused op: the chain rounds each intermediate. */
  chainTolerance: Tolerance;
}

let seeds = 1;

/** The tests of a family's unfused ops, from their declarations. */
export function describeOps(ops: readonly fl.OpDeclaration[], references: Record<string, Reference>, o: OpTestOptions): void {
  for (const op of ops) {
    describe(`ops.${op.name}`, () => {
      for (const example of op.examples) {
        for (const dtype of DTYPES) {
          for (const [rows, cols] of o.shapes[dtype]) {
            it(`${dtype} [${rows}, ${cols}]${exampleName(example)}`, () => {
              const made = makeArgs(example, dtype, rows, cols, (seeds += 16));
              let result: unknown;
              const ledger = fl.traffic(() => (result = (op.fn as (...a: unknown[]) => unknown)(...made.args)));
              const outputs = outputsOf(result);
              const expected = expectedOf(references[`ops.${op.name}`], made, cols);
              for (const [name, tensor] of Object.entries(outputs)) {
                expect(tensor.dtype).to.equal(dtype);
                fl.assertClose(tensor, expected[name], o.tolerance[dtype]);
              }
              expectOnlyChanged(made, (op.scatters ?? []).map((s) => made.args[s.into] as fl.Tensor));
              expect(ledger.launches, "launches").to.equal(1);
              const [entry] = ledger.entries;
              expect(entry.op).to.equal(`ops.${op.name}`);
              expect(op.kernels.map((k) => k[dtype])).to.include(entry.kernel);
              expect(entry.bytesRead, "bytes read").to.equal(bytesToRead(made, op));
              expect(entry.bytesWritten, "bytes written").to.equal(bytesToWrite(op, made, outputs));
            });
          }
        }
      }
    });
  }
}

/** The tests of a family's fused ops, from their declarations. */
export function describeFusedOps(declarations: readonly fl.FusedOpDeclaration[], references: Record<string, Reference>,
                                 o: OpTestOptions): void {
  const opKernels = new Set(Object.values(fl.declarations).flatMap((family) =>
    family.ops.flatMap((op: fl.OpDeclaration) => op.kernels.flatMap((k) => Object.values(k)))));
  for (const op of declarations) {
    describe(`fused.${op.name} against its reference and fl.unfused.${op.name}`, () => {
      for (const example of op.examples) {
        for (const dtype of DTYPES) {
          for (const [rows, cols] of o.shapes[dtype]) {
            it(`${dtype} [${rows}, ${cols}]${exampleName(example)}`, () => {
              const seed = (seeds += 16);
              const fusedMade = makeArgs(example, dtype, rows, cols, seed);
              const chainMade = makeArgs(example, dtype, rows, cols, seed);
              let fusedResult: unknown, chainResult: unknown;
              const fusedLedger = fl.traffic(() => (fusedResult = (op.fused as (...a: unknown[]) => unknown)(...fusedMade.args)));
              const chainLedger = fl.traffic(() => (chainResult = (op.unfused as (...a: unknown[]) => unknown)(...chainMade.args)));
              const expected = expectedOf(references[`fused.${op.name}`], fusedMade, cols);
              const fusedOut = outputsOf(fusedResult), chainOut = outputsOf(chainResult);
              expect(Object.keys(chainOut)).to.deep.equal(Object.keys(fusedOut));
              expect(Object.keys(fusedOut).sort()).to.deep.equal(Object.keys(expected).sort());
              for (const [name, tensor] of Object.entries(fusedOut)) {
                expect(tensor.dtype).to.equal(dtype);
                expect(chainOut[name].shape).to.deep.equal(tensor.shape);
                fl.assertClose(tensor, expected[name], o.tolerance[dtype]);
                fl.assertClose(chainOut[name], expected[name], o.chainTolerance[dtype]);
                fl.assertClose(tensor, chainOut[name].toArray(), o.chainTolerance[dtype]);
              }
              for (const [made, out] of [[fusedMade, fusedOut], [chainMade, chainOut]] as const) {
                expectOnlyChanged(made, op.mutates.map((name) => out[name]));
              }
              // The traffic rule, counted independently of the op's own model.
              expect(fusedLedger.launches, "fused launches").to.equal(1);
              const [entry] = fusedLedger.entries;
              expect(entry.op).to.equal(`fused.${op.name}`);
              expect(op.kernels.map((k) => k[dtype])).to.include(entry.kernel);
              expect(entry.bytesRead, "bytes read").to.equal(bytesToRead(fusedMade, op));
              expect(entry.bytesWritten, "bytes written").to.equal(bytesToWrite(op, fusedMade, fusedOut));
              // The chain: one launch a step, each an op's kernel or one of the chain's own.
              const chainOwn = new Set((op.chainKernels ?? []).map((k) => k[dtype]));
              expect(chainLedger.launches, "chain launches").to.be.greaterThan(1);
              for (const e of chainLedger.entries) {
                if (e.op === `unfused.${op.name}`) expect([...chainOwn]).to.include(e.kernel);
                else expect([...opKernels], `${e.op} launched ${e.kernel}`).to.include(e.kernel);
              }
              expect(chainLedger.bytes, "the chain moves more bytes").to.be.greaterThan(fusedLedger.bytes);
            });
          }
        }
      }
    });
  }
}
