// Charts: plotly figures, interactive and offline. plotly.js (its basic bundle:
// scatter and bar) enters a notebook once, in its own output before the first
// chart; each chart is a small output whose script waits for it, readable at
// 900 px and drawn in the notebook's light or dark colours. Where scripts do not
// run (an untrusted notebook, a text export), a chart shows its data as text.
import * as fs from "fs";
import { inspect } from "util";
import { BenchResult, BenchResults } from "./bench";
import { Displayable, display } from "./display";
import { ArgumentError, describe } from "./errors";
import { escapeHtml, formatMs, textTable } from "./format";
import { SweepResults } from "./sweep";
import { Ledger } from "./traffic";
import { inNotebook, inspectRich, newDisplayId, publishDisplay } from "./tslab";

/** A plotly trace or layout, as plotly.js takes it. */
export type PlotlyObject = Record<string, unknown>;

/** Light or dark colours; "auto" follows the notebook's text colour. */
export type Theme = "auto" | "light" | "dark";

export interface PlotOptions {
  title?: string;
  theme?: Theme;
  /** Height in pixels (420 when left out); the width follows the notebook, up to 900 px. */
  height?: number;
}

const PLOTLY_PACKAGE = "plotly.js-basic-dist-min";
const DEFAULT_HEIGHT = 420;
const MAX_WIDTH = 900;
// How long a chart waits for plotly.js before it says how to load it.
const WAIT_FOR_PLOTLY_MS = 10_000;

/** A chart: plotly data and layout, its text for where it cannot be drawn. */
export class Figure implements Displayable {
  constructor(readonly data: PlotlyObject[], readonly layout: PlotlyObject, private readonly text: string,
              readonly theme: Theme = "auto") {}

  /** The figure as plotly.js takes it (Plotly.newPlot(element, data, layout)). */
  toJSON(): { data: PlotlyObject[]; layout: PlotlyObject } {
    return { data: this.data, layout: this.layout };
  }

  /** Its data as text: a table, with the title. */
  toString(): string {
    return this.text;
  }

