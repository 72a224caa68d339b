// Benchmarking. `bench()` runs each case once while capturing the launches it
// makes and the bytes its ops move (the traffic model), then replays exactly those
// launches on the device, timed with events off the main thread: the numbers are
// the kernels' own, without the TypeScript that chose and checked them.
import { inspect } from "util";
import { ArgumentError, checkOptionsObject, describe } from "./errors";
import { Device, checkDevice } from "./device";
import { formatMs, markdownTable, textTable } from "./format";
import { LaunchRecord, PreparedLaunch } from "./kernel";
import { builtins } from "./module";
import { BufferHandle, native, nativeAsync, nativeCall } from "./native";
import { Tensor, empty, tensorCount } from "./tensor";
import type { DType } from "./dtype";
import { inspectRich } from "./tslab";
import { Ledger, trafficAs } from "./traffic";

/** A case: a function that launches work (ops, fused ops, compiled kernels) and returns anything. */
export type BenchCase = () => unknown;

/** How `bench()` times. */
export interface BenchOptions {
  /** Untimed iterations before the timed ones; 10, or fewer when an iteration is long. */
  warmup?: number;
  /** Timed iterations; 50, or fewer so that the timed ones take about `targetMs`. */
  iters?: number;
  /** The time the timed iterations of one case should take when `iters` is left out (1000 ms). */
  targetMs?: number;
  /**
   * Evict the L2 cache before every iteration (a fill over twice its size, outside
   * the timed span). Left out: flushed when the case's tensors are not much larger
   * than L2 (under 8x), where a warm L2 would flatter the result.
   */
  flushL2?: boolean;
  /** The device's copy ceiling in GB/s (from `copyCeiling()`): results then report `pctOfCopy`. */
  copyCeilingGBs?: number;
}

/** The timing of one case. */
export interface BenchResult {
  name: string;
  /** The device the case ran on, as `device.describe()` names it. */
  device: string;
  medianMs: number;
  minMs: number;
  /** 20th and 80th percentiles: the spread of the middle 60% of iterations. */
  p20Ms: number;
  p80Ms: number;
  /** Timed iterations (warm-up excluded), and every one's time in order. */
  iters: number;
  samplesMs: number[];
  warmup: number;
  /** Bytes the traffic model says the case's launches must move (0 for kernels with no model, e.g. compiled ones). */
  bytesRead: number;
  bytesWritten: number;
  /** Kernel launches in one iteration. */
  launches: number;
  /** (bytesRead + bytesWritten) / medianMs, in GB/s (10^9 bytes); NaN when the case has no traffic model. */
  gbps: number;
  /** gbps as a percentage of `options.copyCeilingGBs`, when it was given. */
  pctOfCopy?: number;
  /** Whether L2 was flushed before each iteration. */
  l2Flushed: boolean;
}

/** Results of `bench()`, one per case in the order given, with comparisons and tables. */
export class BenchResults extends Array<BenchResult> {
  // map(), filter() and slice() return plain arrays: these methods need whole results.
  static get [Symbol.species](): ArrayConstructor {
    return Array;
  }

  /** The result of the case `name`. */
  get(name: string): BenchResult {
    const found = this.find((r) => r.name === name);
    if (!found) throw new ArgumentError("results.get", "name", `one of ${this.names()}`, describe(name));
    return found;
  }

  /** How many times faster each case is than `baseline` (baseline's median time / the case's). */
  speedupVs(baseline: string): Record<string, number> {
    const base = this.find((r) => r.name === baseline);
    if (!base) throw new ArgumentError("results.speedupVs", "baseline", `one of ${this.names()}`, describe(baseline));
    return Object.fromEntries(this.map((r) => [r.name, base.medianMs / r.medianMs]));
  }

  /** An aligned text table; the last column compares each case with the first. */
  toString(): string {
    return textTable(this.tableRows(), 1);
  }

  /** What console.log shows: the text table; as a notebook cell's last expression, the table in HTML. */
  [inspect.custom](): string {
    return inspectRich(this, () => this.toString());
  }

  /** The same table in Markdown. */
  toMarkdown(): string {
    return markdownTable(this.tableRows(), 1);
  }

  private names(): string {
    return this.map((r) => JSON.stringify(r.name)).join(", ");
  }

