// The lessons in a real browser, as a student meets them: Chromium (driven by
// puppeteer-core) against the Jupyter server `npm start` runs. Every notebook is
// opened, run all, checked for error outputs and for charts drawn (each chart an
// svg.main-svg), screenshotted at 900 px into test-artifacts/browser/, and saved;
// the saved notebook is exported with nbconvert --to html and opened with every
// network request refused, where its charts must draw too.
//
// Needs Chromium (FUSELAB_CHROMIUM, else /usr/bin/chromium, chromium or
// chromium-browser on PATH) and Jupyter with nbconvert; skipped without them,
// unless FUSELAB_REQUIRE_BROWSER=1 makes that a failure (as CI does).
import { expect } from "chai";
import { ChildProcess, execFile, spawn } from "child_process";
import * as crypto from "crypto";
import * as fs from "fs";
import * as net from "net";
import * as path from "path";
import type { Browser, Page } from "puppeteer-core";
import { findJupyter } from "../src/jupyter";
import { renderLessons } from "../src/lessons";
import { packageRoot } from "../src/native";
import { WORKSPACE_INDEX } from "../src/workspace";

// The page's globals, for the functions that run in it (the project compiles without the DOM library).
declare const window: any, document: any, location: any, MutationObserver: any;

const ARTIFACTS = path.join(packageRoot(), "test-artifacts", "browser");
const CLI = path.join(__dirname, "..", "src", "cli.js");
const VIEWPORT_WIDTH = 900;
// The tour's exported HTML, charts and plotly.js included, must stay under this.
const MAX_EXPORT_BYTES = 6 * 1024 * 1024;

function findChromium(): string | undefined {
  const candidates = [process.env.FUSELAB_CHROMIUM, "/usr/bin/chromium",
    ...["chromium", "chromium-browser"].flatMap((name) => (process.env.PATH ?? "").split(path.delimiter).map((dir) => path.join(dir, name)))];
  return candidates.find((file): file is string => !!file && fs.existsSync(file));
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
    server.on("error", reject);
  });
}

async function waitForServer(url: string, server: ChildProcess, log: () => string): Promise<void> {
  const deadline = Date.now() + 90_000;
  while (Date.now() < deadline) {
    if (server.exitCode !== null) throw new Error(`npm start exited with ${server.exitCode}:\n${log()}`);
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`the Jupyter server did not answer within 90 s:\n${log()}`);
}

interface CellProblem { cell: number; text: string }

/** In the page: each code cell's error outputs (errors, stderr) and whether every code cell has run. */
function cellState(): { problems: CellProblem[]; done: boolean; busy: boolean } {
  type Output = { output_type: string; name?: string; text?: string; ename?: string; evalue?: string };
  type Cell = { cell_type: string; input_prompt_number: number | string | null | undefined; output_area: { outputs: Output[] } };
  const jupyter = (window as unknown as { Jupyter: { notebook: { get_cells(): Cell[]; kernel: { is_connected(): boolean } }; } }).Jupyter;
  const cells = jupyter.notebook.get_cells();
  const problems: CellProblem[] = [];
  cells.forEach((cell, index) => {
    if (cell.cell_type !== "code") return;
    for (const out of cell.output_area.outputs) {
      if (out.output_type === "error") problems.push({ cell: index, text: `${out.ename}: ${out.evalue}` });
      if (out.output_type === "stream" && out.name === "stderr") problems.push({ cell: index, text: out.text ?? "" });
    }
  });
  const code = cells.filter((c) => c.cell_type === "code");
  const done = code.every((c) => typeof c.input_prompt_number === "number");
  const busy = document.querySelector("#kernel_indicator_icon.kernel_busy_icon") !== null;
  return { problems, done, busy };
}

/** In the page: how many charts there are, and how many have been drawn by plotly. */
function chartState(): { charts: number; drawn: number; fallbacks: string[] } {
  const charts = [...document.querySelectorAll(".fuselab-chart")];
  return {
    charts: charts.length,
    drawn: charts.filter((c) => c.querySelector("svg.main-svg") !== null).length,
    fallbacks: charts.filter((c) => c.querySelector(".fuselab-chart-fallback") !== null)
      .map((c) => (c.querySelector(".fuselab-chart-fallback div")?.textContent ?? "").trim()),
  };
}