  /** The chart's HTML: a placeholder (the text, and why it is not drawn) and the script that draws it. */
  toHTML(): string {
    const id = `fuselab-chart-${newDisplayId()}`;
    const height = (this.layout.height as number | undefined) ?? DEFAULT_HEIGHT;
    const placeholder =
      `<div class="fuselab-chart-fallback" style="font-size:13px">` +
      `<div>This chart is drawn by JavaScript, which did not run here. In Jupyter, trust the notebook ` +
      `(File &gt; Trust Notebook) or run the cell again.</div><pre style="white-space:pre;overflow-x:auto">${escapeHtml(this.text)}</pre></div>`;
    // JSON inside a script: "</" must not close it.
    const figure = JSON.stringify({ data: this.data, layout: this.layout, theme: this.theme }).replace(/<\//g, "<\\/");
    return `<div id="${id}" class="fuselab-chart" style="width:100%;max-width:${MAX_WIDTH}px;min-height:${height}px">${placeholder}</div>` +
      `<script>(${DRAW_CHART})(${JSON.stringify(id)}, ${figure}, ${WAIT_FOR_PLOTLY_MS});</script>`;
  }

  /** @internal Whether the chart was shown in the notebook already (the fl.plot functions show theirs). */
  shown = false;

  /** Shows the chart (in a notebook; prints its text elsewhere). */
  show(): void {
    display(this);
    this.shown = inNotebook();
  }

  /** @internal plotly.js goes into the notebook before the first chart. */
  prepareToShow(): void {
    loadPlotly();
  }

  /** What console.log shows: the text; as a notebook cell's last expression, the chart (once). */
  [inspect.custom](): string {
    return inspectRich(this, () => this.text, this.shown);
  }
}

// The chart's script, run by the browser (plain JavaScript, ES2017): waits for
// plotly.js, then draws with the colours of the notebook around the chart.
const DRAW_CHART = `function (id, figure, waitMs) {
  var started = Date.now();
  function draw() {
    var element = document.getElementById(id);
    if (!element) return;
    if (!window.Plotly) {
      if (Date.now() - started < waitMs) setTimeout(draw, 50);
      else element.querySelector(".fuselab-chart-fallback div").textContent =
        "plotly.js is not loaded in this page: run fl.plot.load() in a cell, then run this cell again.";
      return;
    }
    var rgb = (getComputedStyle(element).color.match(/[0-9.]+/g) || [0, 0, 0]).slice(0, 3).map(Number);
    var dark = figure.theme === "dark" || (figure.theme !== "light" && 0.2126 * rgb[0] + 0.7152 * rgb[1] + 0.0722 * rgb[2] > 140);
    var ink = figure.theme === "auto" ? "rgb(" + rgb.join(",") + ")" : dark ? "#e8e8e8" : "#222";
    var grid = dark ? "rgba(255,255,255,0.15)" : "rgba(0,0,0,0.12)";
    function axis(a) { return Object.assign({ gridcolor: grid, zerolinecolor: grid, linecolor: grid }, a); }
    var layout = Object.assign({}, figure.layout, {
      font: { family: "sans-serif", size: 13, color: ink },
      paper_bgcolor: "rgba(0,0,0,0)", plot_bgcolor: "rgba(0,0,0,0)",
      xaxis: axis(figure.layout.xaxis), yaxis: axis(figure.layout.yaxis),
      colorway: dark ? ["#6cb4ff", "#ffa657", "#7ee787", "#ff7b72", "#d2a8ff", "#e3b341"]
                     : ["#1f6feb", "#d9480f", "#2f9e44", "#c92a2a", "#7048e8", "#b08800"]
    });
    element.innerHTML = "";
    window.Plotly.newPlot(element, figure.data, layout, { responsive: true, displaylogo: false });
  }
  draw();
}`;

let plotlySent = false;

/** The plotly.js bundle the charts use, as the text of a script. */
export function plotlySource(): string {
  const file = require.resolve(`${PLOTLY_PACKAGE}/plotly-basic.min.js`);
  return fs.readFileSync(file, "utf8");
}

/**
 * Puts plotly.js into the notebook, in an output of its own, unless this kernel
 * session has done so already (or `again`).
 */
export function loadPlotly(again = false): void {
  if (plotlySent && !again) return;
  const version = (require(`${PLOTLY_PACKAGE}/package.json`) as { version: string }).version;
  const script = plotlySource().replace(/<\/script/gi, "<\\/script");
  plotlySent = publishDisplay({
    "text/html": `<script type="text/javascript">${script}</script>`,
    "text/plain": `plotly.js ${version} (basic bundle) for fuselab's charts`,
  }) || plotlySent;
}

/**
 * fl.plot.load(): sends plotly.js to the notebook again, where a chart says it is
 * not loaded (the output that held it was cleared, or the page was reloaded).
 */
function load(): void {
  loadPlotly(true);
}

// --- the charts --------------------------------------------------------------

function layoutFor(options: PlotOptions, title: string, xaxis: PlotlyObject, yaxis: PlotlyObject, extra: PlotlyObject = {}): PlotlyObject {
  return {
    // Short titles, left: the mode bar (zoom, download) sits at the top right.
    title: { text: options.title ?? title, x: 0, xref: "paper", xanchor: "left", font: { size: 15 } },
    height: options.height ?? DEFAULT_HEIGHT,
    margin: { l: 70, r: 20, t: 70, b: 60 },
    legend: { orientation: "h", x: 0, y: 1.02, yanchor: "bottom", traceorder: "normal" },
    hovermode: "closest",
    xaxis: { automargin: true, ...xaxis },
    yaxis: { automargin: true, ...yaxis },
    ...extra,
  };
}

function checkPlotOptions(where: string, options: unknown): PlotOptions {
  if (options === undefined) return {};
  if (typeof options !== "object" || options === null) throw new ArgumentError(where, "options", "an object { title?, theme?, height?, ... }", describe(options));
  const o = options as PlotOptions;
  if (o.title !== undefined && typeof o.title !== "string") throw new ArgumentError(where, "options.title", "a string", describe(o.title));
  if (o.theme !== undefined && !["auto", "light", "dark"].includes(o.theme)) throw new ArgumentError(where, "options.theme", '"auto", "light" or "dark"', describe(o.theme));
  if (o.height !== undefined && !(typeof o.height === "number" && o.height >= 200 && o.height <= 2000)) {
    throw new ArgumentError(where, "options.height", "a number of pixels from 200 to 2000", describe(o.height));
  }
  return o;
}

function make(options: PlotOptions, data: PlotlyObject[], layout: PlotlyObject, text: string): Figure {
  const figure = new Figure(data, layout, text, options.theme ?? "auto");
  if (inNotebook()) figure.show();
  return figure;
}

/** The copy ceiling in GB/s that `bench()` was given, read back from a result's % of copy. */
function copyCeilingOf(results: readonly BenchResult[]): number | undefined {
  const r = results.find((x) => x.pctOfCopy !== undefined && x.pctOfCopy > 0);
  return r ? (100 * r.gbps) / r.pctOfCopy! : undefined;
}

/**
 * Bench results as bars: each case's median time (ms) with its 20th-80th percentile
 * spread, labelled with its GB/s; in a notebook the chart is shown at once.
 */
export function bench(results: BenchResults, options?: PlotOptions): Figure {
  const where = "fl.plot.bench";
  if (!(results instanceof BenchResults)) throw new ArgumentError(where, "results", "the results of fl.bench()", describe(results));
  const o = checkPlotOptions(where, options);
  const names = results.map((r) => r.name);
  const label = (r: BenchResult) => `${formatMs(r.medianMs)} ms` + (Number.isNaN(r.gbps) ? "" : `, ${r.gbps.toFixed(1)} GB/s`);
  const data = [{
    type: "bar", name: "median time", x: names, y: results.map((r) => r.medianMs),
    error_y: { type: "data", symmetric: false, array: results.map((r) => r.p80Ms - r.medianMs), arrayminus: results.map((r) => r.medianMs - r.p20Ms) },
    // Inside at the foot of each bar, clear of the whisker.
    text: results.map(label), textposition: "inside", insidetextanchor: "start",
    hovertemplate: "%{x}: %{y:.4g} ms<extra></extra>",
  }];
  const layout = layoutFor(o, `Median time per case on ${results[0]?.device ?? "?"}`,
    { title: { text: "case" } }, { title: { text: "median time (ms), whisker: 20th-80th pct" }, rangemode: "tozero" }, { showlegend: false });
  return make(o, data, layout, results.toString());
}

/** Options of `fl.plot.sweep()`. */
export interface SweepPlotOptions extends PlotOptions {
  /** "gbps": bandwidth against size, with the copy ceiling when bench had it; "time": median time. Default: GB/s when the cases have a traffic model. */
  metric?: "gbps" | "time";
}

/** A sweep as lines against size (log axes): GB/s with the copy ceiling across, or median time. */
export function sweep(results: SweepResults, options?: SweepPlotOptions): Figure {
  const where = "fl.plot.sweep";
  if (!(results instanceof SweepResults)) throw new ArgumentError(where, "results", "the results of fl.sweep()", describe(results));
  const o = checkPlotOptions(where, options) as SweepPlotOptions;
  if (o.metric !== undefined && o.metric !== "gbps" && o.metric !== "time") throw new ArgumentError(where, "options.metric", '"gbps" or "time"', describe(o.metric));
  const all = results.results.flatMap((r) => [...r]);
  const metric = o.metric ?? (all.every((r) => !Number.isNaN(r.gbps)) ? "gbps" : "time");
  const data: PlotlyObject[] = results.caseNames.map((name) => {
    const series = results.series(name);
    return {
      type: "scatter", mode: "lines+markers", name, x: results.sizes,
      y: series.map((r) => (metric === "gbps" ? r.gbps : r.medianMs)),
      hovertemplate: `${name}, ${results.sizeLabel} %{x}: %{y:.4g} ${metric === "gbps" ? "GB/s" : "ms"}<extra></extra>`,
    };
  });
  const ceiling = copyCeilingOf(all);
  if (metric === "gbps" && ceiling !== undefined) {
    data.push({ type: "scatter", mode: "lines", name: `copy ceiling (${ceiling.toFixed(0)} GB/s)`, x: [results.sizes[0], results.sizes[results.sizes.length - 1]],
      y: [ceiling, ceiling], line: { dash: "dash", color: "gray" }, hoverinfo: "skip" });
  }
  const layout = layoutFor(o, metric === "gbps" ? `Bandwidth against ${results.sizeLabel}` : `Median time against ${results.sizeLabel}`,
    { title: { text: results.sizeLabel }, type: "log" },
    metric === "gbps" ? { title: { text: "bandwidth (GB/s)" }, rangemode: "tozero" } : { title: { text: "median time (ms)" }, type: "log" });
  return make(o, data, layout, results.toString());
}

/** Options of `fl.plot.speedup()`. */
export interface SpeedupOptions extends PlotOptions {
  /** The case the others are compared with: the first case when left out. */
  baseline?: string;
}

/**
 * How many times faster each case is than `baseline`: bars for bench results,
 * lines against size for a sweep; 1x is drawn across (above it the case wins).
 */
export function speedup(results: BenchResults | SweepResults, options?: SpeedupOptions): Figure {
  const where = "fl.plot.speedup";
  if (!(results instanceof BenchResults) && !(results instanceof SweepResults)) {
    throw new ArgumentError(where, "results", "the results of fl.bench() or fl.sweep()", describe(results));
  }
  const o = checkPlotOptions(where, options) as SpeedupOptions;
  const names = results instanceof BenchResults ? results.map((r) => r.name) : [...results.caseNames];
  const baseline = o.baseline ?? names[0];
  if (!names.includes(baseline)) throw new ArgumentError(where, "options.baseline", `one of ${names.map((n) => JSON.stringify(n)).join(", ")}`, describe(baseline));
  const others = names.filter((n) => n !== baseline);
  const title = `Speed-up over ${baseline}`;
  const unity = { type: "line", xref: "paper", x0: 0, x1: 1, y0: 1, y1: 1, line: { dash: "dash", color: "gray" } };
  if (results instanceof BenchResults) {
    const factors = results.speedupVs(baseline);
    const data = [{ type: "bar", x: others, y: others.map((n) => factors[n]), text: others.map((n) => `${factors[n].toFixed(2)}x`),
      textposition: "outside", cliponaxis: false, hovertemplate: "%{x}: %{y:.3g}x<extra></extra>" }];
    const layout = layoutFor(o, title, { title: { text: "case" } }, { title: { text: `x faster than ${baseline}` }, rangemode: "tozero" },
      { shapes: [unity], showlegend: false });
    const text = textTable([["case", `x vs ${baseline}`], ...others.map((n) => [n, `${factors[n].toFixed(2)}x`])], 1);
    return make(o, data, layout, text);
  }
  const data = others.map((name) => ({
    type: "scatter", mode: "lines+markers", name, x: results.sizes,
    y: results.results.map((r) => r.get(baseline).medianMs / r.get(name).medianMs),
    hovertemplate: `${name}, ${results.sizeLabel} %{x}: %{y:.3g}x<extra></extra>`,
  }));
  const layout = layoutFor(o, title, { title: { text: results.sizeLabel }, type: "log" },
    { title: { text: `x faster than ${baseline}` }, rangemode: "tozero" }, { shapes: [unity] });
  return make(o, data, layout, results.toString());
}

/**
 * Bytes each launch reads and writes, one group of bars a ledger (e.g.
 * `{ unfused, fused }`), in MB; each group's total above it.
 */
export function traffic(ledgers: Record<string, Ledger>, options?: PlotOptions): Figure {
  const where = "fl.plot.traffic";
  const expected = "an object of ledgers from fl.traffic(), e.g. { unfused, fused }";
  if (typeof ledgers !== "object" || ledgers === null || Array.isArray(ledgers) || Object.keys(ledgers).length === 0) {
    throw new ArgumentError(where, "ledgers", expected, describe(ledgers));
  }
  for (const [name, ledger] of Object.entries(ledgers)) {
    if (!(ledger instanceof Ledger)) throw new ArgumentError(where, `ledgers.${name}`, "a ledger from fl.traffic()", describe(ledger));
  }
  const o = checkPlotOptions(where, options);
  const mb = (bytes: number) => bytes / 1e6;
  // Two rows of category labels: the ledger with its totals, then the kernel (with its launch count when it ran more than once).
  const group = (name: string, l: Ledger) => `${name}: ${mb(l.bytes).toFixed(2)} MB, ${l.launches} launch${l.launches === 1 ? "" : "es"}`;
  const bars = Object.entries(ledgers).flatMap(([name, ledger]) => ledger.entries.map((e) => ({ group: group(name, ledger), e })));
  const x = [bars.map((b) => b.group), bars.map((b) => b.e.kernel + (b.e.launches > 1 ? ` ×${b.e.launches}` : ""))];
  const data = [
    { type: "bar", name: "read", x, y: bars.map((b) => mb(b.e.bytesRead)), hovertemplate: "%{x}: read %{y:.3f} MB<extra></extra>" },
    { type: "bar", name: "written", x, y: bars.map((b) => mb(b.e.bytesWritten)), hovertemplate: "%{x}: written %{y:.3f} MB<extra></extra>" },
  ];
  const layout = layoutFor(o, "Bytes each launch moves",
    { title: { text: "" }, type: "multicategory" }, { title: { text: "MB (10^6 bytes)" }, rangemode: "tozero" }, { barmode: "stack" });
  const text = Object.entries(ledgers).map(([name, l]) => `${name}:\n${l.toString()}`).join("\n\n");
  return make(o, data, layout, text);
}

/** A kernel on the roofline: the work one run does and how long it took. */
export interface RooflinePoint {
  name: string;
  /** Floating-point operations in one run. */
  flops: number;
  /** Bytes one run moves to and from memory (e.g. a bench result's bytesRead + bytesWritten). */
  bytes: number;
  /** Time of one run (e.g. a bench result's medianMs). */
  ms: number;
}

/** This machine's ceilings: its copy bandwidth (from fl.copyCeiling()) and, when known, its peak arithmetic rate. */
export interface RooflineCeilings {
  bandwidthGBs: number;
  peakGflops?: number;
}

/**
 * The roofline (log-log): arithmetic intensity (FLOP/byte) against GFLOP/s, with
 * the memory roof (bandwidth × intensity) and the compute roof when given.
 */
export function roofline(points: readonly RooflinePoint[], ceilings: RooflineCeilings, options?: PlotOptions): Figure {
  const where = "fl.plot.roofline";
  if (!Array.isArray(points) || points.length === 0) throw new ArgumentError(where, "points", "a non-empty array of { name, flops, bytes, ms }", describe(points));
  points.forEach((p, i) => {
    const ok = typeof p === "object" && p !== null && typeof p.name === "string" &&
      [p.flops, p.bytes, p.ms].every((v) => typeof v === "number" && Number.isFinite(v) && v > 0);
    if (!ok) throw new ArgumentError(where, `points[${i}]`, "{ name, flops, bytes, ms } with positive numbers", describe(p));
  });
  if (typeof ceilings !== "object" || ceilings === null || !(ceilings.bandwidthGBs > 0) ||
      (ceilings.peakGflops !== undefined && !(ceilings.peakGflops > 0))) {
    throw new ArgumentError(where, "ceilings", "{ bandwidthGBs, peakGflops? } with positive numbers (bandwidthGBs from fl.copyCeiling())", describe(ceilings));
  }
  const o = checkPlotOptions(where, options);
  const intensity = points.map((p) => p.flops / p.bytes);
  const gflops = points.map((p) => p.flops / p.ms / 1e6);
  const low = Math.min(...intensity) / 4;
  const ridge = ceilings.peakGflops !== undefined ? ceilings.peakGflops / ceilings.bandwidthGBs : undefined;
  const high = Math.max(Math.max(...intensity) * 4, ridge !== undefined ? ridge * 4 : 0);
  const roofAt = (ai: number) => Math.min(ai * ceilings.bandwidthGBs, ceilings.peakGflops ?? Infinity);
  const roofX = ridge !== undefined && ridge > low && ridge < high ? [low, ridge, high] : [low, high];
  const data = [
    { type: "scatter", mode: "lines", name: `roof: ${ceilings.bandwidthGBs.toFixed(0)} GB/s` + (ceilings.peakGflops ? `, ${ceilings.peakGflops.toFixed(0)} GFLOP/s` : ""),
      x: roofX, y: roofX.map(roofAt), line: { color: "gray" }, hoverinfo: "skip" },
    { type: "scatter", mode: "markers+text", name: "kernels", x: intensity, y: gflops, text: points.map((p) => p.name),
      textposition: "top center", marker: { size: 10 }, hovertemplate: "%{text}: %{x:.3g} FLOP/byte, %{y:.4g} GFLOP/s<extra></extra>" },
  ];
  const layout = layoutFor(o, "Roofline of this device", { title: { text: "arithmetic intensity (FLOP/byte)" }, type: "log" },
    { title: { text: "GFLOP/s" }, type: "log" }, { showlegend: true });
  const text = textTable([["kernel", "FLOP/byte", "GFLOP/s", "roof GFLOP/s"],
    ...points.map((p, i) => [p.name, intensity[i].toPrecision(3), gflops[i].toPrecision(4), roofAt(intensity[i]).toPrecision(4)])], 1);
  return make(o, data, layout, text);
}

/** `fl.plot`: charts of bench results, sweeps, speed-ups, traffic ledgers and the roofline. */
export const plot = { bench, sweep, speedup, traffic, roofline, load };
