// A student's cycle on a clone of the course: start (the lessons copied into the
// working copy), open, run and save a lesson in Jupyter, then `npm test`'s notebook
// check and `git pull` of new lessons both still work, the student's work is kept,
// and one lesson can be reset to its original.
import { expect } from "chai";
import { execFileSync } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { INDEX_NOTEBOOK, notebookJson, lessonToNotebook, notebookProblems, renderCourseIndex } from "../src/lessons";
import { packageRoot } from "../src/native";
import { BACKUP_NAME, WORKSPACE_NAME, resetLesson, syncWorkspace, workspaceDir } from "../src/workspace";
import { TestJupyter, executeNotebook, problemReport, requireJupyter, testJupyter } from "./notebook-runner";

const GIT_ENV = {
  ...process.env,
  GIT_AUTHOR_NAME: "course", GIT_AUTHOR_EMAIL: "course@example.org",
  GIT_COMMITTER_NAME: "course", GIT_COMMITTER_EMAIL: "course@example.org",
  GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null",
};

function git(cwd: string, ...args: string[]): string {
  return execFileSync("git", args, { cwd, env: GIT_ENV, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
}

/** Writes lessons/<name>.md and the notebook it generates into the tree at `root`. */
function writeLesson(root: string, name: string, markdown: string): void {
  fs.mkdirSync(path.join(root, "lessons"), { recursive: true });
  fs.mkdirSync(path.join(root, "notebooks"), { recursive: true });
  fs.writeFileSync(path.join(root, "lessons", `${name}.md`), markdown);
  fs.writeFileSync(path.join(root, "notebooks", `${name}.ipynb`), notebookJson(lessonToNotebook(markdown, name)));
}

const FIRST = "# First\n\nA cell that prints.\n\n```ts\nconst answer = 6 * 7;\nconsole.log(`the answer is ${answer}`);\n```\n";

describe("the student's working copy", function () {
  this.timeout(10 * 60 * 1000);
  let tmp: string;
  let jupyter: TestJupyter;
  before(() => { jupyter = testJupyter(); });
  after(() => jupyter.dispose());
  beforeEach(() => { tmp = fs.mkdtempSync(path.join(os.tmpdir(), "fuselab-workspace-")); });
  afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it("is git-ignored in this repository", () => {
    // check-ignore prints the path when it is ignored, and exits with 1 (execFileSync throws) when not.
    expect(git(packageRoot(), "check-ignore", `${WORKSPACE_NAME}/00-tour.ipynb`).trim()).to.equal(`${WORKSPACE_NAME}/00-tour.ipynb`);
  });

  it("open, run, save, then the notebook check and git pull both work", async function () {
    requireJupyter(this, jupyter);
    // The course repository, with this repository's .gitignore, and a student's clone of it.
    const course = path.join(tmp, "course");
    fs.mkdirSync(course);
    git(course, "init", "-q", "-b", "main");
    fs.copyFileSync(path.join(packageRoot(), ".gitignore"), path.join(course, ".gitignore"));
    writeLesson(course, "00-first", FIRST);
    git(course, "add", "-A");
    git(course, "commit", "-q", "-m", "first lesson");
    const student = path.join(tmp, "student");
    git(tmp, "clone", "-q", course, student);

    // fuselab start: the lesson is copied into the working copy, which Jupyter serves.
    expect(syncWorkspace(student)).to.deep.equal(["00-first.ipynb"]);
    const copy = path.join(workspaceDir(student), "00-first.ipynb");
    const problems = await executeNotebook(jupyter, copy, { save: true });
    expect(problems, problemReport(problems)).to.deep.equal([]);
    const saved = fs.readFileSync(copy, "utf8");
    expect(saved, "the saved notebook holds the cell's output").to.include("the answer is 42");
    expect(saved).to.not.equal(fs.readFileSync(path.join(student, "notebooks", "00-first.ipynb"), "utf8"));

    // npm test's check and git see nothing changed.
    expect(notebookProblems(student)).to.deep.equal([]);
    expect(git(student, "status", "--porcelain")).to.equal("");

    // The course gains a lesson and changes the first; the student pulls.
    writeLesson(course, "00-first", FIRST.replace("A cell that prints.", "A cell that prints a number."));
    writeLesson(course, "01-second", "# Second\n\n```ts\nconsole.log(1 + 1);\n```\n");
    git(course, "add", "-A");
    git(course, "commit", "-q", "-m", "second lesson");
    git(student, "pull", "-q", "--ff-only");
    expect(notebookProblems(student)).to.deep.equal([]);

    // The next start copies the new lesson in and keeps the student's run of the first.
    expect(syncWorkspace(student)).to.deep.equal(["01-second.ipynb"]);
    expect(fs.readFileSync(copy, "utf8")).to.equal(saved);

    // Resetting the first lesson gives the new original and keeps the student's copy aside.
    const { kept } = resetLesson("00-first", student);
    expect(fs.readFileSync(copy, "utf8")).to.equal(fs.readFileSync(path.join(student, "notebooks", "00-first.ipynb"), "utf8"));
    expect(kept && path.dirname(kept)).to.equal(path.join(workspaceDir(student), BACKUP_NAME));
    expect(fs.readFileSync(kept!, "utf8")).to.equal(saved);
    expect(git(student, "status", "--porcelain")).to.equal("");
  });

  it("holds the course's index, made from the lessons table and the lessons, brought up to date on each start", () => {
    const readme = path.join(tmp, "lessons", "README.md");
    const table = (...rows: string[]) => `# Course\n\n## Lessons\n\n| # | lesson | what you learn | exercise |\n| --- | --- | --- | --- |\n${rows.join("\n")}\n`;
    const firstRow = "| 00 | [First](00-first.md) | printing | 01 |";
    const writeIndex = () => {
      const index = renderCourseIndex(tmp)!;
      fs.writeFileSync(index.notebook, index.json);
      return index.json;
    };
    writeLesson(tmp, "00-first", `${FIRST}\n## Exercise\n\n[exercise 01](../exercises/01-one/01-one.ipynb)\n`);
    fs.writeFileSync(readme, table(firstRow));
    expect(notebookProblems(tmp)).to.deep.equal([`notebooks/${INDEX_NOTEBOOK} is missing: run 'npm run notebooks'`]);
    const first = writeIndex();
    expect(notebookProblems(tmp)).to.deep.equal([]);
    const text = (JSON.parse(first) as { cells: { source: string[] }[] }).cells.map((c) => c.source.join("")).join("\n");
    expect(text).to.include("| 00 | [First](00-first.ipynb) | printing | [01](../exercises/01-one/01-one.ipynb) |");
    expect(syncWorkspace(tmp)).to.deep.equal(["00-first.ipynb", INDEX_NOTEBOOK]);

    // A lesson without a row is a problem that names it; with its row the index is stale until made again.
    writeLesson(tmp, "01-second", "# Second\n\n```ts\nconsole.log(1 + 1);\n```\n");
    expect(notebookProblems(tmp)).to.deep.equal([
      `notebooks/${INDEX_NOTEBOOK} cannot be made: lessons/README.md: the lessons table has no row for 01-second.md`]);
    fs.writeFileSync(readme, table(firstRow, "| 01 | [Second](01-second.md) | adding | — |"));
    expect(notebookProblems(tmp)).to.deep.equal([
      `notebooks/${INDEX_NOTEBOOK} is stale (the lessons or lessons/README.md changed): run 'npm run notebooks'`]);
    const second = writeIndex();
    expect(second).to.include("[Second](01-second.ipynb)");

    // The next start brings the student's copy of the index up to date, and then leaves it.
    expect(syncWorkspace(tmp)).to.deep.equal(["01-second.ipynb", INDEX_NOTEBOOK]);
    expect(fs.readFileSync(path.join(workspaceDir(tmp), INDEX_NOTEBOOK), "utf8")).to.equal(second);
    expect(syncWorkspace(tmp)).to.deep.equal([]);
  });

  it("reset names the lessons when given an unknown one", () => {
    writeLesson(tmp, "00-first", FIRST);
    expect(() => resetLesson("00-frist", tmp)).to.throw('no lesson named "00-frist"; the lessons are 00-first');
  });
});
