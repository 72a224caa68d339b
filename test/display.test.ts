// Rich display: each result type as HTML with a text fallback, sent to the
// notebook as one output with both; argument errors shown with the user's frames
// and not fuselab's own; and in a real notebook, the failing line of the cell.
import { expect } from "chai";
import * as fs from "fs";
import * as path from "path";
import { inspect } from "util";
import * as fl from "../src";
import { richOutput } from "../src/display";
import { userFrames } from "../src/errors";
import { packageRoot } from "../src/native";
import { testDevice, withNotebook } from "./helpers";
import { TestJupyter, executeNotebook, requireJupyter, testJupyter } from "./notebook-runner";

describe("display", () => {
  const dev = testDevice;

  it("shows a tensor's dtype, shape, device and the corner of its values", () => {
    const t = fl.tensor(Array.from({ length: 30 }, (_, i) => i / 4), { shape: [3, 10], device: dev() });
    const expectedText = [
      `tensor f32 [3, 10] on ${dev().describe()}`,
      "  0, 0.25, 0.5, 0.75, 1, 1.25, 1.5, 1.75, ...",
      "  2.5, 2.75, 3, 3.25, 3.5, 3.75, 4, 4.25, ...",
      "  5, 5.25, 5.5, 5.75, 6, 6.25, 6.5, 6.75, ...",
    ].join("\n");
    expect(inspect(t)).to.equal(expectedText);
    const { html, text } = richOutput(t);
    expect(text).to.equal(expectedText);
    expect(html).to.include("f32 [3, 10]").and.include(">6.75</td>").and.include(">…</td>").and.include(", 120 bytes");
    const tall = fl.zeros([6, 2], { dtype: "i32", device: dev() });
    expect(inspect(tall).split("\n").slice(1)).to.deep.equal(["  0, 0", "  0, 0", "  0, 0", "  0, 0", "  ..."]);
    expect(richOutput(tall).html).to.include(">⋮</td>");
    tall.dispose();
    expect(inspect(tall)).to.equal(`tensor i32 [6, 2] on ${dev().describe()} (disposed)`);
  });

  it("shows 64-bit integers whole, past 2^53, and doubles", () => {
    const big = fl.tensor([2n ** 60n + 1n, -(2n ** 63n)], { dtype: "i64", device: dev() });
    expect(inspect(big)).to.equal(`tensor i64 [2] on ${dev().describe()}\n  1152921504606846977, -9223372036854775808`);
    expect(richOutput(big).html).to.include(">1152921504606846977</td>").and.include(", 16 bytes");
    const doubles = fl.tensor([0.1, 1e-300, 123456.75], { dtype: "f64", device: dev() });
    expect(inspect(doubles)).to.equal(`tensor f64 [3] on ${dev().describe()}\n  0.1, 1.000e-300, 1.235e+5`);
    expect(inspect(big.view(1))).to.equal(`view: elements 1 to 1 of an i64 tensor of shape [2] on ${dev().describe()}`);
  });

  it("shows bench results, ledgers, compare reports and devices() as tables", async () => {
    const x = fl.randn([64, 32], { device: dev(), seed: 1 });
    const r = fl.randn([64, 32], { device: dev(), seed: 2 });
    const ledger = fl.traffic(() => fl.ops.add(x, r));
    const ledgerOut = richOutput(ledger);
    expect(ledgerOut.text).to.equal(ledger.toString());
    expect(inspect(ledger)).to.equal(ledger.toString());
    expect(ledgerOut.html).to.match(/^<table/).and.include(">add_f32</td>").and.include("font-weight:bold\">total</td>");

    const results = await fl.bench({ add: () => fl.ops.add(x, r) }, { warmup: 0, iters: 3 });
    expect(richOutput(results).text).to.equal(results.toString());
    expect(inspect(results)).to.equal(results.toString());
    expect(richOutput(results).html).to.include(">median ms</th>").and.include(">add</td>");

    const report = fl.compare([1, 2, 3], [1, 2.5, 3]);
    expect(inspect(report)).to.equal(report.toString());
    const reportHtml = richOutput(report).html;
    expect(reportHtml).to.include("<b>not close</b>: 1 of 3 elements differ").and.include(">[1]</td><td").and.include(">2.5</td>");
    expect(richOutput(fl.compare([1], [1])).html).to.not.include("<table");

    const devices = richOutput(fl.devices());
    expect(devices.html).to.include(">backend</th>").and.include(">cpu</td>");
    expect(devices.text.split("\n")).to.include(`cpu:0  ${fl.devices().find((d) => d.backend === "cpu")!.name} (cpu)`);
    for (const t of [x, r]) t.dispose();
  });

  it("escapes what it shows, and falls back to util.inspect for other values", () => {
    expect(richOutput({ a: "<b>" })).to.deep.equal({ html: "<pre>{ a: '&lt;b&gt;' }</pre>", text: "{ a: '<b>' }" });
    expect(richOutput("plain <text>")).to.deep.equal({ html: "<pre>plain &lt;text&gt;</pre>", text: "plain <text>" });
  });

  it("sends HTML and text in one output to a notebook, and prints the text elsewhere", async () => {
    const t = fl.ones([2], { device: dev() });
    const sent = await withNotebook(() => fl.display(t));
    expect(sent).to.have.length(1);
    expect(Object.keys(sent[0].data)).to.deep.equal(["text/html", "text/plain"]);
    expect(sent[0].data["text/plain"]).to.equal(inspect(t));
    expect(sent[0].update).to.equal(false);
    const printed: string[] = [];
    const log = console.log;
    console.log = (text: string) => printed.push(text);
    try {
      fl.display(t);
    } finally {
      console.log = log;
    }
    expect(printed).to.deep.equal([inspect(t)]);
  });

  it("shows an argument error with its message and the user's frames, none of fuselab's", () => {
    let error: unknown;
    try {
      fl.ops.add(fl.ones([2], { device: dev() }), 2 as unknown as fl.Tensor);
    } catch (e) {
      error = e;
    }
    const lines = inspect(error).split("\n");
    expect(lines[0]).to.equal("ArgumentError: fl.ops.add: b must be a tensor, got 2");
    expect(lines[1]).to.include(path.join("dist", "test", "display.test.js"));
    expect(lines.slice(1).join("\n")).to.not.include(path.join("dist", "src"));
    expect((error as Error).stack, "the stack keeps every frame").to.include(path.join("dist", "src", "ops"));
  });

  it("picks the user's frames out of a stack", () => {
    const library = path.join(packageRoot(), "dist", "src");
    const stack = [
      "ArgumentError: fl.ops.add: b must be a tensor, got 2",
      `    at checkTensor (${library}/ops/common.js:24:15)`,
      "    at evalmachine.<anonymous>:32:29",
      "    at helper (/home/student/helper.js:3:9)",
      "    at sigintHandlersWrap (node:vm:280:12)",
      `    at Object.execute (${packageRoot()}/node_modules/tslab/dist/executor.js:160:38)`,
    ].join("\n");
    // Outside a kernel the cell's code is not known: the frame still says where.
    expect(userFrames(stack)).to.deep.equal(["    in the cell", "    at helper (/home/student/helper.js:3:9)"]);
  });

  describe("in a notebook", function () {
    this.timeout(5 * 60 * 1000);
    let jupyter: TestJupyter;
    let dir: string;
    before(() => {
      jupyter = testJupyter();
      fs.mkdirSync(path.join(packageRoot(), ".fuselab"), { recursive: true });
      dir = fs.mkdtempSync(path.join(packageRoot(), ".fuselab", "display-"));
    });
    after(() => {
      jupyter.dispose();
      fs.rmSync(dir, { recursive: true, force: true });
    });

    function writeNotebook(name: string, cells: string[]): string {
      const notebook = path.join(dir, name);
      fs.writeFileSync(notebook, JSON.stringify({
        cells: cells.map((source) => ({ cell_type: "code", execution_count: null, metadata: {}, outputs: [], source })),
        metadata: { kernelspec: { name: "fuselab", display_name: "TypeScript (fuselab)", language: "typescript" } },
        nbformat: 4, nbformat_minor: 4,
      }));
      return notebook;
    }

    it("a result as a cell's last expression shows rich, printing nothing; charts bring plotly.js once", async function () {
      requireJupyter(this, jupyter);
      const notebook = writeNotebook("rich.ipynb", [
        'import * as fl from "fuselab";\nconst x = fl.ones([4]);',
        "x",
        "console.log(x);",
        "const ledger = fl.traffic(() => fl.ops.relu(x));\nfl.plot.traffic({ relu: ledger });",
        "fl.plot.traffic({ again: ledger });",
      ]);
      const problems = await executeNotebook(jupyter, notebook, { save: true });
      expect(problems).to.deep.equal([]);
      type Output = { output_type: string; name?: string; text?: string; data?: Record<string, string> };
      // A saved notebook may keep a text as a list of lines.
      const joined = (text: string | string[]) => (Array.isArray(text) ? text.join("") : text);
      const outputs = (JSON.parse(fs.readFileSync(notebook, "utf8")).cells as { outputs: Output[] }[]).map((c) => c.outputs.map((o) => ({
        ...o, text: o.text === undefined ? undefined : joined(o.text),
        data: o.data && Object.fromEntries(Object.entries(o.data).map(([k, v]) => [k, joined(v)])),
      })));
      const kinds = (list: Output[]) => list.map((o) => o.output_type === "stream" ? `${o.name}: ${o.text}` : Object.keys(o.data!).join(" "));
      expect(kinds(outputs[1])).to.deep.equal(["text/html text/plain"]);
      expect(outputs[1][0].data!["text/plain"]).to.equal("tensor f32 [4] on cpu\n  1, 1, 1, 1".replace("cpu", fl.device().describe()));
      expect(kinds(outputs[2])).to.deep.equal([`stdout: ${outputs[1][0].data!["text/plain"]}\n`]);
      expect(kinds(outputs[3])).to.deep.equal(["text/html text/plain", "text/html text/plain"]);
      expect(outputs[3][0].data!["text/plain"]).to.match(/^plotly\.js \d+\.\d+\.\d+ \(basic bundle\)/);
      expect(outputs[3][1].data!["text/html"]).to.include('class="fuselab-chart"');
      expect(kinds(outputs[4])).to.deep.equal(["text/html text/plain"]);
      expect(outputs[4][0].data!["text/html"]).to.include('class="fuselab-chart"');
    });

    it("an argument error shows the cell's line, not fuselab's stack", async function () {
      requireJupyter(this, jupyter);
      const notebook = writeNotebook("error.ipynb", [
        'import * as fl from "fuselab";\nconst x = fl.ones([4]);',
        "const y = 2;\nconsole.log(\"before\");\nfl.ops.add(x, y as any);",
      ]);
      const problems = await executeNotebook(jupyter, notebook);
      expect(problems.map((p) => [p.cell, p.text])).to.deep.equal([
        [1, "ArgumentError: fl.ops.add: b must be a tensor, got 2\n    in the cell: fl.ops.add(x, y);\n"],
      ]);
    });
  });
});