  /** @internal The table's cells, the header row first. */
  tableRows(): string[][] {
    const withCopy = this.some((r) => r.pctOfCopy !== undefined);
    const first = this[0];
    const header = ["case", "launches", "MB moved", "median ms", "p20-p80 ms", "GB/s"];
    if (withCopy) header.push("% of copy");
    if (this.length > 1) header.push(`x vs ${first.name}`);
    const rows = this.map((r) => {
      const row = [
        r.name,
        String(r.launches),
        r.bytesRead + r.bytesWritten > 0 ? ((r.bytesRead + r.bytesWritten) / 1e6).toFixed(1) : "-",
        formatMs(r.medianMs),
        `${formatMs(r.p20Ms)}-${formatMs(r.p80Ms)}`,
        Number.isNaN(r.gbps) ? "-" : r.gbps.toFixed(1),
      ];
      if (withCopy) row.push(r.pctOfCopy === undefined ? "-" : `${r.pctOfCopy.toFixed(1)}%`);
      if (this.length > 1) row.push(`${(first.medianMs / r.medianMs).toFixed(2)}x`);
      return row;
    });
    return [header, ...rows];
  }
}

const DEFAULT_WARMUP = 10;
const DEFAULT_ITERS = 50;
const DEFAULT_TARGET_MS = 1000;
// Fewer timed iterations than this make the percentiles meaningless.
const MIN_AUTO_ITERS = 3;
// Warm-up gets a quarter of the target time when iterations are long.
const WARMUP_SHARE = 0.25;
// Tensors this many times larger than L2 leave too little of themselves in it to matter.
const L2_FLUSH_BELOW = 8;
// Assumed L2 size where a backend does not report one.
const UNKNOWN_L2_BYTES = 64 * 2 ** 20;

/** One launch seen while a case ran, and the launch packed for replay. */
interface CapturedLaunch {
  record: LaunchRecord;
  prepared: PreparedLaunch;
}

/** What one run of a case did. */
interface Capture {
  device: Device;
  launches: CapturedLaunch[];
  ledger: Ledger;
  /** Every distinct tensor the launches use. */
  tensors: Tensor<DType>[];
  /** Those the case made itself (its outputs and intermediates), freed after timing. */
  made: Tensor<DType>[];
  /** Tensors that existed before the case and that its launches write: restored after the replays. */
  written: Tensor<DType>[];
}

/**
 * Times each case: runs it once, capturing every kernel launch it makes and the
 * traffic its ops record, then replays those launches `warmup + iters` times on
 * the device (events around each iteration, off the main thread) and reports the
 * median, min, 20th and 80th percentile times, and GB/s from the traffic model.
 *
 * A case must launch synchronously (no await inside) and keep alive every tensor
 * its launches use. Tensors the case made (outputs, intermediates) are disposed
 * once it is timed; tensors it was given and that its kernels write in place (as
 * `fused.addRmsNorm` writes its residual) are restored afterwards, so they hold
 * what one run of the case left there.
 *
 * ```ts
 * const r = await fl.bench({
 *   unfused: () => fl.ops.rmsNorm(fl.ops.add(x, res), w),
 *   fused: () => fl.fused.addRmsNorm(x, res, w),
 * });
 * console.log(r.toString(), r.speedupVs("unfused").fused);
 * ```
 */
export function bench(cases: Record<string, BenchCase>, options?: BenchOptions): Promise<BenchResults> {
  return benchAs("fl.bench", cases, options);
}

/** @internal bench(), with argument errors worded for the public function that called it. */
export async function benchAs(where: string, cases: unknown, options: unknown): Promise<BenchResults> {
  const entries = checkCases(where, cases);
  const o = checkBenchOptions(where, options);
  const results = new BenchResults();
  for (const [name, fn] of entries) {
    const captured = capture(where, name, fn);
    try {
      results.push(await timeCapture(name, captured, o));
    } finally {
      release(captured);
    }
  }
  return results;
}

function checkCases(where: string, cases: unknown): [string, BenchCase][] {
  const expected = "an object of functions, e.g. { unfused: () => ..., fused: () => ... }";
  if (typeof cases !== "object" || cases === null || Array.isArray(cases)) throw new ArgumentError(where, "cases", expected, describe(cases));
  const entries = Object.entries(cases as Record<string, unknown>);
  if (entries.length === 0) throw new ArgumentError(where, "cases", expected, "an empty object");
  for (const [name, fn] of entries) {
    if (typeof fn !== "function") throw new ArgumentError(where, `cases.${name}`, "a function that launches work", describe(fn));
  }
  return entries as [string, BenchCase][];
}

interface CheckedOptions {
  warmup?: number;
  iters?: number;
  targetMs: number;
  flushL2?: boolean;
  copyCeilingGBs?: number;
}

