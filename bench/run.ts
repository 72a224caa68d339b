// npm run bench [-- --rows R --cols C --ops A,B --out DIR --vs torch --python PATH --torch-budget S]
//
// On the default device (FUSELAB_DEVICE respected): the copy ceiling, then each
// fused op against its unfused chain in f32 and bf16: median time, GB/s from the
// traffic model, % of the copy ceiling, and the measured speedup beside the one
// the traffic model predicts (unfused bytes / fused bytes). With `--vs torch`,
// PyTorch eager and torch.compile then run the same ops, shapes and dtypes on
// the same GPU (bench/torch/bench_torch.py, with `--python`, default python3),
// beside fuselab's columns: "fused vs compile" is torch.compile's median over
// fuselab's fused median (above 1.00x: fuselab is faster); no PyTorch case
// starts after --torch-budget seconds (default 1200: torch.compile compiles every
// case). Writes bench/results/<device>-<date>.json and .md (first with fuselab's
// columns, again with PyTorch's), and prints the table last. `--ops` keeps the
// fused ops named (softmax,qkNormRope), every example of each.
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import * as fl from "../src";
import { formatMs, markdownTable } from "../src/format";
import { PAIRS, Inputs } from "./cases";
import { slug } from "./naming";
import { TorchCase, TorchRun, TorchTiming, runTorch, specArgument } from "./vs-torch";

type FloatDType = "f32" | "bf16";
const DTYPES: FloatDType[] = ["f32", "bf16"];
const GPU_SHAPE = { rows: 32768, cols: 4096 };
// The emulator runs the same kernels some 1000x slower: a shape it times in seconds.
const CPU_SHAPE = { rows: 256, cols: 4096 };
const GPU_COPY_BYTES = 2 ** 30;
const CPU_COPY_BYTES = 2 ** 26;
// The target: a fused op runs at 90% of the copy ceiling or better.
const TARGET_PCT_OF_COPY = 90;

interface Arguments {
  rows?: number;
  cols?: number;
  out: string;
  vsTorch: boolean;
  python: string;
  torchBudgetS: number;
  /** The fused ops to time, by name: all when absent. */
  ops?: string[];
}

const USAGE = "usage: npm run bench [-- --rows R --cols C --ops A,B --out DIR --vs torch --python PATH --torch-budget S]";
// PyTorch's iterations (fuselab's bench() defaults).
const TORCH_WARMUP = 10;
const TORCH_ITERS = 50;

function parseArguments(argv: string[]): Arguments {
  const parsed: Arguments = { out: path.resolve(__dirname, "..", "..", "bench", "results"), vsTorch: false, python: "python3", torchBudgetS: 1200 };
  for (let i = 0; i < argv.length; i += 2) {
    const [flag, value] = [argv[i], argv[i + 1]];
    if (value === undefined) throw new Error(`${flag} needs a value\n${USAGE}`);
    if (flag === "--rows" || flag === "--cols") {
      const n = Number(value);
      if (!Number.isInteger(n) || n < 1) throw new Error(`${flag} must be a positive integer, got ${JSON.stringify(value)}\n${USAGE}`);
      parsed[flag === "--rows" ? "rows" : "cols"] = n;
    } else if (flag === "--ops") {
      const names = value.split(",");
      const known = new Set(PAIRS.map((p) => p.declaration.name));
      const unknown = names.filter((n) => !known.has(n));
      if (unknown.length > 0) throw new Error(`--ops: no fused op ${unknown.map((n) => JSON.stringify(n)).join(", ")} (there are ${[...known].join(", ")})\n${USAGE}`);
      parsed.ops = names;
    } else if (flag === "--out") {
      parsed.out = path.resolve(value);
    } else if (flag === "--vs") {
      if (value !== "torch") throw new Error(`--vs takes "torch", got ${JSON.stringify(value)}\n${USAGE}`);
      parsed.vsTorch = true;
    } else if (flag === "--python") {
      parsed.python = value;
    } else if (flag === "--torch-budget") {
      const seconds = Number(value);
      if (!(seconds > 0)) throw new Error(`--torch-budget must be a positive number of seconds, got ${JSON.stringify(value)}\n${USAGE}`);
      parsed.torchBudgetS = seconds;
    } else {
      throw new Error(`unknown option ${JSON.stringify(flag)}\n${USAGE}`);
    }
  }
  return parsed;
}

interface Row {
  op: string;
  dtype: FloatDType;
  shape: [number, number];
  unfusedChain: string;
  unfused: fl.BenchResult;
  fused: fl.BenchResult;
  /** Unfused median / fused median. */
  speedup: number;
  /** Unfused bytes / fused bytes: the speedup the traffic model predicts for memory-bound kernels. */
  byteRatio: number;
  /** PyTorch's times for the same case, with --vs torch. */
  torch?: TorchTiming;
}

