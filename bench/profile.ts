// The profiler's side of the bench: bench/ncu.sh runs each case below under
// Nsight Compute, fuselab's fused op and then torch.compile's version of it,
// and this file makes the case and reports what ncu read.
//
//   node dist/bench/profile.js case "<op> <dtype>" --out DIR [--rows R --cols C]
//     makes the bench's case (the shape of `npm run bench`, the same inputs),
//     launches the fused op once and writes DIR/case.json: its launches (the
//     last kernels ncu profiled in this process) and the PyTorch spec of the
//     same case, which bench/torch/profile_torch.py runs.
//   node dist/bench/profile.js report DIR --out FILE.md
//     reads each case folder's case.json, fuselab.csv and torch.csv (ncu's raw
//     CSV) and writes one table: time, DRAM throughput, occupancy, issue rate
//     and the largest stalls of every kernel.
import * as fs from "fs";
import * as path from "path";
import * as fl from "../src";
import { formatMs, markdownTable } from "../src/format";
import { Inputs, PAIRS } from "./cases";
import { TorchCase, specArgument } from "./vs-torch";

const USAGE = "usage: node dist/bench/profile.js case \"<op> <dtype>\" --out DIR [--rows R --cols C] | report DIR --out FILE.md";
const GPU_SHAPE = { rows: 32768, cols: 4096 };
const DTYPES = ["f32", "bf16"] as const;
type FloatDType = (typeof DTYPES)[number];

/** What `case` writes for the report and for profile_torch.py. */
interface CaseRecord {
  id: string;
  device: string;
  shape: [number, number];
  /** The fused op's launches: the last this many kernels ncu profiled in the case's process. */
  launches: number;
  kernels: string[];
  bytesRead: number;
  bytesWritten: number;
  /** bench_torch.py's spec format, one case. */
  spec: { warmup: number; iters: number; cases: TorchCase[] };
}

function options(argv: string[]): Map<string, string> {
  const parsed = new Map<string, string>();
  for (let i = 0; i < argv.length; i += 2) {
    if (!argv[i].startsWith("--") || argv[i + 1] === undefined) throw new Error(`${argv[i]}: expected --name value\n${USAGE}`);
    parsed.set(argv[i].slice(2), argv[i + 1]);
  }
  return parsed;
}

function positiveInteger(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new Error(`--${name} must be a positive integer, got ${JSON.stringify(value)}\n${USAGE}`);
  return n;
}

async function runCase(id: string, argv: string[]): Promise<void> {
  const o = options(argv);
  const out = o.get("out");
  if (!out) throw new Error(`case: --out DIR is required\n${USAGE}`);
  const space = id.lastIndexOf(" ");
  const [label, dtype] = [id.slice(0, space), id.slice(space + 1)];
  if (!(DTYPES as readonly string[]).includes(dtype)) throw new Error(`case ${JSON.stringify(id)}: the dtype must be one of ${DTYPES.join(", ")}, got ${JSON.stringify(dtype)}`);
  const pair = PAIRS.find((p) => p.op === label);
  if (!pair) throw new Error(`case ${JSON.stringify(id)}: no bench case ${JSON.stringify(label)} (there are ${PAIRS.map((p) => JSON.stringify(p.op)).join(", ")})`);
  const rows = positiveInteger("rows", o.get("rows"), GPU_SHAPE.rows);
  const cols = positiveInteger("cols", o.get("cols"), GPU_SHAPE.cols);
  const dev = fl.device();
  const inputs = new Inputs({ dtype: dtype as FloatDType, device: dev });
  const args = pair.example.args(inputs.maker(), rows, cols, dtype as FloatDType);
  await dev.synchronize();
  const ledger = fl.traffic(() => (pair.declaration.fused as (...a: unknown[]) => unknown)(...args));
  await dev.synchronize();
  const record: CaseRecord = {
    id, device: dev.name, shape: [rows, cols], launches: ledger.launches,
    kernels: ledger.records.map((r) => r.kernel.name), bytesRead: ledger.bytesRead, bytesWritten: ledger.bytesWritten,
    spec: { warmup: 10, iters: 1, cases: [{ id, op: pair.declaration.name, dtype, args: args.map(specArgument), flushL2: true }] },
  };
  fs.mkdirSync(out, { recursive: true });
  fs.writeFileSync(path.join(out, "case.json"), JSON.stringify(record, null, 2) + "\n");
  inputs.dispose();
  console.log(`${id}: ${record.launches} launch(es) of ${record.kernels.join(", ")} on ${dev.name}`);
}

// ---- the report ----------------------------------------------------------------

/** One kernel as ncu's raw CSV gives it: metric name -> value as printed. */
type KernelRow = Map<string, string>;

/** The rows of an ncu `--csv --page raw` log (its header, a units line, a row a kernel; ncu's own lines skipped). */
function readNcuCsv(file: string): KernelRow[] {
  if (!fs.existsSync(file)) return [];
  const lines = fs.readFileSync(file, "utf8").split("\n").filter((l) => l.startsWith("\""));
  const cells = (line: string) => [...line.matchAll(/"((?:[^"]|"")*)"/g)].map((m) => m[1].replace(/""/g, "\""));
  if (lines.length < 2) return [];
  const header = cells(lines[0]);
  return lines.slice(2).map((l) => new Map(cells(l).map((v, i) => [header[i], v])));
}

