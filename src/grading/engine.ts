// Grading one submission of a kernel exercise. Everything that decides a
// grade happens here, in the grader's process: inputs are made (from a secret
// seed combined per test), references computed, outputs compared and canaries
// checked. The submission's kernels run elsewhere, behind an Executor: a
// sandboxed child process for the grader (executor.ts), the notebook's own
// process for `fl.check`. The same tests run either way.
import { createHash, randomBytes } from "crypto";
import * as os from "os";
import { DTYPE_BYTES, DType, bf16BitsToF32, decode, encode, f16BitsToF32 } from "../dtype";
import { CaseLaunch, KernelCase, KernelExercise, KernelTest, PerformanceTest, TestDevice, Values } from "./exercise";
import { ArgSpec, BufferSpec, LaunchSpec, canaryByte } from "./protocol";
import { Counterexample, TestResult, Verdict } from "./results";
import { RunOutput } from "./workbench";

/** A failure of the submission's process or launch, already classified. */
export class SubmissionFailure extends Error {
  constructor(readonly verdict: Verdict, message: string, readonly log?: string) {
    super(message);
    this.name = "SubmissionFailure";
  }
}

/** Runs a submission's kernels: compiled once, then launched on what the grader sends. */
export interface Executor {
  /** Opens the devices the tests need (their CPU options; one plain device on a GPU), compiles the source, and returns its kernels. */
  start(devices: readonly TestDevice[], source: string): Promise<readonly string[]>;
  run(device: number, buffers: BufferSpec[], payloads: Buffer[], launches: LaunchSpec[], read: number[]): Promise<RunOutput>;
  /** Makes `count` sets of buffers at fresh addresses, each with its inputs (payloads: set after set), for `time`. */
  stage(device: number, buffers: BufferSpec[], payloads: Buffer[], count: number): Promise<void>;
  /** Times the launches once on each staged set, after `warmup` untimed runs on the first. */
  time(device: number, launches: LaunchSpec[], warmup: number): Promise<number[]>;
  read(device: number, set: number, read: number[]): Promise<RunOutput>;
  /** Whether it can take more requests (a child that died cannot). */
  readonly alive: boolean;
  close(): Promise<void>;
}

/** Classifies a launch's error message into a verdict. */
export function verdictOf(message: string): Verdict {
  if (/a race on shared memory/.test(message)) return "race";
  if (/(wrote|read|read or wrote) out of bounds/.test(message)) return "out_of_bounds";
  if (/ran past the .* limit|was cancelled|time limit/.test(message)) return "time_limit";
  if (/illegal (memory )?access|invalid memory access|illegal address|misaligned address|out of bounds/i.test(message)) return "illegal_address";
  if (/out of memory|cannot allocate|resource/i.test(message)) return "resource_limit";
  if (/illegal instruction|overflowed its .* stack|crash|abort/i.test(message)) return "crash";
  return "runtime_error";
}

/** A 32-bit seed from a secret and the names of what it is for (a test, an iteration). */
export function combineSeed(secret: string, ...parts: (string | number)[]): number {
  const h = createHash("sha256").update(secret);
  for (const p of parts) h.update("\0").update(String(p));
  return h.digest().readUInt32LE(0);
}

/** A fresh secret for a grading run. */
export function freshSecret(): string {
  return randomBytes(16).toString("hex");
}

function dims(d: number | number[]): number[] {
  return typeof d === "number" ? [d] : d;
}

/** Values as the kernel gets them: their bytes, and the values those bytes hold (16-bit floats rounded). */
function storedValues(dtype: DType, values: Values): { bytes: Buffer; stored: Float64Array } {
  const e = encode(dtype, values);
  const decoded = decode(dtype, e);
  // A typed array converts in one native step; Float64Array.from walks it element by element.
  const stored = decoded instanceof BigInt64Array || decoded instanceof BigUint64Array ? Float64Array.from(decoded, Number) : new Float64Array(decoded);
  return { bytes: Buffer.from(e.buffer, e.byteOffset, e.byteLength), stored };
}

interface Prepared {
  buffers: BufferSpec[];
  payloads: Buffer[];
  launches: LaunchSpec[];
  read: number[];
  inputsStored: Record<string, Float64Array>;
}