async function waitFor<T>(page: Page, fn: () => T, ok: (value: T) => boolean, timeoutMs: number, what: string): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let value = await page.evaluate(fn);
  while (!ok(value)) {
    if (Date.now() > deadline) throw new Error(`${what} within ${timeoutMs / 1000} s; last state: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 500));
    value = await page.evaluate(fn);
  }
  return value;
}

/** A screenshot of the whole notebook at the test's width (the notebook scrolls inside #site, so the viewport grows to fit it). */
async function screenshot(page: Page, file: string): Promise<void> {
  const height = await page.evaluate(() => {
    const header = document.querySelector("#header")?.getBoundingClientRect().height ?? 0;
    return Math.ceil(header + (document.querySelector("#notebook")?.scrollHeight ?? document.body.scrollHeight) + 40);
  });
  await page.setViewport({ width: VIEWPORT_WIDTH, height: Math.min(Math.max(height, 800), 16_000) });
  await new Promise((resolve) => setTimeout(resolve, 1000)); // charts follow the width; the notebook relayouts
  await page.screenshot({ path: file as `${string}.png` });
}

function nbconvert(python: string, notebook: string, output: string): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(python, ["-m", "nbconvert", "--to", "html", notebook, "--output", output], { maxBuffer: 16 * 1024 * 1024 },
      (error, _stdout, stderr) => (error ? reject(new Error(`nbconvert failed: ${stderr.trim().split("\n").slice(-5).join("\n")}`)) : resolve()));
  });
}

describe("the lessons in a browser", function () {
  this.timeout(30 * 60 * 1000);
  const chromium = findChromium();
  const jupyter = findJupyter().found;
  let skipReason = "";
  let browser: Browser | undefined;
  let server: ChildProcess | undefined;
  let serverLog = "";
  let base = "";
  let token = "";
  let workspace = "";
  const nbconvertCheck = jupyter && require("child_process").spawnSync(jupyter.python, ["-c", "import nbconvert"]).status === 0;

  if (!chromium) skipReason = "no Chromium (apt-get install chromium, or set FUSELAB_CHROMIUM)";
  else if (!jupyter) skipReason = "no Python with Jupyter; see 'npm run doctor'";
  else if (!nbconvertCheck) skipReason = `${jupyter.python} has no nbconvert (apt-get install jupyter-nbconvert)`;

  before(async function () {
    if (skipReason) {
      if (process.env.FUSELAB_REQUIRE_BROWSER === "1") throw new Error(`FUSELAB_REQUIRE_BROWSER=1 but ${skipReason}`);
      console.log(`      skipped: ${skipReason}`);
      this.skip();
    }
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    fs.mkdirSync(path.join(packageRoot(), ".fuselab"), { recursive: true });
    // A working copy of its own inside the package (so that "fuselab" resolves), never the student's.
    workspace = fs.mkdtempSync(path.join(packageRoot(), ".fuselab", "browser-"));
    token = crypto.randomBytes(16).toString("hex");
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    server = spawn(process.execPath, [CLI, "start", "--no-browser", "--ip=127.0.0.1", `--port=${port}`, `--NotebookApp.token=${token}`],
      { env: { ...process.env, FUSELAB_WORKSPACE: workspace }, stdio: ["ignore", "pipe", "pipe"] });
    server.stdout!.on("data", (d) => { serverLog += d; });
    server.stderr!.on("data", (d) => { serverLog += d; });
    await waitForServer(`${base}/api/status?token=${token}`, server, () => serverLog);
    const puppeteer = await import("puppeteer-core");
    browser = await puppeteer.launch({
      executablePath: chromium,
      headless: true,
      args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
    });
  });

  after(async () => {
    await browser?.close();
    if (server && server.exitCode === null) {
      server.kill("SIGTERM");
      await new Promise((resolve) => server!.once("exit", resolve));
    }
    if (workspace) fs.rmSync(workspace, { recursive: true, force: true });
  });

  /** Opens the notebook at `file` (relative to Jupyter's root, the working copy) and waits for its kernel. */
  function openNotebook(page: Page, file: string): Promise<void> {
    return openNotebookAt(page, `${base}/notebooks/${file.split("/").map(encodeURIComponent).join("/")}?token=${token}`);
  }

  async function openNotebookAt(page: Page, url: string): Promise<void> {
    await page.goto(url, { waitUntil: "load" });
    await page.waitForFunction(() => {
      const j = (window as unknown as { Jupyter?: { notebook?: { kernel?: { is_connected(): boolean } } } }).Jupyter;
      return !!j?.notebook?.kernel?.is_connected();
    }, { timeout: 120_000 });
  }

  /** In the page: the links of the rendered Markdown (anchors aside) as the browser resolves them, and those the server does not answer with 200. */
  function deadLinksInPage(page: Page): Promise<{ links: string[]; dead: string[] }> {
    return page.evaluate(async () => {
      const anchors = [...document.querySelectorAll(".text_cell_render a[href]")]
        .filter((a: { href: string; getAttribute(name: string): string }) => !a.getAttribute("href").startsWith("#") && new URL(a.href).origin === location.origin);
      const links: string[] = anchors.map((a: { href: string }) => a.href);
      const dead: string[] = [];
      for (const [i, a] of anchors.entries()) {
        const status = (await fetch(links[i])).status;
        if (status !== 200) dead.push(`${(a as { getAttribute(name: string): string }).getAttribute("href")} (${links[i]}): ${status}`);
      }
      return { links, dead };
    });
  }

  it("the course's index: every lesson and exercise it links opens in Jupyter, an exercise with its kernel", async () => {
    const page = await browser!.newPage();
    let exercises: string[];
    try {
      await openNotebook(page, WORKSPACE_INDEX);
      const { links, dead } = await deadLinksInPage(page);
      expect(dead, "links of the index that Jupyter cannot open").to.deep.equal([]);
      exercises = links.filter((l) => new URL(l).pathname.startsWith("/notebooks/exercises/"));
      expect(links.length - exercises.length, "links to the lessons").to.equal(renderLessons().length);
      expect(exercises.length, "links to exercise notebooks").to.be.greaterThan(0);
    } finally {
      await page.close();
    }
    // Followed as the student does (Jupyter opens a Markdown link in a new tab), the link opens the exercise notebook of the working copy.
    const exercise = decodeURIComponent(new URL(exercises[0]).pathname.slice("/notebooks/".length));
    const tab = await browser!.newPage();
    try {
      await openNotebookAt(tab, exercises[0]);
      expect(await tab.evaluate(() => (window as unknown as { Jupyter: { notebook: { notebook_path: string } } }).Jupyter.notebook.notebook_path)).to.equal(exercise);
      expect(fs.existsSync(path.join(workspace, exercise)), exercise).to.equal(true);
    } finally {
      await tab.close();
    }
  });

  it("a chart where plotly.js is missing says how to load it", async () => {
    const page = await browser!.newPage();
    try {
      const fl = await import("../src");
      const figure = fl.plot.roofline([{ name: "k", flops: 1, bytes: 1, ms: 1 }], { bandwidthGBs: 1 });
      await page.setContent(`<html><body>${figure.toHTML()}</body></html>`, { waitUntil: "load" });
      const message = await waitFor(page, () => document.querySelector(".fuselab-chart-fallback div")?.textContent ?? "",
        (text) => text.startsWith("plotly.js is not loaded"), 30_000, "no message about plotly.js");
      expect(message).to.equal("plotly.js is not loaded in this page: run fl.plot.load() in a cell, then run this cell again.");
      expect(await page.evaluate(() => document.querySelector(".fuselab-chart-fallback pre")?.textContent)).to.equal(figure.toString());
    } finally {
      await page.close();
    }
  });

  for (const { notebook } of renderLessons()) {
    const name = path.basename(notebook);
    const stem = name.replace(/\.ipynb$/, "");

    it(`${name}: opened, run all in Chromium without an error output, every chart drawn, saved, exported offline`, async () => {
      const page = await browser!.newPage();
      try {
        await page.setViewport({ width: VIEWPORT_WIDTH, height: 1000 });
        const pageErrors: string[] = [];
        page.on("pageerror", (e) => pageErrors.push(String(e)));
        await openNotebook(page, `notebooks/${name}`);
        expect((await deadLinksInPage(page)).dead, `links in ${name} that Jupyter cannot open`).to.deep.equal([]);
        await page.evaluate(() => (window as unknown as { Jupyter: { notebook: { execute_all_cells(): void } } }).Jupyter.notebook.execute_all_cells());
        const state = await waitFor(page, cellState, (s) => s.problems.length > 0 || (s.done && !s.busy), 20 * 60_000, "the cells did not all run");
        expect(state.problems, `error outputs in ${name}`).to.deep.equal([]);
        const charts = await waitFor(page, chartState, (c) => c.drawn === c.charts || c.fallbacks.some((f) => f.startsWith("plotly.js is not loaded")),
          30_000, "the charts were not all drawn");
        expect(charts.fallbacks, "charts that could not be drawn").to.deep.equal([]);
        expect(charts.drawn).to.equal(charts.charts);
        expect(pageErrors, "JavaScript errors in the page").to.deep.equal([]);
        await screenshot(page, path.join(ARTIFACTS, `${stem}.png`));
        await page.evaluate(() => (window as unknown as { Jupyter: { notebook: { save_notebook(): Promise<unknown> } } }).Jupyter.notebook.save_notebook());
      } finally {
        await page.close();
      }

      // The notebook as the browser saved it, exported to HTML and opened with no network.
      const saved = path.join(workspace, "notebooks", name);
      const saveDeadline = Date.now() + 30_000;
      while (!fs.readFileSync(saved, "utf8").includes("fuselab-chart") && !name.includes("no-charts") && Date.now() < saveDeadline) {
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
      const exported = path.join(ARTIFACTS, `${stem}.html`);
      await nbconvert(jupyter!.python, saved, exported);
      const bytes = fs.statSync(exported).size;
      expect(bytes, `${stem}.html is ${(bytes / 2 ** 20).toFixed(2)} MiB`).to.be.below(MAX_EXPORT_BYTES);
      const offline = await browser!.newPage();
      try {
        await offline.setViewport({ width: VIEWPORT_WIDTH, height: 1000 });
        const refused: string[] = [];
        await offline.setRequestInterception(true);
        offline.on("request", (request) => {
          if (request.url().startsWith("file:") || request.url().startsWith("data:")) void request.continue();
          else {
            refused.push(request.url());
            void request.abort();
          }
        });
        await offline.goto(`file://${exported}`, { waitUntil: "load" });
        const charts = await waitFor(offline, chartState, (c) => c.drawn === c.charts, 30_000, "the exported charts were not all drawn");
        const inNotebook = (fs.readFileSync(saved, "utf8").match(/class=\\"fuselab-chart\\"/g) ?? []).length;
        expect(charts.charts, "charts in the export, as many as in the saved notebook").to.equal(inNotebook);
        console.log(`      ${stem}.html: ${(bytes / 2 ** 20).toFixed(2)} MiB, ${charts.drawn} charts drawn offline` +
          (refused.length > 0 ? `, ${refused.length} network requests refused` : ""));
        await offline.screenshot({ path: path.join(ARTIFACTS, `${stem}-export.png`) as `${string}.png`, fullPage: true });
      } finally {
        await offline.close();
      }

      // A copy that Jupyter has not signed (an untrusted notebook): no script runs, each chart shows its data and how to trust it.
      const saveText = fs.readFileSync(saved, "utf8");
      const chartsSaved = (saveText.match(/class=\\"fuselab-chart\\"/g) ?? []).length;
      if (chartsSaved > 0) {
        const copy = JSON.parse(saveText) as { metadata: Record<string, unknown> };
        copy.metadata.copied = true;
        const untrustedName = `untrusted-${name}`;
        fs.writeFileSync(path.join(workspace, "notebooks", untrustedName), JSON.stringify(copy));
        const page = await browser!.newPage();
        try {
          await page.setViewport({ width: VIEWPORT_WIDTH, height: 1000 });
          await page.goto(`${base}/notebooks/notebooks/${encodeURIComponent(untrustedName)}?token=${token}`, { waitUntil: "load" });
          // (The function runs in the page, so it names everything it uses itself.)
          const state = await waitFor(page, () => ({
            trusted: document.querySelector("#notification_trusted")?.textContent?.trim(),
            charts: document.querySelectorAll(".fuselab-chart").length,
            drawn: document.querySelectorAll(".fuselab-chart svg.main-svg").length,
            shown: [...document.querySelectorAll(".fuselab-chart-fallback")]
              .filter((f: { offsetHeight: number; textContent: string }) => f.offsetHeight > 0 && f.textContent.includes("trust the notebook")).length,
          }), (st) => st.charts === chartsSaved, 60_000, "the untrusted copy did not show its charts' places");
          expect(state.trusted).to.equal("Not Trusted");
          expect(state.drawn, "charts drawn in an untrusted notebook").to.equal(0);
          expect(state.shown, "charts showing their text and how to trust the notebook").to.equal(chartsSaved);
          await screenshot(page, path.join(ARTIFACTS, `${stem}-untrusted.png`));
        } finally {
          await page.close();
        }
      }

      // The same export in a dark page: the charts take its light text colour.
      const dark = await browser!.newPage();
      try {
        await dark.setViewport({ width: VIEWPORT_WIDTH, height: 1000 });
        await dark.evaluateOnNewDocument(() => {
          // In place before the outputs' scripts run, as a dark theme's stylesheet would be.
          new MutationObserver((_: unknown, observer: { disconnect(): void }) => {
            if (!document.head) return;
            const style = document.createElement("style");
            style.textContent = "body, #notebook, #notebook-container, .jp-Notebook, .jp-RenderedHTMLCommon { background: #1e1e1e !important; color: #dddddd !important; }";
            document.head.appendChild(style);
            observer.disconnect();
          }).observe(document, { childList: true, subtree: true });
        });
        await dark.goto(`file://${exported}`, { waitUntil: "load" });
        const charts = await waitFor(dark, chartState, (c) => c.drawn === c.charts, 30_000, "the exported charts were not all drawn in the dark page");
        const titleColours = await dark.evaluate(() => [...document.querySelectorAll(".fuselab-chart .gtitle")].map((t: { style: { fill: string } }) => t.style.fill));
        expect(titleColours, "chart titles in the dark page").to.deep.equal(Array(charts.charts).fill("rgb(221, 221, 221)"));
        await dark.screenshot({ path: path.join(ARTIFACTS, `${stem}-export-dark.png`) as `${string}.png`, fullPage: true });
      } finally {
        await dark.close();
      }
    });
  }
});