const number = (row: KernelRow, metric: string): number => Number((row.get(metric) ?? "").replace(/,/g, ""));
const fixed = (value: number, digits: number): string => (Number.isFinite(value) ? value.toFixed(digits) : "-");

// The stall reasons worth a column: a warp waiting on memory (long
// scoreboard), on the memory pipes' queues (lg throttle), at a barrier, on the
// math pipes, or on a short-latency dependency (shared memory, MUFU).
const STALLS: [string, string][] = [
  ["long scoreboard", "long_scoreboard"], ["lg throttle", "lg_throttle"], ["barrier", "barrier"],
  ["math throttle", "math_pipe_throttle"], ["short scoreboard", "short_scoreboard"], ["wait", "wait"],
];
const stallMetric = (key: string) => `smsp__average_warps_issue_stalled_${key}_per_issue_active.ratio`;

function topStalls(row: KernelRow): string {
  return STALLS.map(([name, key]) => [name, number(row, stallMetric(key))] as [string, number])
    .filter(([, v]) => Number.isFinite(v)).sort((a, b) => b[1] - a[1]).slice(0, 2)
    .map(([name, v]) => `${name} ${v.toFixed(2)}`).join(", ");
}

function kernelCells(side: string, row: KernelRow): string[] {
  const ms = number(row, "gpu__time_duration.sum") / 1e6;  // ns
  const dramBytes = number(row, "dram__bytes_read.sum") + number(row, "dram__bytes_write.sum");
  // "void fl::elementwise::k<__nv_bfloat16, true>(T1 *, ...)" -> "k<__nv_bfloat16, true>"
  const name = (row.get("Kernel Name") ?? "?").replace(/^void /, "").replace(/\(.*$/, "").replace(/\b\w+::/g, "");
  return [
    side, `\`${name}\``, formatMs(ms), fixed(dramBytes / 1e6, 1), fixed(dramBytes / ms / 1e6, 0),
    fixed(number(row, "dram__throughput.avg.pct_of_peak_sustained_elapsed"), 1),
    `${row.get("launch__grid_size") ?? "-"} x ${row.get("launch__block_size") ?? "-"}`,
    row.get("launch__registers_per_thread") ?? "-",
    `${fixed(number(row, "sm__maximum_warps_per_active_cycle_pct"), 0)} / ${fixed(number(row, "sm__warps_active.avg.pct_of_peak_sustained_active"), 0)}`,
    fixed(number(row, "smsp__issue_active.avg.pct_of_peak_sustained_active"), 1),
    fixed(number(row, "lts__t_sector_hit_rate.pct"), 1),
    topStalls(row),
  ];
}

function report(dir: string, argv: string[]): void {
  const out = options(argv).get("out");
  if (!out) throw new Error(`report: --out FILE.md is required\n${USAGE}`);
  const cases = fs.readdirSync(dir).filter((d) => fs.existsSync(path.join(dir, d, "case.json"))).sort();
  if (cases.length === 0) throw new Error(`report: no case folders (with case.json) under ${dir}`);
  const header = ["case", "side", "kernel", "ms (ncu)", "DRAM MB", "DRAM GB/s", "DRAM % of peak", "grid x block", "registers",
    "occupancy % (limit / achieved)", "issue active %", "L2 hit %", "largest stalls (warps per issue)"];
  const rows: string[][] = [];
  let device = "";
  for (const c of cases) {
    const record = JSON.parse(fs.readFileSync(path.join(dir, c, "case.json"), "utf8")) as CaseRecord;
    device = record.device;
    const fused = readNcuCsv(path.join(dir, c, "fuselab.csv")).slice(-record.launches);
    const torch = readNcuCsv(path.join(dir, c, "torch.csv"));
    const modelMb = `${((record.bytesRead + record.bytesWritten) / 1e6).toFixed(1)} MB modelled`;
    if (fused.length === 0) rows.push([record.id, "fuselab", "(no ncu rows)", "-", modelMb, ...Array(8).fill("-")]);
    fused.forEach((r) => rows.push([`${record.id} (${modelMb})`, ...kernelCells("fuselab", r)]));
    torch.forEach((r) => rows.push([record.id, ...kernelCells("torch.compile", r)]));
  }
  const text = [
    `# Nsight Compute: the bench's cases on ${device}`,
    "",
    `- command: \`bash bench/ncu.sh OUT_DIR <cases>\` (each case's fused op launched once after its inputs are made; ` +
      "torch.compile's version after 10 warm-up calls, between cudaProfilerStart and Stop), ncu with `--clock-control none` " +
      "and its default cache control (caches flushed before each kernel, as the bench flushes L2)",
    "- DRAM MB: bytes ncu counted to and from DRAM; the case's own row names the bytes its traffic model counts. " +
      "Occupancy: the warps a multiprocessor can hold for this launch (registers, shared memory, block size) and what it held on average. " +
      "Issue active: the cycles in which a scheduler issued. Stalls: warps waiting for each reason per issued instruction.",
    "",
    markdownTable([header.slice(), ...rows], 3),
    "",
  ].join("\n");
  fs.writeFileSync(out, text);
  console.log(`wrote ${out}`);
}

async function main(): Promise<void> {
  const [command, target, ...rest] = process.argv.slice(2);
  if (command === "case" && target) await runCase(target, rest);
  else if (command === "report" && target) report(target, rest);
  else throw new Error(USAGE);
}

main().catch((e: Error) => {
  console.error(e.message);
  process.exit(1);
});