/** A case as the executor takes it: buffers (inputs, then outputs), payloads, launches with buffer indices. */
export function prepareCase(c: KernelCase): Prepared {
  const names = new Map<string, number>();
  const buffers: BufferSpec[] = [];
  const payloads: Buffer[] = [];
  const inputsStored: Record<string, Float64Array> = {};
  for (const input of c.inputs) {
    names.set(input.name, buffers.length);
    buffers.push({ dtype: input.dtype, elements: input.values.length, init: "data", canary: canaryByte(buffers.length) });
    const { bytes, stored } = storedValues(input.dtype, input.values);
    payloads.push(bytes);
    inputsStored[input.name] = stored;
  }
  const read: number[] = [];
  for (const output of c.outputs) {
    names.set(output.name, buffers.length);
    read.push(buffers.length);
    if (output.initial) {
      if (output.initial.length !== output.elements) throw new Error(`output ${output.name}: ${output.elements} initial values expected`);
      buffers.push({ dtype: output.dtype, elements: output.elements, init: "data", canary: canaryByte(buffers.length) });
      const { bytes, stored } = storedValues(output.dtype, output.initial);
      payloads.push(bytes);
      inputsStored[output.name] = stored;
    } else {
      buffers.push({ dtype: output.dtype, elements: output.elements, init: "nan", canary: canaryByte(buffers.length) });
    }
  }
  const launches = c.launches.map((l: CaseLaunch): LaunchSpec => ({
    kernel: l.kernel, grid: dims(l.grid), block: dims(l.block), sharedBytes: l.sharedBytes ?? 0,
    args: l.args.map((a): ArgSpec => {
      if (typeof a === "number") return { value: a };
      const index = names.get(a);
      if (index === undefined) throw new Error(`launch of ${l.kernel}: no buffer named ${a}`);
      return { buffer: index };
    }),
  }));
  return { buffers, payloads, launches, read, inputsStored };
}

// A class is graded with one secret, so every submission gets the same cases:
// made once and kept (up to CACHE_BYTES of payload), they cost a large class
// nothing after the first submission. Each submission's process still gets
// them in fresh buffers at new addresses.
const CACHE_BYTES = Math.max(3 * 2 ** 30, os.totalmem() / 4);
interface MadeCase {
  c: KernelCase;
  prepared: Prepared;
  /** The reference outputs, computed on first use and kept with the case. */
  expected(): Expected;
}
type Expected = Record<string, ArrayLike<number>>;
const caseCache = new Map<string, MadeCase & { bytes: number }>();
let cachedBytes = 0;

function madeCase(key: string, make: () => KernelCase): MadeCase {
  const hit = caseCache.get(key);
  if (hit) return hit;
  const c = make();
  const prepared = prepareCase(c);
  let expected: Expected | undefined;
  const made = { c, prepared, expected: () => (expected ??= c.reference(prepared.inputsStored)) };
  // Payloads, the stored inputs (8 bytes an element) and the reference outputs.
  const elements = prepared.buffers.reduce((a, b) => a + b.elements, 0);
  const bytes = prepared.payloads.reduce((a, p) => a + p.length, 0) + 8 * elements;
  while (cachedBytes + bytes > CACHE_BYTES && caseCache.size > 0) {
    const [oldest, entry] = caseCache.entries().next().value as [string, { bytes: number }];
    caseCache.delete(oldest);
    cachedBytes -= entry.bytes;
  }
  if (bytes <= CACHE_BYTES) {
    caseCache.set(key, { ...made, bytes });
    cachedBytes += bytes;
  }
  return made;
}

interface Comparison {
  verdict: Verdict;
  message: string;
  /** Indices of the first wrong elements, per output. */
  wrong: { output: string; index: number; expected: number; got: number }[];
}

const SHOWN = 5;
const TIMED_SETS = 8;

/** Reads element i of an output's downloaded bytes as a number. */
function elementReader(dtype: DType, image: Buffer): (i: number) => number {
  switch (dtype) {
    case "f32": return (i) => image.readFloatLE(4 * i);
    case "i32": return (i) => image.readInt32LE(4 * i);
    case "u8": return (i) => image[i];
    case "f16": return (i) => f16BitsToF32(image.readUInt16LE(2 * i));
    case "bf16": return (i) => bf16BitsToF32(image.readUInt16LE(2 * i));
    case "f64": return (i) => image.readDoubleLE(8 * i);
    case "i8": return (i) => image.readInt8(i);
    case "i16": return (i) => image.readInt16LE(2 * i);
    case "u16": return (i) => image.readUInt16LE(2 * i);
    case "u32": return (i) => image.readUInt32LE(4 * i);
    case "i64": return (i) => Number(image.readBigInt64LE(8 * i));
    case "u64": return (i) => Number(image.readBigUInt64LE(8 * i));
  }
}

