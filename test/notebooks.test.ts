// The committed notebooks: each is what its lesson generates, and each runs
// headless in Jupyter (nbclient, the fuselab kernelspec) without an error output.
// With FUSELAB_DEVICE=gpu the kernelspec passes it on, so the notebooks run on the GPU.
import { expect } from "chai";
import * as fs from "fs";
import * as path from "path";
import { packageRoot } from "../src/native";
import { exerciseIds, exercisesDir, solutionsDir } from "../src/grading/exercise";
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

    // Each exercise's two notebooks, the student's (the stub) and the instructor's (the
    // solution), through fl.check as a student's would go: no error output, and the
    // score fl.check prints is full for the solution only.
    const notebooks = (id: string) => [
      { name: `${id}/${id}.ipynb`, file: path.join(exercisesDir(), id, `${id}.ipynb`), full: false },
      { name: `${id}/answer.ipynb`, file: path.join(solutionsDir(), id, "answer.ipynb"), full: true },
    ];
    for (const id of exerciseIds()) for (const { name, file, full } of notebooks(id)) {
      it(`${name} runs without an error output, and fl.check gives ${full ? "every" : "not every"} visible point`, async function () {
        requireJupyter(this, jupyter);
        // Run on a copy inside the package (where "fuselab" resolves), which keeps the outputs to read.
        const folder = path.join(packageRoot(), "test-artifacts", "exercise-notebooks", id);
        fs.mkdirSync(folder, { recursive: true });
        try {
          const notebook = path.join(folder, path.basename(file));
          fs.copyFileSync(file, notebook);
          const problems = await executeNotebook(jupyter, notebook, { save: true });
          if (problems.length > 0) expect.fail(`${name}:\n${problemReport(problems)}`);
          const printed = (JSON.parse(fs.readFileSync(notebook, "utf8")) as { cells: { outputs?: { text?: string[]; data?: Record<string, string[]> }[] }[] })
            .cells.flatMap((c) => c.outputs ?? []).map((o) => (o.text ?? o.data?.["text/plain"] ?? []).join("")).join("\n");
          const score = /: ([\d.]+) of ([\d.]+) points/.exec(printed);
          expect(score, `fl.check's score in ${name}:\n${printed.slice(0, 2000)}`).to.not.equal(null);
          expect(score![1] === score![2], printed.slice(0, 2000)).to.equal(full);
        } finally {
          fs.rmSync(folder, { recursive: true, force: true });
        }
      });
    }
  });
});
