// The PyTorch side of `npm run bench -- --vs torch`: the cases fuselab timed,
// written as a spec that bench/torch/bench_torch.py runs in PyTorch eager and
// torch.compile on the same GPU, in a child process of this one, timed the same
// way (events, L2 flushed when fuselab flushed it, median); its results read back.
import { spawnSync } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import * as fl from "../src";

/** One case for PyTorch: the op, its dtype and fuselab's arguments (as `specArgument` writes them). */
export interface TorchCase {
  id: string;
  op: string;
  dtype: string;
  args: unknown[];
  /** Whether fuselab flushed L2 before each iteration of this case. */
  flushL2: boolean;
}

/** PyTorch's times for one case, or why it has none. */
export type TorchTiming = { eagerMs: number; compileMs: number } | { error: string };

export interface TorchRun {
  torch: string;
  cuda: string;
  device: string;
  results: Map<string, TorchTiming>;
}

const SCRIPT = path.resolve(__dirname, "..", "..", "bench", "torch", "bench_torch.py");

/**
 * An argument as the spec writes it: a float tensor by its shape (PyTorch makes
 * its own random values), an i32 tensor (positions) with its values, a u8
 * tensor (Q4_0 blocks) by its shape (PyTorch makes its own blocks), anything
 * else as it is.
 */
export function specArgument(a: unknown): unknown {
  if (fl.Tensor.isTensor(a)) {
    if (a.dtype === "i32") return { $tensor: [...a.shape], values: Array.from((a as fl.Tensor<"i32">).toArray()) };
    if (a.dtype === "u8") return { $tensor: [...a.shape], dtype: "u8" };
    return { $tensor: [...a.shape] };
  }
  return a === undefined ? null : a;
}

/**
 * Runs the cases in PyTorch with `python`, starting no case after `budgetS`
 * seconds; throws with what to do when it cannot run at all. A run that stops
 * part-way keeps the cases it finished; the others say why they have no times.
 */
export function runTorch(cases: TorchCase[], python: string, warmup: number, iters: number, budgetS: number): TorchRun {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "fuselab-vs-torch-"));
  try {
    const specFile = path.join(dir, "spec.json"), outFile = path.join(dir, "torch.json");
    const spec = { warmup, iters, cases };
    fs.writeFileSync(specFile, JSON.stringify(spec));
    const run = spawnSync(python, [SCRIPT, specFile, outFile, String(budgetS)], { stdio: "inherit" });
    if (run.error) throw new Error(`--vs torch: cannot run ${python} (${run.error.message}); give another with --python`);
    if (!fs.existsSync(outFile)) {
      throw new Error(`--vs torch: ${python} ${SCRIPT} failed (exit ${run.status ?? run.signal}); it needs PyTorch with a CUDA device`);
    }
    const out = JSON.parse(fs.readFileSync(outFile, "utf8")) as Omit<TorchRun, "results"> & { results: ({ id: string } & TorchTiming)[] };
    const results = new Map(out.results.map(({ id, ...timing }) => [id, timing as TorchTiming]));
    const stopped: TorchTiming = { error: `not run: ${path.basename(SCRIPT)} stopped (exit ${run.status ?? run.signal}) before this case` };
    cases.forEach((c) => { if (!results.has(c.id)) results.set(c.id, stopped); });
    return { ...out, results };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