// A timed run's outputs are checked at this many places an output: each end
// (where tails go wrong) and the rest drawn at random after the run, so a
// kernel cannot know which elements are looked at.
const SAMPLE_ENDS = 256;
const SAMPLE_RANDOM = 1 << 16;

/** The places a timed run's output is checked at: undefined for all of them. */
function sampledIndices(elements: number): number[] | undefined {
  if (elements <= 2 * SAMPLE_ENDS + SAMPLE_RANDOM) return undefined;
  const picked = new Set<number>();
  for (let i = 0; i < SAMPLE_ENDS; i++) picked.add(i).add(elements - 1 - i);
  const random = randomBytes(4 * SAMPLE_RANDOM);
  for (let k = 0; k < SAMPLE_RANDOM; k++) picked.add(random.readUInt32LE(4 * k) % elements);
  return [...picked].sort((a, b) => a - b);
}

/**
 * Compares the outputs (and every canary) against the reference: every
 * element, or with `sampled` a random sample of them (the re-check of a
 * timed run, whose outputs a correctness test has already seen whole).
 */
export function compareOutputs(c: KernelCase, prepared: Prepared, out: RunOutput,
  options: { expected?: Expected; sampled?: boolean } = {}): Comparison {
  for (let i = 0; i < out.canaries.length; i++) {
    const canary = out.canaries[i];
    const changed = canary.findIndex((b) => b !== prepared.buffers[i].canary);
    if (changed >= 0) {
      const spec = prepared.buffers[i];
      const name = [...c.inputs.map((x) => x.name), ...c.outputs.map((x) => x.name)][i];
      const elementBytes = DTYPE_BYTES[spec.dtype];
      return {
        verdict: "out_of_bounds", wrong: [],
        message: `wrote past the end of ${name} (${spec.elements} elements): element ${spec.elements + Math.floor(changed / elementBytes)} was changed`,
      };
    }
  }
  const expected = options.expected ?? c.reference(prepared.inputsStored);
  const wrong: Comparison["wrong"] = [];
  let nan = 0;
  let unwritten = 0;
  let mismatches = 0;
  let worst = { output: "", index: -1, err: 0 };
  let checked = 0;
  c.outputs.forEach((output, k) => {
    const image = out.buffers[k];
    const elementBytes = DTYPE_BYTES[output.dtype];
    const got = elementReader(output.dtype, image);
    const want = expected[output.name];
    if (!want || want.length !== output.elements) throw new Error(`reference of ${output.name}: ${output.elements} values expected, got ${want?.length}`);
    const { rtol, atol } = output.tolerance;
    const sample = options.sampled ? sampledIndices(output.elements) : undefined;
    const count = sample ? sample.length : output.elements;
    for (let k = 0; k < count; k++) {
      const i = sample ? sample[k] : k;
      const g = got(i);
      checked++;
      const w = want[i];
      // The canary's bytes are NaN too: an element never written must not pass where NaN is the answer.
      const canary = Number.isNaN(g) && !output.initial && image.subarray(i * elementBytes, (i + 1) * elementBytes).every((b) => b === 0xff);
      let ok: boolean;
      if (canary) {
        ok = false;
        nan++;
        unwritten++;
      } else if (Number.isNaN(w)) ok = Number.isNaN(g);
      else if (Number.isNaN(g)) {
        ok = false;
        nan++;
      } else if (!Number.isFinite(w)) ok = g === w;
      else ok = Math.abs(g - w) <= atol + rtol * Math.abs(w);
      if (!ok) {
        mismatches++;
        if (wrong.length < SHOWN) wrong.push({ output: output.name, index: i, expected: w, got: g });
        const err = Number.isNaN(g) ? Infinity : Math.abs(g - w);
        if (err > worst.err || worst.index < 0) worst = { output: output.name, index: i, err };
      }
    }
  });
  if (mismatches === 0) return { verdict: "passed", message: `${c.label}: all outputs within tolerance`, wrong };
  const all = c.outputs.reduce((a, o) => a + o.elements, 0);
  const total = checked === all ? `${all}` : `${checked} checked (of ${all})`;
  if (unwritten > 0) {
    return { verdict: "nan", wrong, message: `${c.label}: ${unwritten} of ${total} output elements hold the NaN canary's bytes: never written, or computed from memory never written` };
  }
  if (nan > 0) return { verdict: "nan", wrong, message: `${c.label}: ${nan} of ${total} output elements are NaN where numbers belong` };
  return { verdict: "wrong_answer", wrong, message: `${c.label}: ${mismatches} of ${total} output elements are wrong (worst at ${worst.output}[${worst.index}])` };
}

