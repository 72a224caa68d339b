// The `fuselab` command, run as a user runs it: a separate node process.
import { expect } from "chai";
import { spawnSync } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";

const CLI = path.join(__dirname, "..", "src", "cli.js");

function fuselab(args: string[], env: NodeJS.ProcessEnv = process.env) {
  const run = spawnSync(process.execPath, [CLI, ...args], { encoding: "utf8", env, timeout: 120_000 });
  if (run.error) throw run.error;
  return run;
}

describe("fuselab CLI", () => {
  let tmp: string;
  beforeEach(() => { tmp = fs.mkdtempSync(path.join(os.tmpdir(), "fuselab-cli-")); });
  afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it("doctor --json reports the cpu backend loaded with a device", () => {
    const run = fuselab(["doctor", "--json"]);
    expect(run.status, run.stderr).to.equal(0);
    const report = JSON.parse(run.stdout);
    expect(report.addon.loaded, report.addon.error).to.equal(true);
    const cpu = report.backends.find((b: { name: string }) => b.name === "cpu");
    expect(cpu, "the cpu backend").to.include({ built: true, loaded: true });
    expect(cpu.devices).to.have.length.greaterThan(0);
    expect(cpu.devices[0].name).to.be.a("string").and.not.equal("");
    expect(report.node.version).to.equal(process.version);
  });

  it("doctor prints a readable report", () => {
    const run = fuselab(["doctor"]);
    expect(run.status, run.stderr).to.equal(0);
    expect(run.stdout).to.match(/^backend cpu\s+loaded, \d+ devices?/m);
    expect(run.stdout).to.match(/^default device\s+\S+/m);
  });

  it("jupyter install --dir writes a kernelspec with absolute paths to node and tslab", () => {
    const env = { ...process.env };
    delete env.FUSELAB_DEVICE;
    const run = fuselab(["jupyter", "install", "--dir", tmp], env);
    expect(run.status, run.stderr).to.equal(0);
    const file = path.join(tmp, "kernels", "fuselab", "kernel.json");
    const spec = JSON.parse(fs.readFileSync(file, "utf8"));
    expect(spec.display_name).to.equal("TypeScript (fuselab)");
    expect(spec.language).to.equal("typescript");
    const [node, tslab, ...rest] = spec.argv as string[];
    expect(path.isAbsolute(node), node).to.equal(true);
    expect(fs.existsSync(node), node).to.equal(true);
    expect(node).to.equal(process.execPath);
    expect(path.isAbsolute(tslab) && fs.existsSync(tslab), tslab).to.equal(true);
    expect(rest).to.deep.equal(["kernel", "--config-path", "{connection_file}"]);
    expect(spec).to.not.have.property("env");
  });

  it("jupyter install passes FUSELAB_DEVICE through to the kernel", () => {
    const run = fuselab(["jupyter", "install", "--dir", tmp], { ...process.env, FUSELAB_DEVICE: "cpu" });
    expect(run.status, run.stderr).to.equal(0);
    const spec = JSON.parse(fs.readFileSync(path.join(tmp, "kernels", "fuselab", "kernel.json"), "utf8"));
    expect(spec.env).to.deep.equal({ FUSELAB_DEVICE: "cpu" });
  });

  it("jupyter install --user writes to the user's Jupyter data folder", () => {
    // Without a Jupyter to ask, the folder comes from JUPYTER_DATA_DIR, as jupyter_core computes it.
    const noJupyter = fakePython(tmp);
    const dataDir = path.join(tmp, "data");
    const run = fuselab(["jupyter", "install", "--user"], { ...process.env, FUSELAB_PYTHON: noJupyter, JUPYTER_DATA_DIR: dataDir });
    expect(run.status, run.stderr).to.equal(0);
    expect(fs.existsSync(path.join(dataDir, "kernels", "fuselab", "kernel.json"))).to.equal(true);
  });

  it("start without Jupyter says exactly what to install and exits 1", () => {
    const run = fuselab(["start"], { ...process.env, FUSELAB_PYTHON: fakePython(tmp), PATH: "" });
    expect(run.status).to.equal(1);
    expect(run.stderr).to.include("sudo apt-get install jupyter-notebook jupyter-nbconvert python3-nbclient");
    expect(run.stderr).to.include("pip install notebook nbclient");
  });

  it("doctor --json explains why Jupyter was not found", () => {
    const python = fakePython(tmp);
    const run = fuselab(["doctor", "--json"], { ...process.env, FUSELAB_PYTHON: python });
    expect(run.status, run.stderr).to.equal(0);
    const report = JSON.parse(run.stdout);
    expect(report.jupyter.found).to.equal(false);
    expect(report.jupyter.tried).to.have.length(1);
    expect(report.jupyter.tried[0]).to.include(python).and.include("cannot import notebook");
  });

  it("rejects an unknown command or option with the usage and exit status 2", () => {
    const unknown = fuselab(["serve"]);
    expect(unknown.status).to.equal(2);
    expect(unknown.stderr).to.include('unknown command "serve"').and.include("usage: fuselab");
    const badOption = fuselab(["doctor", "--yaml"]);
    expect(badOption.status).to.equal(2);
    expect(badOption.stderr).to.include('unknown option "--yaml"');
    const noLesson = fuselab(["reset"]);
    expect(noLesson.status).to.equal(2);
    expect(noLesson.stderr).to.include("reset: expected one lesson or exercise name, got none");
  });

  it("reset of an unknown notebook lists the lessons and the exercises and exits 1", () => {
    const run = fuselab(["reset", "00-tuor"]);
    expect(run.status).to.equal(1);
    expect(run.stderr).to.match(/^fuselab: reset: the notebook must be a lesson \(00-tour, 01-why-fusion, [^)]*\) or an exercise \(01-add-relu, [^)]*\), got "00-tuor"$/m);
  });

  it("start serves the working copy, lessons and exercises, with Jupyter's root at its top, opened on the index", () => {
    const workspace = path.join(tmp, "my-notebooks");
    const record = path.join(tmp, "jupyter-ran.json");
    const run = fuselab(["start"], { ...process.env, FUSELAB_PYTHON: recordingPython(tmp, record), FUSELAB_WORKSPACE: workspace });
    expect(run.status, run.stderr).to.equal(0);
    expect(run.stdout).to.include("fuselab: copied into my-notebooks/: notebooks/00-tour.ipynb").and.include("exercises/01-add-relu/01-add-relu.ipynb");
    const ran = JSON.parse(fs.readFileSync(record, "utf8")) as { argv: string[]; cwd: string };
    expect(ran.cwd).to.equal(workspace);
    expect(ran.argv.slice(0, 3)).to.deep.equal(["-m", "notebook", `--notebook-dir=${workspace}`]);
    expect(ran.argv[ran.argv.length - 1]).to.equal("notebooks/index.ipynb");
    for (const copy of ["notebooks/index.ipynb", "notebooks/00-tour.ipynb", "exercises/01-add-relu/01-add-relu.ipynb"]) {
      expect(fs.existsSync(path.join(workspace, copy)), copy).to.equal(true);
    }
    // A later start copies nothing: the copies are the student's.
    const again = fuselab(["start", "--port=0"], { ...process.env, FUSELAB_PYTHON: recordingPython(tmp, record), FUSELAB_WORKSPACE: workspace });
    expect(again.status, again.stderr).to.equal(0);
    expect(again.stdout).to.not.include("copied into");
    expect((JSON.parse(fs.readFileSync(record, "utf8")) as { argv: string[] }).argv.slice(-1), "the user's arguments, and no index").to.deep.equal(["--port=0"]);
  });
});

/**
 * A "python" with Jupyter that runs nothing: it answers fuselab's probe as a Python
 * with notebook 6 would, and for "-m notebook" writes its arguments and folder to `record`.
 */
function recordingPython(dir: string, record: string): string {
  const file = path.join(dir, "python-recording-jupyter");
  const probe = JSON.stringify({ executable: file, notebookVersion: "6.4.12", jupyterClientVersion: "7.4.9", nbclientVersion: null, dataDir: dir, kernelspecs: {} });
  fs.writeFileSync(file, `#!${process.execPath}
const [flag, ...rest] = process.argv.slice(2);
if (flag === "-c") console.log(${JSON.stringify(probe)});
else require("fs").writeFileSync(${JSON.stringify(record)}, JSON.stringify({ argv: [flag, ...rest], cwd: process.cwd() }));
`, { mode: 0o755 });
  return file;
}

/** A "python" that has no Jupyter: any script it is given fails. */
function fakePython(dir: string): string {
  const file = path.join(dir, "python-without-jupyter");
  fs.writeFileSync(file, "#!/bin/sh\necho \"ModuleNotFoundError: No module named 'notebook'\" >&2\nexit 1\n", { mode: 0o755 });
  return file;
}
