// Lessons run without Jupyter: code cells in order as one program, each cell's
// output captured, a failing cell stopping the rest, and the page that shows it.
import { expect } from "chai";
import { Notebook } from "../src/lessons";
import * as fs from "fs";
import * as path from "path";
import { packageRoot } from "../src/native";
import { lessonHtml, pageLink, runProgram, transpileLessons, transpileNotebook } from "../src/run-lessons";
import { inNotebook } from "../src/tslab";

function notebook(cells: [("markdown" | "code"), string][]): Notebook {
  return {
    cells: cells.map(([type, text], i) => ({ cell_type: type, id: `cell-${i}`, metadata: {}, source: [text] })),
    metadata: {
      kernelspec: { display_name: "", language: "typescript", name: "fuselab" },
      language_info: { name: "typescript", file_extension: ".ts", mimetype: "text/typescript" },
    },
    nbformat: 4, nbformat_minor: 5,
  };
}

describe("run-lessons", () => {
  it("makes one program a lesson, with a marker for every code cell and fuselab imported from the package", () => {
    for (const program of transpileLessons()) {
      const codeCells = program.notebook.cells.map((c, i) => [c.cell_type, i] as const).filter(([t]) => t === "code");
      for (const [, i] of codeCells) expect(program.js, program.lesson).to.include(`__cell(${i});`);
      expect(program.js, program.lesson).to.not.include('require("fuselab")');
    }
  });

  it("captures each cell's output, lets a later cell use an earlier one's names and await, and stops at a failure", async () => {
    const program = transpileNotebook("test-lesson", "text", notebook([
      ["markdown", "# A <title>"],
      ["code", "import * as fl from \"fuselab\";\nconst n: number = 2;\nconsole.log(`two is ${n}`, typeof fl.device);"],
      ["code", "await new Promise((r) => setTimeout(r, 1));\nconsole.log(\"<after>\", n * 2);\n" +
        "fl.display({ toHTML: () => \"<b>rich</b>\", toString: () => \"rich\" });"],
      ["code", "throw new Error(\"boom & bust\");"],
      ["code", "console.log(\"never\");"],
    ]));
    const outputs = await runProgram(program, false);
    expect(outputs.get(1)!.text).to.include("two is 2 function");
    expect(outputs.get(2)!.text).to.include("<after> 4");
    expect(outputs.get(2)!.items.map((i) => i.kind)).to.deep.equal(["text", "html"], "printed text, then the rich display");
    expect(inNotebook(), "the stand-in for tslab is gone once the program ends").to.equal(false);
    expect(outputs.get(3)!.error).to.equal("Error: boom & bust");
    expect(outputs.has(4)).to.equal(false);
    const html = lessonHtml(program, outputs, "ran here");
    expect(html).to.include("<h1>A &lt;title&gt;</h1>");
    expect(html).to.include("&lt;after&gt; 4");
    expect(html).to.include("Error: boom &amp; bust");
    expect(html).to.include("not run: an earlier cell failed");
    expect(html).to.include('<div class="output"><b>rich</b></div>');
  });

  it("points a page's links where the page lies: lessons to their pages, the rest into the package", () => {
    const pages = path.join(packageRoot(), "docs", "lessons");
    const lessons = new Set(transpileLessons().map((p) => p.lesson));
    expect(pageLink("02-elementwise-fusion.ipynb#measure", pages, lessons)).to.equal("02-elementwise-fusion.html#measure");
    expect(pageLink("../exercises/01-add-relu/01-add-relu.ipynb", pages, lessons)).to.equal("../../exercises/01-add-relu/01-add-relu.ipynb");
    expect(pageLink("https://example.org/a.ipynb", pages, lessons)).to.equal("https://example.org/a.ipynb");
    expect(pageLink("#top", pages, lessons)).to.equal("#top");
    // Every relative link of every lesson page lands on a page or on a file of the package.
    for (const program of transpileLessons()) {
      const html = lessonHtml(program, new Map(), "", undefined, (href) => pageLink(href, pages, lessons));
      for (const [, href] of html.matchAll(/<a href="([^"#]+)[^"]*"/g)) {
        if (/^[a-z]+:/i.test(href)) continue;
        const target = path.resolve(pages, href);
        const page = /^([^/]+)\.html$/.exec(href);
        expect(page ? lessons.has(page[1]) : fs.existsSync(target), `${program.lesson}: ${href}`).to.equal(true);
      }
    }
  });
  it("keeps the committed pages under docs/lessons linked to what exists, plotly.js beside them", () => {
    const pages = path.join(packageRoot(), "docs", "lessons");
    const files = fs.readdirSync(pages).filter((f) => f.endsWith(".html"));
    expect(files.length).to.be.greaterThan(0);
    expect(fs.existsSync(path.join(pages, "plotly-basic.min.js"))).to.equal(true);
    for (const file of files) {
      const html = fs.readFileSync(path.join(pages, file), "utf8");
      expect(html, file).to.match(/Run on [^<]+, \d{4}-\d{2}-\d{2}, with node dist\/src\/run-lessons\.js/);
      for (const [, href] of html.matchAll(/(?:href|src)="([^"#]+)[^"]*"/g)) {
        if (/^[a-z]+:/i.test(href)) continue;
        expect(fs.existsSync(path.resolve(pages, href)), `${file}: ${href}`).to.equal(true);
      }
    }
  });
});