/** Options of a grading run. */
export interface EngineOptions {
  /** The secret the tests' seeds are combined with. */
  secret: string;
  /** "cpu": correctness only; "gpu": bandwidth too, against `copyCeilingGBs`. */
  deviceKind: "cpu" | "gpu";
  copyCeilingGBs?: number;
  /** Which tests run (fl.check: the visible ones). */
  include(test: { visibility: string }): boolean;
  /** Makes a fresh executor (after the previous one died). */
  executor(): Executor;
  /** Timed iterations of a performance test, each on fresh inputs. */
  timedSets?: number;
  /** Called as each test ends (progress). */
  onTest?(result: TestResult): void;
  /** Runs a performance test alone on its GPU (other submissions' processes share it for correctness tests). */
  exclusive?<T>(fn: () => Promise<T>): Promise<T>;
}

function deviceList(ex: KernelExercise, kind: "cpu" | "gpu"): { devices: TestDevice[]; index(t: KernelTest): number } {
  if (kind === "gpu") return { devices: [{}], index: () => 0 };
  // On the CPU emulator every test runs in check mode: guard bands, NaN-poisoned memory, shuffled thread order.
  const keys: string[] = [];
  const devices: TestDevice[] = [];
  const keyOf = (d: TestDevice | undefined) => JSON.stringify({ warpSize: d?.warpSize ?? 32 });
  for (const t of ex.tests) {
    const key = keyOf(t.device);
    if (!keys.includes(key)) {
      keys.push(key);
      devices.push({ check: true, ...(t.device?.warpSize === 64 ? { warpSize: 64 } : {}) });
    }
  }
  if (devices.length === 0) devices.push({ check: true });
  return { devices, index: (t) => keys.indexOf(keyOf(t.device)) };
}

function counterexampleOf(c: KernelCase, prepared: Prepared, cmp: Comparison): Counterexample {
  return {
    label: c.label,
    output: cmp.wrong[0]?.output ?? "",
    rows: cmp.wrong.map((w) => {
      const inputs: Record<string, number> = {};
      for (const [name, values] of Object.entries(prepared.inputsStored)) {
        const out = c.outputs.find((o) => o.name === w.output);
        if (values.length === out?.elements || values.length === prepared.buffers.find((b) => b.init === "nan")?.elements) inputs[name] = values[w.index];
      }
      return { index: w.index, inputs, expected: w.expected, got: w.got };
    }),
  };
}

/**
 * Makes every case a grading run with this secret will use, with its
 * reference, before any submission starts: made on first use instead, a large
 * timed test's data would hold up the grader's process (and so every other
 * submission's replies) for seconds.
 */
export function makeCases(ex: KernelExercise, options: Pick<EngineOptions, "secret" | "deviceKind" | "include" | "timedSets">): void {
  for (const test of ex.tests.filter((t) => options.include(t))) madeCase(correctnessKey(ex, test, options.secret), () => test.make(combineSeed(options.secret, ex.id, test.name), false)).expected();
  if (options.deviceKind !== "gpu") return;
  for (const test of ex.performance.filter((t) => options.include(t))) timedCases(ex, test, options).forEach((m) => m.expected());
}

function correctnessKey(ex: KernelExercise, test: KernelTest, secret: string): string {
  return `${ex.id}\0${test.name}\0${combineSeed(secret, ex.id, test.name)}`;
}

function timedCases(ex: KernelExercise, test: PerformanceTest, options: Pick<EngineOptions, "secret" | "timedSets">): MadeCase[] {
  return Array.from({ length: options.timedSets ?? TIMED_SETS }, (_, i) => {
    const seed = combineSeed(options.secret, ex.id, test.name, i);
    return madeCase(`${ex.id}\0${test.name}\0${seed}\0${i}`, () => test.make(seed));
  });
}

/**
 * Grades a kernel submission: starts an executor (compile), runs each included
 * test, and returns one result a test. A compile error fails every test with
 * the log; a process that dies is restarted once for the tests after it.
 */