const pct = (r: fl.BenchResult) => (r.pctOfCopy === undefined ? "-" : `${r.pctOfCopy.toFixed(1)}%`);

/** PyTorch's columns of a row: eager ms, torch.compile ms, torch.compile's time over fuselab's fused time. */
function torchCells(r: Row): string[] {
  if (!r.torch || "error" in r.torch) return ["-", "-", "-"];
  return [formatMs(r.torch.eagerMs), formatMs(r.torch.compileMs), `${(r.torch.compileMs / r.fused.medianMs).toFixed(2)}x`];
}

function resultsTable(rows: Row[], withTorch: boolean): string {
  const header = ["op", "dtype", "unfused ms", "fused ms", "speedup", "byte ratio", "unfused GB/s", "fused GB/s",
    "unfused % of copy", "fused % of copy", "launches"];
  if (withTorch) header.push("torch eager ms", "torch.compile ms", "fused vs compile");
  const lines = rows.map((r) => [
    r.op, r.dtype, formatMs(r.unfused.medianMs), formatMs(r.fused.medianMs), `${r.speedup.toFixed(2)}x`,
    `${r.byteRatio.toFixed(2)}x`, r.unfused.gbps.toFixed(1), r.fused.gbps.toFixed(1), pct(r.unfused), pct(r.fused),
    `${r.unfused.launches} -> ${r.fused.launches}`, ...(withTorch ? torchCells(r) : []),
  ]);
  return markdownTable([header, ...lines], 2);
}

async function main(): Promise<void> {
  const given = process.argv.slice(2);
  const args = parseArguments(given);
  const dev = fl.device();
  const onCpu = dev.kind === "cpu";
  if (args.vsTorch && onCpu) {
    throw new Error(`--vs torch needs a GPU (PyTorch runs on CUDA), and ${dev.describe()} is the CPU emulator`);
  }
  const defaults = onCpu ? CPU_SHAPE : GPU_SHAPE;
  const rows = args.rows ?? defaults.rows;
  const cols = args.cols ?? defaults.cols;
  const command = given.length > 0 ? `npm run bench -- ${given.join(" ")}` : "npm run bench";
  const notes: string[] = [];
  if (onCpu) {
    notes.push(`Device ${dev.describe()} is the CPU emulator: the numbers time the emulator running GPU kernels, not a GPU; ` +
      `the default shape is ${CPU_SHAPE.rows}x${CPU_SHAPE.cols} (on a GPU: ${GPU_SHAPE.rows}x${GPU_SHAPE.cols}) so that it finishes.`);
  }
  notes.forEach((n) => console.log(`note: ${n}`));
  console.log(`device: ${dev.name} (${dev.describe()}, ${dev.props.arch})`);

  const copyBytes = onCpu ? CPU_COPY_BYTES : GPU_COPY_BYTES;
  const ceiling = await fl.copyCeiling({ device: dev, bytes: copyBytes });
  console.log(`copy ceiling: ${ceiling.gbs.toFixed(1)} GB/s (copy_f32x4 of ${copyBytes / 2 ** 20} MiB, median ${formatMs(ceiling.medianMs)} ms of ${ceiling.iters})`);

  const benchStarted = Date.now();
  const results: Row[] = [];
  const torchCases: TorchCase[] = [];
  for (const dtype of DTYPES) {
    const inputs = new Inputs({ dtype, device: dev });
    try {
      for (const pair of PAIRS.filter((p) => !args.ops || args.ops.includes(p.declaration.name))) {
        // Mutated arguments (addRmsNorm's residual) are put back by bench() after timing.
        const opArgs = pair.example.args(inputs.maker(), rows, cols, dtype);
        const timed = await fl.bench({
          unfused: () => (pair.declaration.unfused as (...a: unknown[]) => unknown)(...opArgs),
          fused: () => (pair.declaration.fused as (...a: unknown[]) => unknown)(...opArgs),
        }, { copyCeilingGBs: ceiling.gbs });
        const [unfused, fusedResult] = timed;
        const row: Row = {
          op: pair.op, dtype, shape: [rows, cols], unfusedChain: pair.declaration.chain, unfused, fused: fusedResult,
          speedup: timed.speedupVs("unfused").fused,
          byteRatio: (unfused.bytesRead + unfused.bytesWritten) / (fusedResult.bytesRead + fusedResult.bytesWritten),
        };
        results.push(row);
        torchCases.push({
          id: `${pair.op} ${dtype}`, op: pair.declaration.name, dtype, args: opArgs.map(specArgument), flushL2: fusedResult.l2Flushed,
        });
        console.log(`${pair.op} ${dtype}: unfused ${formatMs(unfused.medianMs)} ms, fused ${formatMs(fusedResult.medianMs)} ms ` +
          `(${pct(fusedResult)} of copy), speedup ${row.speedup.toFixed(2)}x, byte ratio ${row.byteRatio.toFixed(2)}x ` +
          `(${((Date.now() - benchStarted) / 1000).toFixed(0)} s)`);
      }
    } finally {
      inputs.dispose();
    }
  }

  const started = Date.now();
  const write = (torch?: TorchRun) => writeResults(args.out, { dev, command, notes, rows, cols, copyBytes, ceiling, results, torch });
  write();
  if (args.vsTorch) {
    const torch = runTorch(torchCases, args.python, TORCH_WARMUP, TORCH_ITERS, args.torchBudgetS);
    results.forEach((r, i) => (r.torch = torch.results.get(torchCases[i].id)));
    write(torch);
  }
  console.log(`(${((Date.now() - started) / 1000).toFixed(0)} s after fuselab's cases)`);
}

