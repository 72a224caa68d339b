// The committed notebooks: each is what its lesson generates, and each runs
// headless in Jupyter (nbclient, the fuselab kernelspec) without an error output.
// With FUSELAB_DEVICE=gpu the kernelspec passes it on, so the notebooks run on the GPU.
import { expect } from "chai";
import { execFile } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { ensureSelfLink, findJupyter, installKernelSpec } from "../src/jupyter";
import { notebooksDir, renderLessons } from "../src/lessons";

// tslab reports a failing cell (a type error, an exception) on stderr with the
// reply status "error", and aborts the cells after it: every one of those counts.
const EXECUTE = `
import json, sys
import nbformat
from nbclient import NotebookClient
notebook_file, cwd = sys.argv[1], sys.argv[2]
nb = nbformat.read(notebook_file, as_version=4)
status = {}
def executed(cell, cell_index, execute_reply):
    status[cell_index] = execute_reply["content"]["status"]
NotebookClient(nb, kernel_name="fuselab", timeout=600, allow_errors=True, on_cell_executed=executed,
               resources={"metadata": {"path": cwd}}).execute()
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

interface Problem { cell: number; source: string; text: string; notRun: boolean }

describe("notebooks", () => {
  const rendered = renderLessons();

  it("every committed notebook is its lesson's regeneration (npm run notebooks)", () => {
    for (const { lesson, notebook, json } of rendered) {
      const name = path.relative(process.cwd(), notebook);
      expect(fs.existsSync(notebook), `${name} is missing: run 'npm run notebooks'`).to.equal(true);
      expect(fs.readFileSync(notebook, "utf8") === json,
        `${name} is stale (${path.basename(lesson)} changed): run 'npm run notebooks'`).to.equal(true);
    }
    const orphans = fs.readdirSync(notebooksDir()).filter((f) => f.endsWith(".ipynb"))
      .filter((f) => !rendered.some((r) => path.basename(r.notebook) === f));
    expect(orphans, "notebooks without a lesson in lessons/").to.deep.equal([]);
  });

  describe("run headless in Jupyter", function () {
    this.timeout(30 * 60 * 1000);
    let python: string | undefined;
    let skipReason = "";
    let jupyterPath = "";

    before(() => {
      const search = findJupyter();
      if (!search.found) skipReason = `no Python with Jupyter (${search.tried.join("; ")}); see 'npm run doctor'`;
      else if (!search.found.nbclientVersion) skipReason = `${search.found.python} has Jupyter but not nbclient (python3-nbclient or pip install nbclient)`;
      else python = search.found.python;
      if (python) {
        ensureSelfLink();
        jupyterPath = fs.mkdtempSync(path.join(os.tmpdir(), "fuselab-jupyter-"));
        installKernelSpec(jupyterPath);
      }
    });
    after(() => { if (jupyterPath) fs.rmSync(jupyterPath, { recursive: true, force: true }); });

    for (const { notebook } of rendered) {
      it(`${path.basename(notebook)} runs without an error output`, async function () {
        if (!python) {
          if (process.env.FUSELAB_REQUIRE_JUPYTER === "1") throw new Error(`FUSELAB_REQUIRE_JUPYTER=1 but ${skipReason}`);
          console.log(`      skipped: ${skipReason}`);
          this.skip();
        }
        const problems = await execute(python!, notebook, jupyterPath);
        if (problems.length > 0) expect.fail(`${path.basename(notebook)}:\n${report(problems)}`);
      });
    }
  });
});

/** One line a failed cell; the cells tslab then skipped, in one line. */
function report(problems: Problem[]): string {
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

function execute(python: string, notebook: string, jupyterPath: string): Promise<Problem[]> {
  return new Promise((resolve, reject) => {
    execFile(python, ["-c", EXECUTE, notebook, path.dirname(notebook)],
      { env: { ...process.env, JUPYTER_PATH: jupyterPath }, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`executing ${path.basename(notebook)} failed: ${stderr.trim().split("\n").slice(-8).join("\n")}`));
        else resolve(JSON.parse(stdout) as Problem[]);
      });
  });
}
