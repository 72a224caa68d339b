// Sweeps: bench() across sizes, with live progress, and results that print as a
// table and that fl.plot draws (time and GB/s against size, speed-ups).
import { inspect } from "util";
import { BenchOptions, BenchResult, BenchResults, benchAs } from "./bench";
import { ArgumentError, describe } from "./errors";
import { formatMs, htmlTable, markdownTable, textTable } from "./format";
import { progress } from "./progress";
import { Tensor } from "./tensor";
import { inspectRich } from "./tslab";

/** What `sweep()` runs. */
export interface SweepOptions<Inputs> {
  /** The sizes, in order; what a size means is up to `inputs` (n of an n × n matrix, rows, elements, ...). */
  sizes: readonly number[];
  /**
   * Makes the inputs for one size (called once a size, before its cases). Tensors
   * among the returned object's values are disposed once the size is timed.
   */
  inputs?: (size: number) => Inputs;
  /** The cases, each given the size's inputs: as `bench()`'s cases, one launch or more, synchronous. */
  cases: Record<string, (inputs: Inputs, size: number) => unknown>;
  /** How each case is timed (as `bench()`'s options). */
  bench?: BenchOptions;
  /** The name of a size in tables and on axes ("size" when left out). */
  sizeLabel?: string;
}

/** The bench results of every size, in the order of `sizes`. */
export class SweepResults {
  constructor(readonly sizes: readonly number[], readonly caseNames: readonly string[],
              readonly results: readonly BenchResults[], readonly sizeLabel: string) {}

  /** The results of one case at every size. */
  series(name: string): BenchResult[] {
    if (!this.caseNames.includes(name)) {
      throw new ArgumentError("results.series", "name", `one of ${this.caseNames.map((n) => JSON.stringify(n)).join(", ")}`, describe(name));
    }
    return this.results.map((r) => r.get(name));
  }

  /** One row a size: each case's median time and GB/s, and how many times faster each case is than the first. */
  toString(): string {
    return textTable(this.tableRows(), 0);
  }

  toMarkdown(): string {
    return markdownTable(this.tableRows(), 0);
  }

  toHTML(): string {
    return htmlTable(this.tableRows(), 0);
  }

  /** What console.log shows: the text table; as a notebook cell's last expression, the table in HTML. */
  [inspect.custom](): string {
    return inspectRich(this, () => this.toString());
  }

  /** @internal The table's cells, the header row first. */
  tableRows(): string[][] {
    const [first, ...others] = this.caseNames;
    const header = [this.sizeLabel, ...this.caseNames.flatMap((name) => [`${name} ms`, `${name} GB/s`]), ...others.map((name) => `${name} x`)];
    const rows = this.results.map((results, i) => [
      String(this.sizes[i]),
      ...this.caseNames.flatMap((name) => {
        const r = results.get(name);
        return [formatMs(r.medianMs), Number.isNaN(r.gbps) ? "-" : r.gbps.toFixed(1)];
      }),
      ...others.map((name) => `${(results.get(first).medianMs / results.get(name).medianMs).toFixed(2)}x`),
    ]);
    return [header, ...rows];
  }
}

function checkSweep(where: string, options: unknown): SweepOptions<unknown> {
  if (typeof options !== "object" || options === null || Array.isArray(options)) {
    throw new ArgumentError(where, "options", "an object { sizes, inputs?, cases, bench?, sizeLabel? }", describe(options));
  }
  const o = options as Record<string, unknown>;
  for (const key of Object.keys(o)) {
    if (!["sizes", "inputs", "cases", "bench", "sizeLabel"].includes(key)) {
      throw new ArgumentError(where, "options", "an object with keys among sizes, inputs, cases, bench, sizeLabel", `the key ${JSON.stringify(key)}`);
    }
  }
  const { sizes, inputs, cases, sizeLabel } = o;
  if (!Array.isArray(sizes) || sizes.length === 0 || sizes.some((s) => typeof s !== "number" || !Number.isFinite(s) || s <= 0)) {
    throw new ArgumentError(where, "options.sizes", "a non-empty array of positive numbers", describe(sizes));
  }
  if (inputs !== undefined && typeof inputs !== "function") throw new ArgumentError(where, "options.inputs", "a function of the size", describe(inputs));
  if (typeof cases !== "object" || cases === null || Array.isArray(cases) || Object.keys(cases).length === 0) {
    throw new ArgumentError(where, "options.cases", "an object of functions, e.g. { unfused: (inputs) => ..., fused: (inputs) => ... }", describe(cases));
  }
  for (const [name, fn] of Object.entries(cases)) {
    if (typeof fn !== "function") throw new ArgumentError(where, `options.cases.${name}`, "a function of the inputs that launches work", describe(fn));
  }
  if (sizeLabel !== undefined && typeof sizeLabel !== "string") throw new ArgumentError(where, "options.sizeLabel", "a string", describe(sizeLabel));
  return o as unknown as SweepOptions<unknown>;
}

function disposeTensors(inputs: unknown): void {
  if (typeof inputs !== "object" || inputs === null) return;
  for (const value of Object.values(inputs)) if (Tensor.isTensor(value)) value.dispose();
}

/**
 * Runs `bench()` on every case at every size, showing progress (in place in a
 * notebook, on one terminal line), and returns the results by size.
 *
 * ```ts
 * const r = await fl.sweep({
 *   sizes: [128, 256, 512, 1024],
 *   inputs: (n) => ({ x: fl.randn([n, n]), r: fl.randn([n, n]), w: fl.rand([n]) }),
 *   cases: {
 *     unfused: ({ x, r, w }) => fl.ops.rmsNorm(fl.ops.add(x, r), w),
 *     fused: ({ x, r, w }) => fl.fused.addRmsNorm(x, r, w),
 *   },
 * });
 * fl.plot.sweep(r);
 * ```
 */
export async function sweep<Inputs>(options: SweepOptions<Inputs>): Promise<SweepResults> {
  const where = "fl.sweep";
  const { sizes, inputs, cases, bench, sizeLabel = "size" } = checkSweep(where, options) as SweepOptions<Inputs>;
  const names = Object.keys(cases);
  const total = sizes.length * names.length;
  const shown = progress(where, total);
  const started = Date.now();
  const results: BenchResults[] = [];
  try {
    for (const [i, size] of sizes.entries()) {
      shown.update(i * names.length, `${sizeLabel} ${size}: making inputs`);
      const made = inputs ? inputs(size) : (undefined as Inputs);
      try {
        const perSize = new BenchResults();
        for (const [j, name] of names.entries()) {
          shown.update(i * names.length + j, `${sizeLabel} ${size}: ${name}`);
          const [result] = await benchAs(where, { [name]: () => cases[name](made, size) }, bench);
          perSize.push(result);
        }
        results.push(perSize);
      } finally {
        disposeTensors(made);
      }
    }
  } catch (e) {
    shown.finish(`${where}: stopped at ${sizeLabel} ${sizes[results.length]} (${(e as Error).message?.split("\n")[0] ?? e})`);
    throw e;
  }
  const count = (n: number, what: string) => `${n} ${what}${n === 1 ? "" : "s"}`;
  const sizesRun = sizeLabel === "size" ? count(sizes.length, "size") : `${count(sizes.length, "value")} of ${sizeLabel}`;
  shown.finish(`${where}: ${sizesRun} × ${count(names.length, "case")} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return new SweepResults([...sizes], names, results, sizeLabel);
}
