// Runs lessons without Jupyter: a lesson's code cells, in order, as one program,
// each cell's output captured, then a static HTML page of the lesson with its
// outputs. This is how the lessons are run on a machine that has Node but no
// Jupyter (the GPU machine), and how their HTML exports under docs/ are made.
//
//   node dist/src/run-lessons.js [--out DIR] [LESSON ...]     (LESSON: "01" or "01-why-fusion")
//   node dist/src/run-lessons.js --prepare                    (what `npm run notebooks` runs)
//
// Programs are transpiled with TypeScript when it is installed; elsewhere they are
// read from dist/lesson-programs/, which --prepare writes.
import { createHash } from "crypto";
import * as fs from "fs";
import MarkdownIt from "markdown-it";
import * as path from "path";
import { escapeHtml } from "./format";
import { Notebook, renderLessons } from "./lessons";
import { packageRoot } from "./native";
import { plotlySource } from "./plot";

export interface Program {
  lesson: string;
  /** sha256 of the lesson's text: a program older than its lesson is refused. */
  lessonHash: string;
  notebook: Notebook;
  /** The code cells as one CommonJS program; `__cell(i)` marks where notebook cell i starts. */
  js: string;
}

/** One output of a cell, in order: printed text, or a rich display (a chart, a table) as HTML. */
export type OutputItem = { kind: "text"; text: string } | { kind: "html"; html: string; displayId?: string };

export interface CellOutput {
  items: OutputItem[];
  /** Everything the cell printed, for a summary. */
  text: string;
  error?: string;
  ms: number;
}

// fuselab shows rich outputs (charts, tables, progress) through tslab's display
// writer when it finds tslab loaded (src/tslab.ts). While a program runs, the
// runner stands in for tslab, so that the page gets what a notebook would show.
const TSLAB_STAND_IN = path.join(__dirname, "tslab-stand-in", "tslab", "dist");

const PLOTLY_FILE = "plotly-basic.min.js";

// The text of the output that carries plotly.js into a notebook (src/plot.ts).
const PLOTLY_LOADER = /^plotly\.js .* for fuselab's charts$/;

type DisplayData = { data: Record<string, string>; transient: { display_id?: string } };

function standInForTslab(onDisplay: (data: DisplayData, update: boolean) => void): () => void {
  const keys = ["executor.js", "jupyter.js"].map((file) => path.join(TSLAB_STAND_IN, file));
  const exports = [{}, { lastWriteDisplayData: onDisplay }];
  keys.forEach((key, i) => {
    require.cache[key] = { id: key, filename: key, loaded: true, exports: exports[i] } as unknown as NodeModule;
  });
  return () => keys.forEach((key) => { delete require.cache[key]; });
}

export function programsDir(): string {
  return path.join(packageRoot(), "dist", "lesson-programs");
}