function checkBenchOptions(where: string, options: unknown): CheckedOptions {
  const o = checkOptionsObject(where, options, ["warmup", "iters", "targetMs", "flushL2", "copyCeilingGBs"]);
  const integer = (key: string, min: number): number | undefined => {
    const v = o[key];
    if (v === undefined) return undefined;
    if (typeof v !== "number" || !Number.isInteger(v) || v < min || v > 1e6) {
      throw new ArgumentError(where, `options.${key}`, `an integer from ${min} to 1000000`, describe(v));
    }
    return v;
  };
  const positive = (key: string): number | undefined => {
    const v = o[key];
    if (v === undefined) return undefined;
    if (typeof v !== "number" || !Number.isFinite(v) || v <= 0) throw new ArgumentError(where, `options.${key}`, "a finite number > 0", describe(v));
    return v;
  };
  if (o.flushL2 !== undefined && typeof o.flushL2 !== "boolean") throw new ArgumentError(where, "options.flushL2", "a boolean", describe(o.flushL2));
  return {
    warmup: integer("warmup", 0),
    iters: integer("iters", 1),
    targetMs: positive("targetMs") ?? DEFAULT_TARGET_MS,
    flushL2: o.flushL2 as boolean | undefined,
    copyCeilingGBs: positive("copyCeilingGBs"),
  };
}

// Runs the case once inside a ledger, whose launch records are then packed for replay.
function capture(where: string, name: string, fn: BenchCase): Capture {
  const lastBefore = tensorCount();
  const ledger = trafficAs(where, `cases.${name}`, fn);
  const records = ledger.records;
  // Views count as their tensors: what a case made, keeps alive and writes is tensors.
  const tensors = [...new Set(records.flatMap((r) => r.kernel.tensorsOf(r.args).map((t) => t.tensor)))];
  const made = tensors.filter((t) => t.serial > lastBefore);
  const refuse = (expected: string, received: string): never => {
    for (const t of made) t.dispose();
    throw new ArgumentError(where, `cases.${name}`, expected, received);
  };
  if (records.length === 0) refuse("a function that launches at least one kernel", "a function that launched none");
  const devices = [...new Set(records.map((r) => r.kernel.device))];
  if (devices.length > 1) {
    refuse("a function whose launches all run on one device", `launches on ${devices.map((d) => d.describe()).join(" and ")}`);
  }
  const disposed = tensors.find((t) => t.disposed);
  if (disposed) {
    refuse("a function that keeps alive every tensor its launches use (they are replayed)", `a function that disposed ${disposed.describe()}`);
  }
  const launches = records.map((record) => ({
    record, prepared: record.kernel.prepare({ grid: record.grid, block: record.block, sharedBytes: record.sharedBytes }, ...record.args),
  }));
  // Tensors that existed before the case and that its kernels write: restored after the replays.
  const written = new Set<Tensor<DType>>();
  for (const { kernel, args } of records) {
    for (const { tensor, writable } of kernel.tensorsOf(args)) if (writable && tensor.serial <= lastBefore) written.add(tensor);
  }
  return { device: devices[0], launches, ledger, tensors, made, written: [...written] };
}

// Frees what the case made; the prepared launches go with their last reference.
function release(captured: Capture): void {
  for (const t of captured.made) t.dispose();
}

async function timeCapture(name: string, captured: Capture, o: CheckedOptions): Promise<BenchResult> {
  const dev = captured.device;
  const steps = captured.launches.map((l) => l.prepared.handle);
  const l2 = dev.props.l2Bytes > 0 ? dev.props.l2Bytes : UNKNOWN_L2_BYTES;
  const workingSet = captured.tensors.reduce((sum, t) => sum + t.bytes, 0);
  const flushL2 = o.flushL2 ?? workingSet < L2_FLUSH_BELOW * l2;
  const scratch: BufferHandle[] = [];
  const allocate = (bytes: number) => {
    const buffer = nativeCall(() => native().alloc(dev.handle, bytes));
    scratch.push(buffer);
    return buffer;
  };
  try {
    const flush = flushL2 ? allocate(2 * l2) : undefined;
    const saved = captured.written.map((t) => {
      const copy = allocate(t.bytes);
      nativeCall(() => native().copy(copy, t.handle("fl.bench"), t.bytes));
      return copy;
    });
    const run = (warmup: number, iters: number) =>
      nativeAsync(() => native().bench(dev.handle, steps, { warmup, iters, flush }));
    let warmup = o.warmup;
    let iters = o.iters;
    if (warmup === undefined || iters === undefined) {
      // One untimed-for-the-result iteration sizes the run to the time target.
      const [once] = await run(0, 1);
      const perIteration = Math.max(once, 1e-6);
      warmup ??= Math.min(DEFAULT_WARMUP, Math.max(1, Math.floor((WARMUP_SHARE * o.targetMs) / perIteration)));
      iters ??= Math.min(DEFAULT_ITERS, Math.max(MIN_AUTO_ITERS, Math.floor(o.targetMs / perIteration)));
    }
    const samples = Array.from(await run(warmup, iters));
    captured.written.forEach((t, i) => nativeCall(() => native().copy(t.handle("fl.bench"), saved[i], t.bytes)));
    await dev.synchronize();
    return summarise(name, dev, samples, warmup, captured, flushL2, o.copyCeilingGBs);
  } finally {
    for (const buffer of scratch) native().release(buffer);
  }
}