interface RunRecord {
  dev: fl.Device;
  command: string;
  notes: string[];
  rows: number;
  cols: number;
  copyBytes: number;
  ceiling: fl.CopyCeiling;
  results: Row[];
  torch?: TorchRun;
}

/** Writes the run's .json and .md under `out` and prints the summary and the table. */
function writeResults(out: string, run: RunRecord): void {
  const { dev, command, notes, rows, cols, copyBytes, ceiling, results, torch } = run;
  const onCpu = dev.kind === "cpu";
  const atTarget = results.filter((r) => (r.fused.pctOfCopy ?? 0) >= TARGET_PCT_OF_COPY).length;
  const beatCompile = results.filter((r) => r.torch && "compileMs" in r.torch && r.torch.compileMs >= r.fused.medianMs).length;
  const timedByTorch = results.filter((r) => r.torch && "compileMs" in r.torch).length;
  const torchLine = torch
    ? `PyTorch ${torch.torch} (CUDA ${torch.cuda}) on ${torch.device}, eager and torch.compile, ${TORCH_ITERS} iterations after ${TORCH_WARMUP}: ` +
      `fused ops at >= 1.00x torch.compile: ${beatCompile} of the ${timedByTorch} PyTorch timed (of ${results.length})`
    : undefined;
  const date = new Date();
  const day = date.toISOString().slice(0, 10);
  const base = `${slug(onCpu ? `cpu-emulator-${os.hostname()}` : dev.name)}-${day}`;
  const record = {
    device: { describe: dev.describe(), backend: dev.backend, kind: dev.kind, props: dev.props },
    date: date.toISOString(),
    command,
    node: process.version,
    host: { platform: process.platform, arch: process.arch, cpus: os.cpus().length, cpu: os.cpus()[0]?.model ?? "unknown" },
    shape: [rows, cols],
    notes,
    copyCeiling: ceiling,
    targetPctOfCopy: TARGET_PCT_OF_COPY,
    fusedAtTarget: atTarget,
    torch: torch && { version: torch.torch, cuda: torch.cuda, device: torch.device, warmup: TORCH_WARMUP, iters: TORCH_ITERS },
    results,
  };
  const table = resultsTable(results, torch !== undefined);
  const markdown = [
    `# fuselab bench: ${dev.name}`,
    "",
    `- device: ${dev.name} (${dev.describe()}, ${dev.props.arch}); date: ${record.date}; node ${process.version}`,
    `- command: \`${command}\`; shape ${rows}x${cols} (siluAndMul and geluAndMul: input ${rows}x2x${cols}; qkNormRope: ${rows} tokens of heads of 128 values filling the width, src/ops/rope.ts; ropeKAppend and ropeKvAppend: the decode steps and prompts their examples make of it, src/ops/kvcache.ts)`,
    `- copy ceiling: ${ceiling.gbs.toFixed(1)} GB/s (copy_f32x4 of ${copyBytes / 2 ** 20} MiB, median of ${ceiling.iters})`,
    `- fused ops at >= ${TARGET_PCT_OF_COPY}% of the copy ceiling: ${atTarget} of ${results.length}`,
    ...(torchLine ? [`- ${torchLine}`] : []),
    ...notes.map((n) => `- note: ${n}`),
    "",
    "How to read this table: bench/results/README.md.",
    "",
    table,
    "",
  ].join("\n");
  fs.mkdirSync(out, { recursive: true });
  const jsonFile = path.join(out, `${base}.json`);
  const markdownFile = path.join(out, `${base}.md`);
  fs.writeFileSync(jsonFile, JSON.stringify(record, null, 2) + "\n");
  fs.writeFileSync(markdownFile, markdown);
  console.log(`\nwrote ${jsonFile}\nwrote ${markdownFile}\n`);
  console.log(`copy ceiling ${ceiling.gbs.toFixed(1)} GB/s on ${dev.name}; fused ops at >= ${TARGET_PCT_OF_COPY}% of it: ${atTarget} of ${results.length}`);
  if (torchLine) console.log(torchLine);
  console.log("");
  console.log(table);
}

main().catch((e: Error) => {
  console.error(e.message);
  process.exit(1);
});