function hash(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

// `import ... from "fuselab"` lines go to the top; the rest runs inside an async
// function, so that cells may `await` at their top level as they do in tslab.
function programSource(notebook: Notebook): string {
  const imports: string[] = [];
  const body: string[] = [];
  notebook.cells.forEach((cell, i) => {
    if (cell.cell_type !== "code") return;
    body.push(`__cell(${i});`);
    for (const line of cell.source.join("").split("\n")) {
      if (/^import .* from ["'][^"']+["'];?\s*$/.test(line)) imports.push(line.replace(/(["'])fuselab\1/, JSON.stringify("../src")));
      else body.push(line);
    }
  });
  return `${imports.join("\n")}\ndeclare function __cell(i: number): void;\nexport const run = async () => {\n${body.join("\n")}\n};\n`;
}

/** One notebook's program, transpiled by TypeScript (which must be installed). */
export function transpileNotebook(lesson: string, lessonText: string, notebook: Notebook): Program {
  // eslint-disable-next-line @typescript-eslint/no-var-requires
  const ts = require("typescript") as typeof import("typescript");
  const out = ts.transpileModule(programSource(notebook), {
    compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true },
    fileName: `${lesson}.ts`,
  });
  return { lesson, lessonHash: hash(lessonText), notebook, js: out.outputText };
}

/** Every lesson's program. */
export function transpileLessons(): Program[] {
  return renderLessons().map(({ lesson, json }) =>
    transpileNotebook(path.basename(lesson, ".md"), fs.readFileSync(lesson, "utf8"), JSON.parse(json) as Notebook));
}

/** Writes every lesson's program to dist/lesson-programs/ (for machines without TypeScript). */
export function writePrograms(programs: Program[]): void {
  fs.mkdirSync(programsDir(), { recursive: true });
  for (const p of programs) fs.writeFileSync(path.join(programsDir(), `${p.lesson}.json`), JSON.stringify(p));
}

function loadPrograms(): Program[] {
  let typescriptHere = true;
  try {
    require.resolve("typescript");
  } catch {
    typescriptHere = false;
  }
  if (typescriptHere) return transpileLessons();
  return renderLessons().map(({ lesson }) => {
    const name = path.basename(lesson, ".md");
    const file = path.join(programsDir(), `${name}.json`);
    const stale = `dist/lesson-programs/${name}.json is missing or older than lessons/${name}.md: ` +
      "run 'npm run notebooks' where TypeScript is installed, and carry dist/";
    if (!fs.existsSync(file)) throw new Error(stale);
    const program = JSON.parse(fs.readFileSync(file, "utf8")) as Program;
    if (program.lessonHash !== hash(fs.readFileSync(lesson, "utf8"))) throw new Error(stale);
    return program;
  });
}

/**
 * Runs one program, capturing stdout and stderr per cell (and passing them on
 * when `echo`); stops at the first failing cell, as Jupyter does.
 */
export async function runProgram(program: Program, echo = true): Promise<Map<number, CellOutput>> {
  const outputs = new Map<number, CellOutput>();
  let current: CellOutput | undefined;
  let started = 0;
  const finish = () => { if (current) current.ms = performance.now() - started; };
  const g = globalThis as unknown as { __cell: (i: number) => void };
  g.__cell = (i: number) => {
    finish();
    current = { items: [], text: "", ms: 0 };
    outputs.set(i, current);
    started = performance.now();
    if (echo) writeOut(`\n--- ${program.lesson} cell ${i}\n`);
  };
  const file = path.join(programsDir(), `${program.lesson}.run.js`);
  fs.mkdirSync(programsDir(), { recursive: true });
  fs.writeFileSync(file, program.js);
  const writeOut = process.stdout.write.bind(process.stdout);
  const writeErr = process.stderr.write.bind(process.stderr);
  const capture = (write: typeof writeOut) => ((chunk: string | Uint8Array, ...rest: unknown[]) => {
    if (current) {
      const text = typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8");
      current.text += text;
      const last = current.items[current.items.length - 1];
      if (last?.kind === "text") last.text += text;
      else current.items.push({ kind: "text", text });
    }
    return echo ? (write as (...a: unknown[]) => boolean)(chunk, ...rest) : true;
  }) as typeof writeOut;
  process.stdout.write = capture(writeOut);
  process.stderr.write = capture(writeErr);
  const removeStandIn = standInForTslab(({ data, transient }, update) => {
    // plotly.js itself goes once into the page's head (lessonHtml), not into a cell.
    if (!current || PLOTLY_LOADER.test(data["text/plain"] ?? "")) return;
    const html = data["text/html"] ?? `<pre>${escapeHtml(data["text/plain"] ?? "")}</pre>`;
    const displayId = transient.display_id;
    const shown = update && displayId !== undefined
      ? current.items.find((item) => item.kind === "html" && item.displayId === displayId) : undefined;
    if (shown && shown.kind === "html") shown.html = html;
    else current.items.push({ kind: "html", html, displayId });
    if (echo && !update && data["text/plain"]) writeOut(`${data["text/plain"]}\n`);
  });
  try {
    delete require.cache[require.resolve(file)];
    await (require(file) as { run: () => Promise<void> }).run();
  } catch (e) {
    if (current) current.error = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
  } finally {
    finish();
    removeStandIn();
    process.stdout.write = writeOut;
    process.stderr.write = writeErr;
  }
  return outputs;
}


const STYLE = `body{max-width:980px;margin:2em auto;padding:0 1em;font:16px/1.5 system-ui,sans-serif;color:#222}
pre{padding:.6em .8em;overflow-x:auto;font:13px/1.4 ui-monospace,monospace}
pre.code{background:#f4f5f7;border-left:3px solid #8aa}
pre.output{background:#fff;border-left:3px solid #ccc}
pre.error{background:#fff0f0;border-left:3px solid #c33}
div.output{margin:.6em 0;overflow-x:auto}
div.output table{border-collapse:collapse;font-size:13px}
div.output th,div.output td{padding:2px 8px;border-bottom:1px solid #ddd}
.meta{color:#666;font-size:90%}`;

/**
 * Where a lesson's relative link points from a page in `pagesDir`: another
 * lesson's notebook becomes its page beside this one (when it has one), anything
 * else (an exercise's notebook, a results file) the same file in the package,
 * which the notebooks' links are relative to.
 */
export function pageLink(href: string, pagesDir: string, lessons: ReadonlySet<string>): string {
  if (/^([a-z][a-z0-9+.-]*:|#|\/)/i.test(href)) return href;
  const hash = href.indexOf("#");
  const [target, anchor] = hash >= 0 ? [href.slice(0, hash), href.slice(hash)] : [href, ""];
  const lesson = /^([^/]+)\.ipynb$/.exec(target);
  if (lesson && lessons.has(lesson[1])) return `${lesson[1]}.html${anchor}`;
  return path.relative(pagesDir, path.resolve(packageRoot(), "notebooks", target)).split(path.sep).join("/") + anchor;
}

/**
 * The lesson as a page: its prose, each code cell and its outputs. Charts need
 * plotly.js, loaded from `plotlyFile` (a path relative to the page); `link`
 * rewrites the prose's relative links for where the page lies.
 */
export function lessonHtml(program: Program, outputs: Map<number, CellOutput>, where: string, plotlyFile?: string,
  link: (href: string) => string = (href) => href): string {
  const md = new MarkdownIt();
  const linkOpen = md.renderer.rules.link_open ?? ((tokens, i, options, _env, self) => self.renderToken(tokens, i, options));
  md.renderer.rules.link_open = (tokens, i, options, env, self) => {
    const href = tokens[i].attrGet("href");
    if (href !== null) tokens[i].attrSet("href", link(href));
    return linkOpen(tokens, i, options, env, self);
  };
  const parts = program.notebook.cells.map((cell, i) => {
    const source = cell.source.join("");
    if (cell.cell_type === "markdown") return md.render(source);
    const out = outputs.get(i);
    const shown = out === undefined ? `<pre class="error">not run: an earlier cell failed</pre>`
      : out.items.map((item) => item.kind === "html" ? `<div class="output">${item.html}</div>`
        : item.text.trim() ? `<pre class="output">${escapeHtml(item.text)}</pre>` : "").join("\n") +
        (out.error ? `<pre class="error">${escapeHtml(out.error)}</pre>` : "");
    return `<pre class="code">${escapeHtml(source)}</pre>\n${shown}`;
  });
  const charts = [...outputs.values()].some((o) => o.items.some((i) => i.kind === "html" && i.html.includes('class="fuselab-chart"')));
  const plotly = charts && plotlyFile ? `<script src="${escapeHtml(plotlyFile)}"></script>` : "";
  return `<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>${escapeHtml(program.lesson)}</title>` +
    `<style>${STYLE}</style>${plotly}</head><body>\n<p class="meta">${escapeHtml(where)}</p>\n${parts.join("\n")}\n</body></html>\n`;
}

async function main(argv: string[]): Promise<number> {
  let out = path.join(packageRoot(), "docs", "lessons");
  const wanted: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--out") out = path.resolve(argv[++i] ?? "");
    else if (argv[i] === "--prepare") {
      writePrograms(transpileLessons());
      console.log(`lesson programs written to ${path.relative(packageRoot(), programsDir())}/`);
      return 0;
    } else wanted.push(argv[i]);
  }
  const all = loadPrograms();
  const programs = all.filter((p) => wanted.length === 0 || wanted.some((w) => p.lesson === w || p.lesson.startsWith(`${w}-`)));
  const lessons = new Set(all.map((p) => p.lesson));
  if (programs.length === 0) throw new Error(`no lesson matches ${wanted.join(", ")}`);
  fs.mkdirSync(out, { recursive: true });
  // One copy of plotly.js beside the pages, which every chart of every page uses.
  fs.writeFileSync(path.join(out, PLOTLY_FILE), plotlySource());
  // Loaded after the programs are found, so that a stale program is reported before a device is opened.
  // eslint-disable-next-line @typescript-eslint/no-var-requires
  const fl = require("./index") as typeof import("./index");
  const dev = fl.device();
  let anyFailed = false;
  for (const program of programs) {
    const started = performance.now();
    const outputs = await runProgram(program);
    const seconds = (performance.now() - started) / 1000;
    const failed = [...outputs.values()].some((o) => o.error !== undefined);
    const where = `Run on ${dev.name} (${dev.describe()}), ${new Date().toISOString().slice(0, 10)}, ` +
      `with node dist/src/run-lessons.js: the lesson's code cells in order as one program, in ${seconds.toFixed(1)} s.`;
    fs.writeFileSync(path.join(out, `${program.lesson}.html`), lessonHtml(program, outputs, where, PLOTLY_FILE, (href) => pageLink(href, out, lessons)));
    anyFailed ||= failed;
    // Said as each lesson ends, so that a run stopped part-way shows what it finished.
    console.log(`${failed ? "FAILED" : "ok"}  ${program.lesson}  ${seconds.toFixed(1)} s  -> ${path.join(out, program.lesson)}.html`);
  }
  return anyFailed ? 1 : 0;
}

if (require.main === module) {
  main(process.argv.slice(2)).then((code) => { process.exitCode = code; }, (e) => {
    console.error(`run-lessons: ${(e as Error).message}`);
    process.exitCode = 1;
  });
}
