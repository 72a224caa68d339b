// What the package holds for a notebook to read: the source of the built-in
// kernels (a lesson shows the very code that runs, not a copy that could drift
// from it) and the committed benchmark results (numbers with their device, date
// and command, for a lesson run where that device is not).
import * as fs from "fs";
import * as path from "path";
import { ArgumentError, describe } from "./errors";
import { formatMs, textTable } from "./format";
import { packageRoot } from "./native";

function kernelsDir(): string {
  return path.join(packageRoot(), "kernels");
}

/** The kernel files (`elementwise.hip`, `norm.hip`, ...). */
export function kernelFiles(): string[] {
  return fs.readdirSync(kernelsDir()).filter((f) => f.endsWith(".hip")).sort();
}

/**
 * The definitions of `names` in the kernel file `file` (e.g. "norm.hip"), in
 * the order asked, each with the comment and `template <...>` lines just above
 * it; the whole file when no name is given. A name is a function, struct or
 * constant defined at the start of a line (after its return type).
 *
 * ```ts
 * console.log(fl.kernelSource("norm.hip", "warp_sum", "block_sum"));
 * ```
 */
export function kernelSource(file: string, ...names: string[]): string {
  const where = "fl.kernelSource";
  const files = kernelFiles();
  if (typeof file !== "string" || !files.includes(file)) {
    throw new ArgumentError(where, "file", `one of ${files.join(", ")}`, describe(file));
  }
  const text = fs.readFileSync(path.join(kernelsDir(), file), "utf8");
  if (names.length === 0) return text;
  const lines = text.split("\n");
  return names.map((name, i) => {
    if (typeof name !== "string" || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) {
      throw new ArgumentError(where, `names[${i}]`, "a C++ identifier", describe(name));
    }
    const start = lines.findIndex((line) => definesName(line, name));
    if (start < 0) throw new ArgumentError(where, `names[${i}]`, `a function, struct or constant defined in ${file}`, describe(name));
    return lines.slice(leadingStart(lines, start), definitionEnd(lines, start) + 1).join("\n");
  }).join("\n\n");
}

// A line at the file's or a namespace's top level that defines `name`: not indented,
// not a comment, and `name` followed by "(", "{", " =" or "<", or after struct.
function definesName(line: string, name: string): boolean {
  if (/^\s/.test(line) || line.startsWith("//") || line.startsWith("#")) return false;
  const escaped = name.replace(/[$]/g, "\\$&");
  return new RegExp(`(^|[\\s*&])${escaped}\\s*(\\(|\\{|=|<)`).test(line) ||
    new RegExp(`^(template\\s*<.*>\\s*)?struct\\s+${escaped}\\b`).test(line);
}

// The first line of the template header and comments directly above the definition.
function leadingStart(lines: string[], start: number): number {
  let first = start;
  while (first > 0 && /^(template\s*<|\/\/)/.test(lines[first - 1])) first--;
  return first;
}

// The line that closes the definition: braces balanced after the first "{", or the ";" of a declaration.
function definitionEnd(lines: string[], start: number): number {
  let depth = 0;
  let opened = false;
  for (let i = start; i < lines.length; i++) {
    const code = lines[i].replace(/\/\/.*$/, "");
    for (const ch of code) {
      if (ch === "{") { depth++; opened = true; } else if (ch === "}") depth--;
    }
    if (opened && depth === 0) return i;
    if (!opened && code.trimEnd().endsWith(";")) return i;
  }
  return lines.length - 1;
}

function resultsDir(): string {
  return path.join(packageRoot(), "bench", "results");
}

/** A committed results file (bench/results/*.json), parsed, with its file name. */
export interface CommittedResults {
  /** The file name, e.g. "nvidia-h100-80gb-hbm3-2026-11-21.json". */
  file: string;
  /** The device as the run described it: `{ describe, backend, kind, props: { name, ... } }`. */
  device: { describe: string; backend: string; kind: string; props: Record<string, unknown> & { name: string } };
  /** When the run was made (ISO 8601) and the command that made it. */
  date: string;
  command: string;
  [key: string]: unknown;
}

/** The names of the committed results files (bench/results/*.json), sorted. */
export function resultsFiles(): string[] {
  if (!fs.existsSync(resultsDir())) return [];
  return fs.readdirSync(resultsDir()).filter((f) => f.endsWith(".json")).sort();
}

/**
 * The newest committed results file whose name starts with `prefix` (e.g.
 * "nvidia-h100", "kernel-stats-nvidia-h100"), parsed; undefined when there is none.
 * Files are named <what>-<YYYY-MM-DD>.json, so the newest sorts last.
 */
