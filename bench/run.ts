// npm run bench [-- --rows R --cols C --out DIR]
//
// On the default device (FUSELAB_DEVICE respected): the copy ceiling, then each
// fused op against its unfused chain in f32 and bf16: median time, GB/s from the
// traffic model, % of the copy ceiling, and the measured speedup beside the one
// the traffic model predicts (unfused bytes / fused bytes). Writes
// bench/results/<device>-<date>.json and .md, and prints the table last.
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import * as fl from "../src";
import { formatMs } from "../src/bench";

type FloatDType = "f32" | "bf16";
const DTYPES: FloatDType[] = ["f32", "bf16"];
const GPU_SHAPE = { rows: 32768, cols: 4096 };
// The emulator runs the same kernels some 1000x slower: a shape it times in seconds.
const CPU_SHAPE = { rows: 256, cols: 4096 };
const GPU_COPY_BYTES = 2 ** 30;
const CPU_COPY_BYTES = 2 ** 26;
// The issue's target: a fused op runs at 90% of the copy ceiling or better.
const TARGET_PCT_OF_COPY = 90;

interface Arguments {
  rows?: number;
  cols?: number;
  out: string;
}

const USAGE = "usage: npm run bench [-- --rows R --cols C --out DIR]";

function parseArguments(argv: string[]): Arguments {
  const parsed: Arguments = { out: path.resolve(__dirname, "..", "..", "bench", "results") };
  for (let i = 0; i < argv.length; i += 2) {
    const [flag, value] = [argv[i], argv[i + 1]];
    if (value === undefined) throw new Error(`${flag} needs a value\n${USAGE}`);
    if (flag === "--rows" || flag === "--cols") {
      const n = Number(value);
      if (!Number.isInteger(n) || n < 1) throw new Error(`${flag} must be a positive integer, got ${JSON.stringify(value)}\n${USAGE}`);
      parsed[flag === "--rows" ? "rows" : "cols"] = n;
    } else if (flag === "--out") {
      parsed.out = path.resolve(value);
    } else {
      throw new Error(`unknown option ${JSON.stringify(flag)}\n${USAGE}`);
    }
  }
  return parsed;
}

/** One fused op and its unfused chain, over inputs made for a shape and dtype. */
interface Pair {
  op: string;
  /** The chain as code, for the results. */
  unfusedChain: string;
  inputs(rows: number, cols: number, options: fl.TensorOptions): fl.Tensor[];
  unfused(...inputs: fl.Tensor[]): unknown;
  fused(...inputs: fl.Tensor[]): unknown;
}

const { ops, fused } = fl;
const S = 0.5;

const PAIRS: Pair[] = [
  {
    op: "addRelu", unfusedChain: "ops.relu(ops.add(a, b))",
    inputs: (r, c, o) => [random([r, c], o), random([r, c], o)],
    unfused: (a, b) => ops.relu(ops.add(a, b)),
    fused: (a, b) => fused.addRelu(a, b),
  },
  {
    op: "reluScaleBias", unfusedChain: "ops.biasAdd(ops.scale(ops.relu(x), s), bias)",
    inputs: (r, c, o) => [random([r, c], o), random([c], o)],
    unfused: (x, bias) => ops.biasAdd(ops.scale(ops.relu(x), S), bias),
    fused: (x, bias) => fused.reluScaleBias(x, S, bias),
  },
  {
    op: "addReluScale", unfusedChain: "ops.scale(ops.relu(ops.add(a, b)), s)",
    inputs: (r, c, o) => [random([r, c], o), random([r, c], o)],
    unfused: (a, b) => ops.scale(ops.relu(ops.add(a, b)), S),
    fused: (a, b) => fused.addReluScale(a, b, S),
  },
  {
    op: "biasGelu", unfusedChain: "ops.gelu(ops.biasAdd(x, bias))",
    inputs: (r, c, o) => [random([r, c], o), random([c], o)],
    unfused: (x, bias) => ops.gelu(ops.biasAdd(x, bias)),
    fused: (x, bias) => fused.biasGelu(x, bias),
  },
  {
    op: "siluAndMul", unfusedChain: "ops.mul(ops.silu(gate), up)",
    inputs: (r, c, o) => [random([r, 2, c], o), random([r, c], o), random([r, c], o)],
    unfused: (_x, gate, up) => ops.mul(ops.silu(gate), up),
    fused: (x) => fused.siluAndMul(x),
  },
  {
    op: "geluAndMul", unfusedChain: "ops.mul(ops.gelu(gate), up)",
    inputs: (r, c, o) => [random([r, 2, c], o), random([r, c], o), random([r, c], o)],
    unfused: (_x, gate, up) => ops.mul(ops.gelu(gate), up),
    fused: (x) => fused.geluAndMul(x),
  },
  {
    op: "addRmsNorm", unfusedChain: "ops.rmsNorm(ops.add(x, residual), weight)",
    inputs: (r, c, o) => [random([r, c], o), random([r, c], o), random([c], o)],
    unfused: (x, residual, weight) => ops.rmsNorm(ops.add(x, residual), weight),
    fused: (x, residual, weight) => fused.addRmsNorm(x, residual, weight),
  },
];

