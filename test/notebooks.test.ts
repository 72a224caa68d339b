// The committed notebooks: each is what its lesson generates, and each runs
// headless in Jupyter (nbclient, the fuselab kernelspec) without an error output.
// With FUSELAB_DEVICE=gpu the kernelspec passes it on, so the notebooks run on the GPU.
import { expect } from "chai";
import * as fs from "fs";
import * as path from "path";
import { packageRoot } from "../src/native";
import { exerciseIds, solutionsDir } from "../src/grading/exercise";
import { notebookProblems, renderLessons } from "../src/lessons";
import { TestJupyter, executeNotebook, problemReport, requireJupyter, testJupyter } from "./notebook-runner";

describe("notebooks", () => {
  it("every committed notebook is its lesson's regeneration (npm run notebooks)", () => {
    expect(notebookProblems()).to.deep.equal([]);
  });

  describe("run headless in Jupyter", function () {
    this.timeout(30 * 60 * 1000);
    let jupyter: TestJupyter;
    before(() => { jupyter = testJupyter(); });
    after(() => jupyter.dispose());

    for (const { notebook } of renderLessons()) {
      it(`${path.basename(notebook)} runs without an error output`, async function () {
        requireJupyter(this, jupyter);
        const problems = await executeNotebook(jupyter, notebook);
        if (problems.length > 0) expect.fail(`${path.basename(notebook)}:\n${problemReport(problems)}`);
      });
    }

    // The instructor's notebook of each exercise: its solution through fl.check, as a student's would go.
    for (const id of exerciseIds()) {
      it(`${id}'s answer notebook runs without an error output, and its solution gets every visible point`, async function () {
        requireJupyter(this, jupyter);
        // Run on a copy inside the package (where "fuselab" resolves), which keeps the outputs to read.
        const folder = path.join(packageRoot(), "test-artifacts", "answers", id);
        fs.mkdirSync(folder, { recursive: true });
        try {
          const notebook = path.join(folder, "answer.ipynb");
          fs.copyFileSync(path.join(solutionsDir(), id, "answer.ipynb"), notebook);
          const problems = await executeNotebook(jupyter, notebook, { save: true });
          if (problems.length > 0) expect.fail(`${id}/answer.ipynb:\n${problemReport(problems)}`);
          const printed = (JSON.parse(fs.readFileSync(notebook, "utf8")) as { cells: { outputs?: { text?: string[]; data?: Record<string, string[]> }[] }[] })
            .cells.flatMap((c) => c.outputs ?? []).map((o) => (o.text ?? o.data?.["text/plain"] ?? []).join("")).join("\n");
          const score = /: ([\d.]+) of ([\d.]+) points/.exec(printed);
          expect(score, `fl.check's score in ${id}/answer.ipynb:\n${printed.slice(0, 2000)}`).to.not.equal(null);
          expect(score![1], printed.slice(0, 2000)).to.equal(score![2]);
        } finally {
          fs.rmSync(folder, { recursive: true, force: true });
        }
      });
    }
  });
});
