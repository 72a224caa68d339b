// The committed notebooks: each is what its lesson generates, and each runs
// headless in Jupyter (nbclient, the fuselab kernelspec) without an error output.
// With FUSELAB_DEVICE=gpu the kernelspec passes it on, so the notebooks run on the GPU.
import { expect } from "chai";
import * as path from "path";
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
      it(`${id}'s answer notebook runs without an error output`, async function () {
        requireJupyter(this, jupyter);
        const notebook = path.join(solutionsDir(), id, "answer.ipynb");
        const problems = await executeNotebook(jupyter, notebook);
        if (problems.length > 0) expect.fail(`${id}/answer.ipynb:\n${problemReport(problems)}`);
      });
    }
  });
});