let seed = 1;
function random(shape: number[], options: fl.TensorOptions): fl.Tensor {
  return fl.randn(shape, { ...options, seed: seed++ });
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
}

function slug(text: string): string {
  return text.toLowerCase().replace(/\(r\)|\(tm\)/g, "").replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "");
}

const pct = (r: fl.BenchResult) => (r.pctOfCopy === undefined ? "-" : `${r.pctOfCopy.toFixed(1)}%`);

function markdownTable(rows: Row[]): string {
  const header = ["op", "dtype", "unfused ms", "fused ms", "speedup", "byte ratio", "unfused GB/s", "fused GB/s",
    "unfused % of copy", "fused % of copy", "launches"];
  const lines = rows.map((r) => [
    r.op, r.dtype, formatMs(r.unfused.medianMs), formatMs(r.fused.medianMs), `${r.speedup.toFixed(2)}x`,
    `${r.byteRatio.toFixed(2)}x`, r.unfused.gbps.toFixed(1), r.fused.gbps.toFixed(1), pct(r.unfused), pct(r.fused),
    `${r.unfused.launches} -> ${r.fused.launches}`,
  ]);
  return [header, header.map((_, i) => (i < 2 ? "---" : "---:")), ...lines].map((cells) => `| ${cells.join(" | ")} |`).join("\n");
}

async function main(): Promise<void> {
  const args = parseArguments(process.argv.slice(2));
  const dev = fl.device();
  const onCpu = dev.kind === "cpu";
  const defaults = onCpu ? CPU_SHAPE : GPU_SHAPE;
  const rows = args.rows ?? defaults.rows;
  const cols = args.cols ?? defaults.cols;
  const command = ["npm run bench", ...process.argv.slice(2)].join(" ");
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

  const results: Row[] = [];
  for (const dtype of DTYPES) {
    for (const pair of PAIRS) {
      const inputs = pair.inputs(rows, cols, { dtype, device: dev });
      try {
        const timed = await fl.bench({
          unfused: () => pair.unfused(...inputs),
          fused: () => pair.fused(...inputs),
        }, { copyCeilingGBs: ceiling.gbs });
        const [unfused, fusedResult] = timed;
        const row: Row = {
          op: pair.op, dtype, shape: [rows, cols], unfusedChain: pair.unfusedChain, unfused, fused: fusedResult,
          speedup: timed.speedupVs("unfused").fused,
          byteRatio: (unfused.bytesRead + unfused.bytesWritten) / (fusedResult.bytesRead + fusedResult.bytesWritten),
        };
        results.push(row);
        console.log(`${pair.op} ${dtype}: unfused ${formatMs(unfused.medianMs)} ms, fused ${formatMs(fusedResult.medianMs)} ms ` +
          `(${pct(fusedResult)} of copy), speedup ${row.speedup.toFixed(2)}x, byte ratio ${row.byteRatio.toFixed(2)}x`);
      } finally {
        inputs.forEach((t) => t.dispose());
      }
    }
  }

  const atTarget = results.filter((r) => (r.fused.pctOfCopy ?? 0) >= TARGET_PCT_OF_COPY).length;
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
    results,
  };
  const table = markdownTable(results);
  const markdown = [
    `# fuselab bench: ${dev.name}`,
    "",
    `- device: ${dev.name} (${dev.describe()}, ${dev.props.arch}); date: ${record.date}; node ${process.version}`,
    `- command: \`${command}\`; shape ${rows}x${cols} (siluAndMul and geluAndMul: input ${rows}x2x${cols})`,
    `- copy ceiling: ${ceiling.gbs.toFixed(1)} GB/s (copy_f32x4 of ${copyBytes / 2 ** 20} MiB, median of ${ceiling.iters})`,
    `- fused ops at >= ${TARGET_PCT_OF_COPY}% of the copy ceiling: ${atTarget} of ${results.length}`,
    ...notes.map((n) => `- note: ${n}`),
    "",
    "How to read this table: bench/results/README.md.",
    "",
    table,
    "",
  ].join("\n");
  fs.mkdirSync(args.out, { recursive: true });
  const jsonFile = path.join(args.out, `${base}.json`);
  const markdownFile = path.join(args.out, `${base}.md`);
  fs.writeFileSync(jsonFile, JSON.stringify(record, null, 2) + "\n");
  fs.writeFileSync(markdownFile, markdown);
  console.log(`\nwrote ${jsonFile}\nwrote ${markdownFile}\n`);
  console.log(`copy ceiling ${ceiling.gbs.toFixed(1)} GB/s on ${dev.name}; fused ops at >= ${TARGET_PCT_OF_COPY}% of it: ${atTarget} of ${results.length}\n`);
  console.log(table);
}

main().catch((e: Error) => {
  console.error(e.message);
  process.exit(1);
});