export function committedResults(prefix: string): CommittedResults | undefined {
  const where = "fl.committedResults";
  if (typeof prefix !== "string" || prefix === "") {
    throw new ArgumentError(where, "prefix", "the start of a results file name, e.g. \"nvidia-h100\"", describe(prefix));
  }
  const matching = resultsFiles().filter((f) => f.startsWith(prefix) && /-\d{4}-\d{2}-\d{2}\.json$/.test(f));
  const file = matching[matching.length - 1];
  if (file === undefined) return undefined;
  const parsed = JSON.parse(fs.readFileSync(path.join(resultsDir(), file), "utf8")) as CommittedResults;
  return { ...parsed, file };
}

/** One fused op of a committed `npm run bench` run, against its unfused chain. */
export interface CommittedBenchRow {
  op: string;
  dtype: string;
  shape: number[];
  /** Launches of the unfused chain and of the fused op. */
  unfusedLaunches: number;
  fusedLaunches: number;
  unfusedMs: number;
  fusedMs: number;
  /** unfused bytes / fused bytes (the traffic model), and unfused median / fused median (measured). */
  byteRatio: number;
  speedup: number;
  fusedPctOfCopy: number;
  /** PyTorch eager and torch.compile on the same case, same GPU, same run (`npm run bench -- --vs torch`). */
  torchEagerMs?: number;
  torchCompileMs?: number;
}

/** The fused-op rows of a committed bench run, labelled with where they were measured. */
export class CommittedBench {
  constructor(readonly file: string, readonly deviceName: string, readonly date: string, readonly command: string,
              readonly copyCeilingGBs: number, readonly rows: CommittedBenchRow[]) {}

  /** A label for every number shown from it: device, file, date and command. */
  label(): string {
    return `measured on ${this.deviceName} (${this.file}, ${this.date.slice(0, 10)}, command: ${this.command})`;
  }

  /** The row of `op` in `dtype`. */
  row(op: string, dtype = "f32"): CommittedBenchRow {
    const found = this.rows.find((r) => r.op === op && r.dtype === dtype);
    if (!found) {
      throw new ArgumentError("committedBench.row", "op", `one of ${[...new Set(this.rows.map((r) => r.op))].join(", ")} in ${dtype}`, describe(op));
    }
    return found;
  }

  /** The label, then a table: launches, times, byte ratio, measured speed-up, % of copy. */
  toString(): string {
    const header = ["op", "dtype", "shape", "launches", "unfused ms", "fused ms", "byte ratio", "speed-up", "fused % of copy"];
    const body = this.rows.map((r) => [
      r.op, r.dtype, r.shape.join("x"), `${r.unfusedLaunches} -> ${r.fusedLaunches}`, formatMs(r.unfusedMs), formatMs(r.fusedMs),
      `${r.byteRatio.toFixed(2)}x`, `${r.speedup.toFixed(2)}x`, `${r.fusedPctOfCopy.toFixed(1)}%`,
    ]);
    return `${this.label()}; copy ceiling ${this.copyCeilingGBs.toFixed(0)} GB/s\n${textTable([header, ...body], 3)}`;
  }
}

interface BenchCaseJson { medianMs: number; launches: number; pctOfCopy: number }
interface BenchRowJson {
  op: string; dtype: string; shape: number[]; unfused: BenchCaseJson; fused: BenchCaseJson; speedup: number; byteRatio: number;
  torch?: { eagerMs: number; compileMs: number } | { error: string };
}

/**
 * The newest committed `npm run bench` run on a device whose file name starts
 * with `prefix` (e.g. "nvidia-h100"), reduced to the fused ops named in `ops`
 * with their labelled examples, "biasGelu (tanh)" with "biasGelu" (every op when
 * left out); undefined when no such run is committed.
 */
export function committedBench(prefix: string, ops?: readonly string[]): CommittedBench | undefined {
  const run = committedResults(prefix);
  if (run === undefined) return undefined;
  const results = run.results as BenchRowJson[] | undefined;
  const ceiling = run.copyCeiling as { gbs: number } | undefined;
  if (!Array.isArray(results) || ceiling === undefined) {
    throw new ArgumentError("fl.committedBench", "prefix", "the prefix of an 'npm run bench' results file", `${run.file}, which is not one`);
  }
  // A labelled example ("biasGelu (tanh)") belongs to its op.
  const rows = results.filter((r) => ops === undefined || ops.includes(r.op.replace(/ \(.*\)$/, ""))).map((r) => ({
    op: r.op, dtype: r.dtype, shape: r.shape,
    unfusedLaunches: r.unfused.launches, fusedLaunches: r.fused.launches,
    unfusedMs: r.unfused.medianMs, fusedMs: r.fused.medianMs,
    byteRatio: r.byteRatio, speedup: r.speedup, fusedPctOfCopy: r.fused.pctOfCopy,
    ...(r.torch && !("error" in r.torch) ? { torchEagerMs: r.torch.eagerMs, torchCompileMs: r.torch.compileMs } : {}),
  }));
  return new CommittedBench(run.file, run.device.props.name, run.date, run.command, ceiling.gbs, rows);
}
