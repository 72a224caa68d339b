// Sweeps and charts: sweep() benches every case at every size, frees the inputs it
// made and reports progress in place; each fl.plot chart carries the numbers it was
// given, its text for where it cannot be drawn, and plotly.js enters a notebook once.
import { expect } from "chai";
import * as fl from "../src";
import { plotlySource } from "../src/plot";
import { expectRejects, expectThrows, testDevice, withNotebook } from "./helpers";

const QUICK = { warmup: 0, iters: 3 };

describe("sweep and plot", function () {
  this.timeout(5 * 60 * 1000);
  const dev = testDevice;
  let swept: fl.SweepResults;
  const inputs: fl.Tensor[][] = [];

  before(async () => {
    swept = await fl.sweep({
      sizes: [8, 40],
      sizeLabel: "rows",
      inputs: (rows) => {
        const made = { x: fl.randn([rows, 64], { device: dev(), seed: rows }), r: fl.randn([rows, 64], { device: dev(), seed: rows + 1 }),
          w: fl.rand([64], { device: dev(), seed: 3 }) };
        inputs.push(Object.values(made));
        return made;
      },
      cases: {
        unfused: ({ x, r, w }) => fl.ops.rmsNorm(fl.ops.add(x, r), w),
        fused: ({ x, r, w }) => fl.fused.addRmsNorm(x, r, w),
      },
      bench: { ...QUICK, copyCeilingGBs: 50 },
    });
  });

  it("benches every case at every size and frees the inputs it made", () => {
    expect(swept.sizes).to.deep.equal([8, 40]);
    expect(swept.caseNames).to.deep.equal(["unfused", "fused"]);
    expect(swept.results.map((r) => r.map((x) => x.name))).to.deep.equal([["unfused", "fused"], ["unfused", "fused"]]);
    expect(swept.series("fused").map((r) => r.launches)).to.deep.equal([1, 1]);
    expect(swept.series("unfused").map((r) => r.launches)).to.deep.equal([2, 2]);
    // 40 rows move five times the bytes of 8 (the weight vector aside).
    const [small, large] = swept.series("fused").map((r) => r.bytesRead + r.bytesWritten - 64 * 4);
    expect(large / small).to.equal(5);
    expect(inputs.flat().every((t) => t.disposed)).to.equal(true);
    const lines = swept.toString().split("\n");
    expect(lines[0].split(/\s{2,}/)).to.deep.equal(["rows", "unfused ms", "unfused GB/s", "fused ms", "fused GB/s", "fused x"]);
    expect(lines.slice(2).map((l) => l.trim().split(/\s+/)[0])).to.deep.equal(["8", "40"]);
    const first = swept.results[0];
    expect(lines[2].trim().split(/\s+/).pop()).to.equal(`${(first.get("unfused").medianMs / first.get("fused").medianMs).toFixed(2)}x`);
    expectThrows(() => swept.series("fuse"), fl.ArgumentError, 'results.series: name must be one of "unfused", "fused", got "fuse"');
  });

  it("refuses bad sweeps, naming the argument", async () => {
    const cases = { a: () => fl.ops.add(fl.ones([4], { device: dev() }), fl.ones([4], { device: dev() })) };
    await expectRejects(fl.sweep({ sizes: [], cases }), fl.ArgumentError, "fl.sweep: options.sizes must be a non-empty array of positive numbers, got []");
    await expectRejects(fl.sweep({ sizes: [1], cases: { a: 3 } } as never), fl.ArgumentError,
      "fl.sweep: options.cases.a must be a function of the inputs that launches work, got 3");
    await expectRejects(fl.sweep({ sizes: [1], cases, size: 3 } as never), fl.ArgumentError,
      'fl.sweep: options must be an object with keys among sizes, inputs, cases, bench, sizeLabel, got the key "size"');
    await expectRejects(fl.sweep({ sizes: [1], cases: { a: () => 1 } }), fl.ArgumentError,
      "fl.sweep: cases.a must be a function that launches at least one kernel, got a function that launched none");
  });

  it("shows progress in a notebook as one output updated in place", async () => {
    const sent = await withNotebook(() => fl.sweep({
      sizes: [4, 8], inputs: (n) => ({ x: fl.ones([n], { device: dev() }) }),
      cases: { add: ({ x }) => fl.ops.add(x, x), relu: ({ x }) => fl.ops.relu(x) }, bench: QUICK,
    }));
    const ids = new Set(sent.map((s) => s.transient.display_id));
    expect(ids.size).to.equal(1);
    expect(sent.map((s) => s.update)).to.deep.equal([false, ...sent.slice(1).map(() => true)]);
    expect(sent[sent.length - 2].data["text/plain"]).to.match(/^fl\.sweep \[#+\.*\] 3\/4 size 8: relu$/);
    expect(sent[sent.length - 1].data["text/plain"]).to.match(/^fl\.sweep: 2 sizes × 2 cases in \d+\.\d s$/);
    expect(sent[1].data["text/html"]).to.include('<progress value="0" max="4"');
  });

  it("shows progress on one terminal line, redrawn in place, and nothing when stderr is not a terminal", async () => {
    const stderr = process.stderr as NodeJS.WriteStream & { isTTY: boolean };
    const wasTTY = stderr.isTTY;
    const write = stderr.write;
    const written: string[] = [];
    const run = () => fl.sweep({ sizes: [4], inputs: (n) => ({ x: fl.ones([n], { device: dev() }) }), cases: { add: ({ x }) => fl.ops.add(x, x) }, bench: QUICK });
    try {
      stderr.write = ((chunk: string) => { written.push(chunk); return true; }) as typeof stderr.write;
      stderr.isTTY = true;
      await run();
      stderr.isTTY = false;
      const before = written.length;
      await run();
      expect(written.length, "writes with stderr not a terminal").to.equal(before);
    } finally {
      stderr.write = write;
      stderr.isTTY = wasTTY;
    }
    expect(written.every((w) => w.startsWith("\r\x1b[2K"))).to.equal(true);
    expect(written[0]).to.equal(`\r\x1b[2Kfl.sweep [${".".repeat(30)}] 0/1 size 4: making inputs`);
    expect(written[written.length - 1]).to.match(/^\r\x1b\[2Kfl\.sweep: 1 size × 1 case in \d+\.\d s\n$/);
  });

  it("draws bench results as bars of median time with their spread", async () => {
    const results = swept.results[1];
    const figure = fl.plot.bench(results, { title: "tiny" });
    const [bars] = figure.data as { x: string[]; y: number[]; error_y: { array: number[]; arrayminus: number[] }; text: string[] }[];
    expect(bars.x).to.deep.equal(["unfused", "fused"]);
    expect(bars.y).to.deep.equal(results.map((r) => r.medianMs));
    expect(bars.error_y.array).to.deep.equal(results.map((r) => r.p80Ms - r.medianMs));
    expect(bars.error_y.arrayminus).to.deep.equal(results.map((r) => r.medianMs - r.p20Ms));
    expect(bars.text[1]).to.match(/ ms, \d+\.\d GB\/s$/);
    expect((figure.layout.title as { text: string }).text).to.equal("tiny");
    expect((figure.layout.yaxis as { title: { text: string } }).title.text).to.equal("median time (ms), whisker: 20th-80th pct");
    expect(figure.toString()).to.equal(results.toString());
    expectThrows(() => fl.plot.bench(swept as never), fl.ArgumentError, /^fl\.plot\.bench: results must be the results of fl\.bench\(\), got /);
    expectThrows(() => fl.plot.bench(results, { theme: "blue" } as never), fl.ArgumentError,
      'fl.plot.bench: options.theme must be "auto", "light" or "dark", got "blue"');
  });

  it("draws a sweep as GB/s against size with the copy ceiling, or as time", () => {
    const figure = fl.plot.sweep(swept);
    const traces = figure.data as { name: string; x: number[]; y: number[] }[];
    expect(traces.map((t) => t.name)).to.deep.equal(["unfused", "fused", "copy ceiling (50 GB/s)"]);
    expect(traces[1].x).to.deep.equal([8, 40]);
    expect(traces[1].y).to.deep.equal(swept.series("fused").map((r) => r.gbps));
    expect(traces[2].y[0]).to.be.closeTo(50, 1e-9);
    expect((figure.layout.xaxis as { type: string; title: { text: string } })).to.deep.include({ type: "log", title: { text: "rows" } });
    const time = fl.plot.sweep(swept, { metric: "time" });
    expect((time.data[0] as { y: number[] }).y).to.deep.equal(swept.series("unfused").map((r) => r.medianMs));
    expect(time.data).to.have.length(2);
  });

  it("draws speed-ups over a baseline, for bench results and sweeps", () => {
    const perSize = fl.plot.speedup(swept, { baseline: "unfused" });
    expect((perSize.data[0] as { y: number[] }).y).to.deep.equal(swept.results.map((r) => r.get("unfused").medianMs / r.get("fused").medianMs));
    const bars = fl.plot.speedup(swept.results[0], { baseline: "fused" });
    expect((bars.data[0] as { x: string[]; y: number[] }).x).to.deep.equal(["unfused"]);
    expect((bars.data[0] as { y: number[] }).y).to.deep.equal([swept.results[0].speedupVs("fused").unfused]);
    expectThrows(() => fl.plot.speedup(swept, { baseline: "eager" }), fl.ArgumentError,
      'fl.plot.speedup: options.baseline must be one of "unfused", "fused", got "eager"');
  });

  it("draws ledgers as bytes read and written per launch, grouped by ledger", () => {
    const x = fl.randn([16, 32], { device: dev(), seed: 1 });
    const r = fl.randn([16, 32], { device: dev(), seed: 2 });
    const w = fl.rand([32], { device: dev(), seed: 3 });
    const unfused = fl.traffic(() => fl.ops.rmsNorm(fl.ops.add(x, r), w));
    const fused = fl.traffic(() => fl.fused.addRmsNorm(x, r, w));
    const figure = fl.plot.traffic({ unfused, fused });
    const [read, written] = figure.data as { name: string; x: string[][]; y: number[] }[];
    const group = (name: string, l: fl.Ledger) => `${name}: ${(l.bytes / 1e6).toFixed(2)} MB, ${l.launches} launch${l.launches === 1 ? "" : "es"}`;
    expect(read.x).to.deep.equal([[group("unfused", unfused), group("unfused", unfused), group("fused", fused)],
      [...unfused.entries, ...fused.entries].map((e) => e.kernel)]);
    expect(read.x[0][0]).to.match(/^unfused: \d+\.\d\d MB, 2 launches$/);
    expect(read.y).to.deep.equal([...unfused.entries, ...fused.entries].map((e) => e.bytesRead / 1e6));
    expect(written.y).to.deep.equal([...unfused.entries, ...fused.entries].map((e) => e.bytesWritten / 1e6));
    expect(figure.layout.barmode).to.equal("stack");
    expect(figure.toString()).to.equal(`unfused:\n${unfused.toString()}\n\nfused:\n${fused.toString()}`);
    expectThrows(() => fl.plot.traffic({ unfused, fused: 3 } as never), fl.ArgumentError, "fl.plot.traffic: ledgers.fused must be a ledger from fl.traffic(), got 3");
    for (const t of [x, r, w]) t.dispose();
  });

  it("draws the roofline: the memory roof up to the ridge, then the compute roof", () => {
    const figure = fl.plot.roofline([{ name: "add", flops: 1e6, bytes: 12e6, ms: 0.5 }, { name: "gemm", flops: 2e9, bytes: 1e7, ms: 4 }],
      { bandwidthGBs: 1000, peakGflops: 50_000 });
    const [roof, points] = figure.data as { x: number[]; y: number[] }[];
    expect(roof.x[1]).to.equal(50); // the ridge: 50000 GFLOP/s / 1000 GB/s
    expect(roof.y).to.deep.equal(roof.x.map((ai) => Math.min(ai * 1000, 50_000)));
    expect(points.x).to.deep.equal([1e6 / 12e6, 200]);
    expect(points.y).to.deep.equal([1e6 / 0.5 / 1e6, 2e9 / 4 / 1e6]);
    expectThrows(() => fl.plot.roofline([{ name: "x", flops: 0, bytes: 1, ms: 1 }], { bandwidthGBs: 1 }), fl.ArgumentError,
      /^fl\.plot\.roofline: points\[0\] must be \{ name, flops, bytes, ms \} with positive numbers, got /);
  });

  it("writes a chart's HTML: a placeholder with its text, and a script that waits for plotly.js", () => {
    const figure = fl.plot.traffic({ "</script><b>": fl.traffic(() => fl.ops.relu(fl.ones([4], { device: dev() }))) });
    const html = figure.toHTML();
    expect(html).to.match(/^<div id="fuselab-chart-[0-9a-f]{16}" class="fuselab-chart" style="width:100%;max-width:900px;min-height:420px">/);
    expect(html).to.include("trust the notebook").and.include("&lt;/script&gt;&lt;b&gt;:");
    // One script element: the data inside it cannot close it.
    expect(html.match(/<\/script>/g)).to.have.length(1);
    expect(html).to.include("window.Plotly.newPlot(element, figure.data, layout");
    expect(html).to.include("run fl.plot.load() in a cell");
  });

  it("puts plotly.js into a notebook once, before the first chart, and again on fl.plot.load()", async () => {
    const results = swept.results[0];
    const sent = await withNotebook(() => {
      fl.plot.bench(results);
      fl.plot.speedup(results);
      fl.plot.load();
    });
    const library = sent.map((s, i) => (s.data["text/html"].includes(plotlySource().slice(0, 200)) ? i : -1)).filter((i) => i >= 0);
    // No chart went to a notebook before in this process: the first one brings the library.
    expect(library).to.deep.equal([0, sent.length - 1]);
    expect(sent.filter((s) => s.data["text/html"].includes("fuselab-chart-"))).to.have.length(2);
    expect(sent.every((s) => typeof s.data["text/plain"] === "string")).to.equal(true);
  });
});
