// Running notebooks headless in Jupyter (nbclient, the fuselab kernelspec), shared
// by the notebook tests: which Python to use (or why the tests are skipped), and
// one notebook executed, its failing cells reported, and optionally saved back as
// Jupyter saves it.
import { execFile } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { ensureSelfLink, findJupyter, installKernelSpec } from "../src/jupyter";

// A kernel that starts slowly on a busy machine is waited for as long as a cell is
// (nbclient's own limit is 60 s).
// tslab reports a failing cell (a type error, an exception) on stderr with the
// reply status "error", and aborts the cells after it: every one of those counts.
const EXECUTE = `
import json, sys
import nbformat
from nbclient import NotebookClient
notebook_file, cwd, save = sys.argv[1], sys.argv[2], sys.argv[3] == "save"
nb = nbformat.read(notebook_file, as_version=4)
status = {}
def executed(cell, cell_index, execute_reply):
    status[cell_index] = execute_reply["content"]["status"]
NotebookClient(nb, kernel_name="fuselab", timeout=600, startup_timeout=600, allow_errors=True, on_cell_executed=executed,
               resources={"metadata": {"path": cwd}}).execute()
if save:
    nbformat.write(nb, notebook_file)
problems = []
for index, cell in enumerate(nb.cells):
    if cell.cell_type != "code":
        continue
    texts = [out.ename + ": " + out.evalue for out in cell.outputs if out.output_type == "error"]
    texts += [out.text for out in cell.outputs if out.output_type == "stream" and out.name == "stderr"]
    not_run = status.get(index) == "abort"
    if status.get(index) not in ("ok", "abort") and not texts:
        texts.append("execution status " + str(status.get(index)))
    if texts or not_run:
        problems.append({"cell": index, "source": cell.source, "text": "\\n".join(texts), "notRun": not_run})
print(json.dumps(problems))
`;

export interface Problem { cell: number; source: string; text: string; notRun: boolean }

/** A Python with Jupyter and nbclient and a folder holding the fuselab kernelspec, or why there is none. */
export interface TestJupyter {
  python?: string;
  skipReason: string;
  /** The folder to put on JUPYTER_PATH; remove it with `dispose()`. */
  jupyterPath: string;
  dispose(): void;
}

export function testJupyter(): TestJupyter {
  const search = findJupyter();
  let python: string | undefined;
  let skipReason = "";
  if (!search.found) skipReason = `no Python with Jupyter (${search.tried.join("; ")}); see 'npm run doctor'`;
  else if (!search.found.nbclientVersion) skipReason = `${search.found.python} has Jupyter but not nbclient (python3-nbclient or pip install nbclient)`;
  else python = search.found.python;
  let jupyterPath = "";
  if (python) {
    ensureSelfLink();
    jupyterPath = fs.mkdtempSync(path.join(os.tmpdir(), "fuselab-jupyter-"));
    installKernelSpec(jupyterPath);
  }
  return { python, skipReason, jupyterPath, dispose: () => { if (jupyterPath) fs.rmSync(jupyterPath, { recursive: true, force: true }); } };
}

/** Skips the running test when there is no Jupyter, unless FUSELAB_REQUIRE_JUPYTER=1 makes that a failure. */
export function requireJupyter(context: Mocha.Context, jupyter: TestJupyter): string {
  if (jupyter.python) return jupyter.python;
  if (process.env.FUSELAB_REQUIRE_JUPYTER === "1") throw new Error(`FUSELAB_REQUIRE_JUPYTER=1 but ${jupyter.skipReason}`);
  console.log(`      skipped: ${jupyter.skipReason}`);
  return context.skip();
}

/** Runs every cell of `notebook` (in its own folder) and returns the cells that failed; `save` writes the outputs back. */
export function executeNotebook(jupyter: TestJupyter, notebook: string, options: { save?: boolean; env?: NodeJS.ProcessEnv } = {}): Promise<Problem[]> {
  return new Promise((resolve, reject) => {
    execFile(jupyter.python!, ["-c", EXECUTE, notebook, path.dirname(notebook), options.save ? "save" : "check"],
      { env: { ...process.env, ...options.env, JUPYTER_PATH: jupyter.jupyterPath }, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`executing ${path.basename(notebook)} failed: ${firstFailure(stderr)}`));
        else resolve(JSON.parse(stdout) as Problem[]);
      });
  });
}

/**
 * The end of the first traceback in nbclient's stderr: when a kernel fails to start,
 * nbclient's exit handler raises again, and that second traceback says nothing.
 */
function firstFailure(stderr: string): string {
  const first = stderr.split(/^(?:Error in atexit\._run_exitfuncs:|Exception ignored in atexit)/m)[0];
  return first.trim().split("\n").slice(-12).join("\n");
}

/** One line a failed cell; the cells tslab then skipped, in one line. */
export function problemReport(problems: Problem[]): string {
  const failed = problems.filter((p) => !p.notRun);
  const skipped = problems.filter((p) => p.notRun).map((p) => p.cell);
  return [
    ...failed.map((p) => `cell ${p.cell} (${firstLine(p.source)}): ${p.text.trim()}`),
    ...(skipped.length > 0 ? [`cells ${skipped.join(", ")} were not run: an earlier cell failed`] : []),
  ].join("\n");
}

function firstLine(source: string): string {
  const line = source.split("\n").find((l) => l.trim() !== "") ?? "";
  return line.length > 60 ? line.slice(0, 57) + "..." : line;
}