function summarise(name: string, dev: Device, samples: number[], warmup: number, captured: Capture,
                   l2Flushed: boolean, copyCeilingGBs: number | undefined): BenchResult {
  const sorted = [...samples].sort((a, b) => a - b);
  const medianMs = percentile(sorted, 0.5);
  const { bytesRead, bytesWritten } = captured.ledger;
  const bytes = bytesRead + bytesWritten;
  const gbps = bytes > 0 ? bytes / medianMs / 1e6 : NaN;
  const result: BenchResult = {
    name, device: dev.describe(),
    medianMs, minMs: sorted[0], p20Ms: percentile(sorted, 0.2), p80Ms: percentile(sorted, 0.8),
    iters: samples.length, samplesMs: samples, warmup,
    bytesRead, bytesWritten, launches: captured.launches.length,
    gbps, l2Flushed,
  };
  if (copyCeilingGBs !== undefined && bytes > 0) result.pctOfCopy = (100 * gbps) / copyCeilingGBs;
  return result;
}

/** The p-quantile (0..1) of sorted values, interpolated linearly between neighbours. */
export function percentile(sorted: readonly number[], p: number): number {
  const position = p * (sorted.length - 1);
  const below = Math.floor(position);
  const above = Math.min(below + 1, sorted.length - 1);
  return sorted[below] + (sorted[above] - sorted[below]) * (position - below);
}

// One float4 a thread (see kernels/copy.hip for why).
const COPY_BLOCK_THREADS = 256;

/** The fastest a device copies memory: what a memory-bound kernel is measured against. */
export interface CopyCeiling {
  /** The device, as `device.describe()` names it. */
  device: string;
  /** Bytes copied per iteration (as many again are read). */
  bytes: number;
  medianMs: number;
  /** Bytes read plus bytes written over the median time, in GB/s (10^9 bytes). */
  gbs: number;
  iters: number;
}

/** Options of `copyCeiling()`. */
export interface CopyCeilingOptions {
  /** The device to measure; the default device when left out. */
  device?: Device;
  /** Bytes to copy, a multiple of 16: 1 GiB when left out (far larger than any L2). */
  bytes?: number;
  warmup?: number;
  iters?: number;
}

/**
 * Measures the device's copy ceiling: a float4 copy, one float4 a thread (kernel
 * `copy_f32x4`, kernels/copy.hip), of `bytes` into another buffer, timed as
 * `bench()` times; GB/s counts the bytes read and the bytes written.
 */
export async function copyCeiling(options?: CopyCeilingOptions): Promise<CopyCeiling> {
  const where = "fl.copyCeiling";
  const o = checkOptionsObject(where, options, ["device", "bytes", "warmup", "iters"]);
  const { device: given, bytes = 2 ** 30, warmup, iters } = o;
  const dev = checkDevice(where, given);
  if (typeof bytes !== "number" || !Number.isSafeInteger(bytes) || bytes < 16 || bytes % 16 !== 0) {
    throw new ArgumentError(where, "options.bytes", "a positive multiple of 16 (whole float4s)", describe(bytes));
  }
  const memory = dev.props.totalMemory;
  if (memory > 0 && 2 * bytes > memory) {
    throw new ArgumentError(where, "options.bytes", `at most half the memory of ${dev.describe()} (${memory} bytes): a source and a destination`, String(bytes));
  }
  const kernel = builtins(dev).fn("copy_f32x4");
  const elements = bytes / 4;
  const results = await benchAs(where, {
    copy: () => {
      // Made inside the case, so that bench() frees them once timed.
      const source = empty([elements], { dtype: "f32", device: dev });
      const destination = empty([elements], { dtype: "f32", device: dev });
      const grid = Math.min(Math.ceil(elements / 4 / COPY_BLOCK_THREADS), dev.props.maxGridDim[0]);
      kernel.launchAs({ op: "copyCeiling", bytesRead: bytes, bytesWritten: bytes }, { grid, block: COPY_BLOCK_THREADS },
        [destination, source, elements]);
    },
  }, { warmup, iters });
  const r = results[0];
  return { device: r.device, bytes, medianMs: r.medianMs, gbs: r.gbps, iters: r.iters };
}