export async function gradeKernel(ex: KernelExercise, source: string, options: EngineOptions): Promise<{ tests: TestResult[]; compile: { ok: boolean; log: string } }> {
  const { devices, index } = deviceList(ex, options.deviceKind);
  const tests = ex.tests.filter(options.include);
  const performance = ex.performance.filter(options.include);
  const results: TestResult[] = [];
  let executor: Executor | undefined;
  let restarts = 0;
  let compile = { ok: true, log: "" };

  const finish = (r: TestResult) => {
    results.push(r);
    options.onTest?.(r);
  };
  const base = (t: KernelTest | PerformanceTest) => ({
    name: t.name, description: t.description, visibility: t.visibility, maxPoints: t.points,
  });
  const hintOf = (t: KernelTest | PerformanceTest) => (t.hint !== undefined ? ex.hints[t.hint] : undefined);

  // Starts (or restarts) the submission's process; a compile error ends grading.
  let compileFailure: SubmissionFailure | undefined;
  const hungKernels = new Set<string>();
  const ensure = async (): Promise<Executor | SubmissionFailure> => {
    if (compileFailure) return compileFailure;
    if (executor?.alive) return executor;
    if (executor) {
      await executor.close();
      if (restarts++ >= 2) return new SubmissionFailure("crash", "the submission's process died three times; the remaining tests were not run");
    }
    executor = options.executor();
    try {
      const kernels = await executor.start(devices, source);
      const missing = ex.kernels.filter((k) => !kernels.includes(k));
      if (missing.length > 0) {
        throw new SubmissionFailure("compile_error", `the submission must define the kernel${missing.length > 1 ? "s" : ""} ${missing.join(", ")} (it defines ${kernels.join(", ") || "none"})`);
      }
      return executor;
    } catch (e) {
      if (e instanceof SubmissionFailure) {
        if (e.verdict === "compile_error") {
          compile = { ok: false, log: e.log ?? e.message };
          compileFailure = e;
        }
        return e;
      }
      throw e;
    }
  };

  try {
    for (const test of tests) {
      const started = Date.now();
      const ready = await ensure();
      if (ready instanceof SubmissionFailure) {
        finish({ ...base(test), points: 0, verdict: ready.verdict, message: ready.message, hint: hintOf(test), ms: Date.now() - started });
        continue;
      }
      const seed = combineSeed(options.secret, ex.id, test.name);
      const made = madeCase(correctnessKey(ex, test, options.secret), () => test.make(seed, false));
      const { c, prepared } = made;
      const hung = c.launches.find((l) => hungKernels.has(l.kernel));
      if (hung) {
        // Running it again would only wait out the limit again.
        finish({ ...base(test), points: 0, verdict: "time_limit", message: `${c.label}: not run: kernel ${hung.kernel} already ran past the time limit`, hint: hintOf(test), ms: 0 });
        continue;
      }
      let cmp: Comparison;
      try {
        const out = await ready.run(index(test), prepared.buffers, prepared.payloads, prepared.launches, prepared.read);
        cmp = compareOutputs(c, prepared, out, { expected: made.expected() });
      } catch (e) {
        if (!(e instanceof SubmissionFailure)) throw e;
        cmp = { verdict: e.verdict, message: `${c.label}: ${e.message}`, wrong: [] };
        if (e.verdict === "time_limit") for (const l of c.launches) hungKernels.add(l.kernel);
      }
      const result: TestResult = { ...base(test), points: cmp.verdict === "passed" ? test.points : 0, verdict: cmp.verdict, message: cmp.message, ms: 0 };
      if (cmp.verdict !== "passed") {
        result.hint = hintOf(test);
        // A small case from a fresh seed, so the student sees a failure without seeing the test's data.
        if (cmp.verdict === "wrong_answer" || cmp.verdict === "nan") {
          const small = test.make(combineSeed(freshSecret(), ex.id, test.name), true);
          const smallPrepared = prepareCase(small);
          const again = await ensure();
          if (!(again instanceof SubmissionFailure)) {
            try {
              const smallCmp = compareOutputs(small, smallPrepared, await again.run(index(test), smallPrepared.buffers, smallPrepared.payloads, smallPrepared.launches, smallPrepared.read));
              if (smallCmp.verdict === "wrong_answer" || smallCmp.verdict === "nan") result.counterexample = counterexampleOf(small, smallPrepared, smallCmp);
            } catch (e) {
              if (!(e instanceof SubmissionFailure)) throw e;
            }
          }
        }
      }
      result.ms = Date.now() - started;
      finish(result);
    }

    for (const test of performance) {
      const started = Date.now();
      if (options.deviceKind !== "gpu" || options.copyCeilingGBs === undefined) {
        finish({ ...base(test), maxPoints: 0, points: 0, verdict: "not_run", message: "bandwidth is scored on a GPU only (the CPU emulator grades correctness)", ms: 0 });
        continue;
      }
      // A kernel that hung once would hold the GPU, which timed tests take in turn, for the whole limit again.
      const hung = timedCases(ex, test, options)[0].c.launches.find((l) => hungKernels.has(l.kernel));
      if (hung) {
        finish({ ...base(test), points: 0, verdict: "time_limit", message: `not run: kernel ${hung.kernel} already ran past the time limit`, hint: hintOf(test), ms: 0 });
        continue;
      }
      const ready = await ensure();
      if (ready instanceof SubmissionFailure) {
        finish({ ...base(test), points: 0, verdict: ready.verdict, message: ready.message, hint: hintOf(test), ms: Date.now() - started });
        continue;
      }
      finish(await timeTest(ex, test, ready, options));
    }
  } finally {
    await executor?.close();
  }
  return { tests: results, compile };
}

