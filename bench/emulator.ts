// npm run bench:emulator [-- --out DIR]
//
// How fast the CPU emulator runs real kernels, against the speeds that keep the
// lessons usable on a laptop: a fused elementwise launch over 1M f32 under 50 ms,
// RMSNorm over 1024x4096 f32 with 256-thread blocks (warp shuffles and a
// shared-memory block reduction) under 1 s, and a barrier-heavy row softmax over
// 1024x1024 f32 with 1024-thread blocks under 200 ms, and under 1 s in check
// mode. Each kernel's output is checked before it is timed. Prints a table and
// writes bench/results/emulator-<host>-<date>.md, with the CPU time each launch
// took (the wall time counts only while the machine is otherwise idle).
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import * as fl from "../src";
import { formatMs, markdownTable, textTable } from "../src/format";
import { SOFTMAX_ROWS, softmaxRowsReference } from "./softmax";

const USAGE = "usage: npm run bench:emulator [-- --out DIR]";
const RUNS = 10;

interface Measurement {
  what: string;
  kernel: string;
  launch: string;
  result: fl.BenchResult;
  targetMs: number;
  /** Process CPU time (all threads) per launch, in ms. */
  cpuMs: number;
}

function parseOut(argv: string[]): string {
  if (argv.length === 0) return path.resolve(__dirname, "..", "..", "bench", "results");
  if (argv.length === 2 && argv[0] === "--out") return path.resolve(argv[1]);
  throw new Error(`unexpected arguments ${JSON.stringify(argv.join(" "))}\n${USAGE}`);
}

function dims(dim: readonly number[]): string {
  return dim.join("x");
}

// Runs `fn` once and returns the record of its single launch.
function soleLaunch(fn: () => unknown): fl.LaunchRecord {
  let output: unknown;
  const ledger = fl.traffic(() => (output = fn()));
  if (fl.Tensor.isTensor(output)) output.dispose();
  if (ledger.records.length !== 1) throw new Error(`expected one launch, saw ${ledger.records.length}`);
  return ledger.records[0];
}

async function measure(what: string, targetMs: number, blockThreads: number, fn: () => unknown, runs = RUNS): Promise<Measurement> {
  const { kernel, grid, block } = soleLaunch(fn);
  const threads = block[0] * block[1] * block[2];
  if (threads !== blockThreads) {
    throw new Error(`${what}: ${kernel.name} was launched with ${threads}-thread blocks; this benchmark needs ${blockThreads}`);
  }
  const started = process.cpuUsage();
  const [result] = await fl.bench({ [what]: fn }, { warmup: 1, iters: runs });
  const used = process.cpuUsage(started);
  const cpuMs = (used.user + used.system) / 1000 / (runs + 1);
  return { what, kernel: kernel.name, launch: `grid ${dims(grid)}, block ${dims(block)}`, result, targetMs, cpuMs };
}

// The softmax benchmark on `dev`, after checking its output against the reference.
async function measureSoftmax(what: string, dev: fl.Device, targetMs: number, runs: number): Promise<Measurement> {
  const rows = 1024, cols = 1024;
  const softmax = fl.compile(SOFTMAX_ROWS, { device: dev }).fn("softmax_rows");
  const x = fl.randn([rows, cols], { device: dev, seed: 5 });
  const out = fl.full([rows, cols], NaN, { device: dev });
  const launch = () => softmax.launch({ grid: rows, block: cols }, out, x, cols);
  launch();
  const expected = softmaxRowsReference(x.toArray(), rows, cols);
  const got = out.toArray();
  const worst = expected.reduce((w, e, i) => Math.max(w, Math.abs(got[i] - e) / e), 0);
  if (!(worst < 1e-5)) throw new Error(`${what}: softmax_rows is wrong on ${dev.describe()}: relative error ${worst}`);
  const measurement = await measure(what, targetMs, cols, launch, runs);
  [x, out].forEach((t) => t.dispose());
  return measurement;
}

async function main(): Promise<void> {
  const out = parseOut(process.argv.slice(2));
  const cpu = fl.device("cpu");
  const options = { dtype: "f32" as const, device: cpu };
  const a = fl.randn([2 ** 20], { ...options, seed: 1 });
  const b = fl.randn([2 ** 20], { ...options, seed: 2 });
  const x = fl.randn([1024, 4096], { ...options, seed: 3 });
  const weight = fl.randn([4096], { ...options, seed: 4 });
  const measurements = [
    await measure("fused.addRelu, 1M f32", 50, 256, () => fl.fused.addRelu(a, b)),
    await measure("ops.rmsNorm, 1024x4096 f32", 1000, 256, () => fl.ops.rmsNorm(x, weight)),
    await measureSoftmax("softmax rows, 1024x1024 f32", cpu, 200, RUNS),
    await measureSoftmax("softmax rows, 1024x1024 f32, check mode", fl.device("cpu", { check: true }), 1000, 3),
  ];
  [a, b, x, weight].forEach((t) => t.dispose());

  const header = ["benchmark", "kernel", "launch", "median ms", "min ms", "CPU ms a launch", "target ms", "met"];
  const rows = measurements.map((m) => [
    m.what, m.kernel, m.launch, formatMs(m.result.medianMs), formatMs(m.result.minMs), formatMs(m.cpuMs), String(m.targetMs),
    m.result.medianMs < m.targetMs ? "yes" : "no",
  ]);
  const text = textTable([header, ...rows], header.length);
  const cpuModel = os.cpus()[0]?.model ?? "unknown CPU";
  const date = new Date();
  const markdown = [
    `# CPU emulator speed: ${os.hostname()}`,
    "",
    `- device: ${cpu.name} (${cpu.describe()}, ${cpu.props.multiprocessors} worker threads, warp size ${cpu.props.warpSize})`,
    `- host: ${cpuModel}, ${os.cpus().length} cores; node ${process.version}; date ${date.toISOString()}`,
    `- load average when done: ${os.loadavg().map((l) => l.toFixed(1)).join(", ")} (other work on the machine slows the wall times)`,
    `- median and min of ${RUNS} runs (3 in check mode), after one warm-up`,
    "- command: `npm run bench:emulator`",
    "",
    markdownTable([header, ...rows], header.length),
    "",
  ].join("\n");
  fs.mkdirSync(out, { recursive: true });
  const file = path.join(out, `emulator-${os.hostname().toLowerCase().replace(/[^a-z0-9]+/g, "-")}-${date.toISOString().slice(0, 10)}.md`);
  fs.writeFileSync(file, markdown);
  console.log(`wrote ${file}\n`);
  console.log(text);
}

main().catch((e: Error) => {
  console.error(e.message);
  process.exit(1);
});