async function timeTest(ex: KernelExercise, test: PerformanceTest, executor: Executor, options: EngineOptions): Promise<TestResult> {
  const started = Date.now();
  const base = { name: test.name, description: test.description, visibility: test.visibility, maxPoints: test.points };
  const made = timedCases(ex, test, options);
  const sets = made.length;
  const cases = made.map((m) => m.c);
  const prepared = made.map((m) => m.prepared);
  // Only the timing itself has the GPU to itself; the transfers and checks around it do not need to.
  const exclusive = options.exclusive ?? (<T>(fn: () => Promise<T>) => fn());
  const fail = (verdict: Verdict, message: string): TestResult => ({ ...base, points: 0, verdict, message, ms: Date.now() - started,
    hint: test.hint !== undefined ? ex.hints[test.hint] : undefined });
  let times: number[];
  try {
    await executor.stage(0, prepared[0].buffers, prepared.flatMap((p) => p.payloads), sets);
    times = await exclusive(() => executor.time(0, prepared[0].launches, 3));
  } catch (e) {
    if (!(e instanceof SubmissionFailure)) throw e;
    return fail(e.verdict, `${cases[0].label}: ${e.message}`);
  }
  // The result is checked again after timing, on sets the submission cannot guess.
  const picks = [...new Set([sets - 1, randomBytes(1)[0] % sets])];
  for (const k of picks) {
    try {
      const cmp = compareOutputs(cases[k], prepared[k], await executor.read(0, k, prepared[k].read), { expected: made[k].expected(), sampled: true });
      if (cmp.verdict !== "passed") return fail(cmp.verdict, `timed iteration ${k + 1}: ${cmp.message}`);
    } catch (e) {
      if (!(e instanceof SubmissionFailure)) throw e;
      return fail(e.verdict, e.message);
    }
  }
  const sorted = [...times].sort((a, b) => a - b);
  const medianMs = sorted[Math.floor(sorted.length / 2)];
  const bytes = cases[0].bytes ?? 0;
  const gbs = bytes / medianMs / 1e6;
  const ceilingGBs = options.copyCeilingGBs!;
  const fraction = gbs / ceilingGBs;
  const bandwidth = { gbs, ceilingGBs, fraction, medianMs, bytes };
  if (fraction > 1.05) {
    return { ...fail("impossible", `${gbs.toFixed(0)} GB/s is ${(100 * fraction).toFixed(0)}% of the copy ceiling (${ceilingGBs.toFixed(0)} GB/s): not possible for a kernel that moves ${bytes} bytes, so not rewarded`), bandwidth };
  }
  const share = Math.max(0, Math.min(1, (fraction - test.zero) / (test.full - test.zero)));
  const points = Math.round(test.points * share * 100) / 100;
  return {
    ...base, points, verdict: share >= 1 ? "passed" : "partial", bandwidth, ms: Date.now() - started,
    message: `${cases[0].label}: ${gbs.toFixed(0)} GB/s, ${(100 * fraction).toFixed(0)}% of the copy ceiling (full points from ${(100 * test.full).toFixed(0)}%)`,
    hint: share < 1 && test.hint !== undefined ? ex.hints[test.hint] : undefined,
  };
}
