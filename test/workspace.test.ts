// A student's cycle on a clone of the course: start (the lessons and exercise
// notebooks copied into the working copy), open, edit, run and save them in Jupyter,
// then `npm test`'s notebook check and `git pull` of new lessons and exercises both
// still work, the student's work is kept, and one notebook can be reset to its
// original. Every link of every notebook resolves inside the working copy, which is
// Jupyter's root.
import { expect } from "chai";
import { execFileSync } from "child_process";
import * as fs from "fs";
import MarkdownIt from "markdown-it";
import * as os from "os";
import * as path from "path";
import { withoutMarkers } from "../src/grading/authoring";
import { solutionsDir } from "../src/grading/exercise";
import { INDEX_NOTEBOOK, notebookJson, lessonToNotebook, notebookProblems, renderCourseIndex } from "../src/lessons";
import { packageRoot } from "../src/native";
import { BACKUP_NAME, WORKSPACE_INDEX, WORKSPACE_NAME, resetNotebook, syncWorkspace, workspaceDir } from "../src/workspace";
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

/** Writes exercises/<id>/ into the tree at `root`: its source (exercise.ts, which makes it an exercise) and its notebook. */
function writeExercise(root: string, id: string, markdown: string): void {
  const dir = path.join(root, "exercises", id);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, "exercise.ts"), `export const exercise = { id: ${JSON.stringify(id)} };\n`);
  fs.writeFileSync(path.join(dir, `${id}.ipynb`), notebookJson(lessonToNotebook(markdown, id)));
}

interface SavedNotebook { cells: { cell_type: string; source: string[] | string }[] }

function readNotebook(file: string): SavedNotebook {
  return JSON.parse(fs.readFileSync(file, "utf8")) as SavedNotebook;
}

/** Replaces the source of the first code cell that contains `marker`, as a student's edit in Jupyter does; saves. */
function editCell(file: string, marker: string, source: string): void {
  const notebook = readNotebook(file);
  const cell = notebook.cells.find((c) => c.cell_type === "code" && [c.source].flat().join("").includes(marker));
  if (!cell) throw new Error(`${file} has no code cell with ${JSON.stringify(marker)}`);
  cell.source = source;
  fs.writeFileSync(file, JSON.stringify(notebook, null, 1) + "\n");
}

const markdown = new MarkdownIt({ html: true });
const HTML_LINK = /\b(?:href|src)\s*=\s*["']([^"']+)["']/g;

/** Every link and image target of a Markdown text, inline HTML's included. */
function linkTargets(text: string): string[] {
  const targets: string[] = [];
  const visit = (tokens: ReturnType<MarkdownIt["parse"]>) => {
    for (const token of tokens) {
      if (token.type === "link_open") targets.push(token.attrGet("href") ?? "");
      else if (token.type === "image") targets.push(token.attrGet("src") ?? "");
      else if (token.type === "html_inline" || token.type === "html_block") targets.push(...[...token.content.matchAll(HTML_LINK)].map((m) => m[1]));
      if (token.children) visit(token.children);
    }
  };
  visit(markdown.parse(text, {}));
  return targets;
}

/** The links of a Markdown text that name a file relative to it (not a URL, an anchor or an absolute path), without #fragment. */
function relativeLinks(text: string): string[] {
  return linkTargets(text)
    .filter((t) => t !== "" && !/^[a-z][a-z0-9+.-]*:/i.test(t) && !t.startsWith("#") && !t.startsWith("/"))
    .map((t) => decodeURI(t.replace(/[?#].*$/, "")));
}

function notebookMarkdown(file: string): string {
  return readNotebook(file).cells.filter((c) => c.cell_type === "markdown").map((c) => [c.source].flat().join("")).join("\n\n");
}

/** Every .ipynb under `dir`, hidden folders (the reset copies) left out. */
function notebooksUnder(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (entry.name.startsWith(".")) return [];
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? notebooksUnder(full) : entry.name.endsWith(".ipynb") ? [full] : [];
  });
}

/** The relative links of `files` (notebooks, or Markdown for the rest) that do not name a file inside `root`, and how many links there were. */
function deadLinks(files: string[], root: string): { dead: string[]; links: string[] } {
  const dead: string[] = [];
  const links: string[] = [];
  for (const file of files) {
    const text = file.endsWith(".ipynb") ? notebookMarkdown(file) : fs.readFileSync(file, "utf8");
    for (const link of relativeLinks(text)) {
      const where = `${path.relative(root, file)} -> ${link}`;
      links.push(where);
      const target = path.resolve(path.dirname(file), link);
      const inside = !path.relative(root, target).startsWith("..");
      if (!inside) dead.push(`${where}: outside ${root}`);
      else if (!fs.existsSync(target) || !fs.statSync(target).isFile()) dead.push(`${where}: no such file`);
    }
  }
  return { dead, links };
}

/** Runs `body` with FUSELAB_WORKSPACE naming `dir`: the workspace of this package, elsewhere than the student's. */
function withWorkspace<T>(dir: string, body: () => T): T {
  const before = process.env.FUSELAB_WORKSPACE;
  process.env.FUSELAB_WORKSPACE = dir;
  try {
    return body();
  } finally {
    if (before === undefined) delete process.env.FUSELAB_WORKSPACE;
    else process.env.FUSELAB_WORKSPACE = before;
  }
}

const FIRST = "# First\n\nA cell that prints.\n\n```ts\nconst answer = 6 * 7;\nconsole.log(`the answer is ${answer}`);\n```\n\n" +
  "## Exercise\n\n[Exercise 01](../exercises/01-one/01-one.ipynb)\n";
const EXERCISE = "# Exercise 01\n\nFill in the kernel.\n\n```ts\nconst kernel = \"TODO\";\nconsole.log(`handed in: ${kernel}`);\n```\n";

describe("the student's working copy", function () {
  this.timeout(10 * 60 * 1000);
  let tmp: string;
  let jupyter: TestJupyter;
  before(() => { jupyter = testJupyter(); });
  after(() => jupyter.dispose());
  beforeEach(() => { tmp = fs.mkdtempSync(path.join(os.tmpdir(), "fuselab-workspace-")); });
  afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it("is git-ignored in this repository, lessons and exercises", () => {
    // check-ignore prints the paths that are ignored, and exits with 1 (execFileSync throws) when none is.
    const copies = [`${WORKSPACE_NAME}/notebooks/00-tour.ipynb`, `${WORKSPACE_NAME}/exercises/01-add-relu/01-add-relu.ipynb`];
    expect(git(packageRoot(), "check-ignore", ...copies).trim().split("\n")).to.deep.equal(copies);
  });

  it("open, edit, run, save a lesson and an exercise, then the notebook check and git pull both work", async function () {
    requireJupyter(this, jupyter);
    // The course repository, with this repository's .gitignore, and a student's clone of it.
    const course = path.join(tmp, "course");
    fs.mkdirSync(course);
    git(course, "init", "-q", "-b", "main");
    fs.copyFileSync(path.join(packageRoot(), ".gitignore"), path.join(course, ".gitignore"));
    writeLesson(course, "00-first", FIRST);
    writeExercise(course, "01-one", EXERCISE);
    git(course, "add", "-A");
    git(course, "commit", "-q", "-m", "first lesson and exercise");
    const student = path.join(tmp, "student");
    git(tmp, "clone", "-q", course, student);

    // fuselab start: the lesson and the exercise are copied into the working copy, which Jupyter serves.
    expect(syncWorkspace(student)).to.deep.equal({ copied: ["notebooks/00-first.ipynb", "exercises/01-one/01-one.ipynb"], moved: [] });
    const lesson = path.join(workspaceDir(student), "notebooks", "00-first.ipynb");
    const exercise = path.join(workspaceDir(student), "exercises", "01-one", "01-one.ipynb");
    expect(deadLinks([lesson], workspaceDir(student)).dead).to.deep.equal([]);
    let problems = await executeNotebook(jupyter, lesson, { save: true });
    expect(problems, problemReport(problems)).to.deep.equal([]);
    const savedLesson = fs.readFileSync(lesson, "utf8");
    expect(savedLesson, "the saved lesson holds the cell's output").to.include("the answer is 42");
    // The student fills in the exercise, runs and saves it.
    editCell(exercise, "TODO", "const kernel = \"mine\";\nconsole.log(`handed in: ${kernel}`);");
    problems = await executeNotebook(jupyter, exercise, { save: true });
    expect(problems, problemReport(problems)).to.deep.equal([]);
    const savedExercise = fs.readFileSync(exercise, "utf8");
    expect(savedExercise, "the saved exercise holds the student's code and its output").to.include("handed in: mine");

    // npm test's check and git see nothing changed.
    expect(notebookProblems(student)).to.deep.equal([]);
    expect(git(student, "status", "--porcelain")).to.equal("");

    // The course gains a lesson and an exercise and changes the first exercise; the student pulls.
    writeExercise(course, "01-one", EXERCISE.replace("Fill in the kernel.", "Fill in the kernel, then check it."));
    writeLesson(course, "01-second", "# Second\n\n```ts\nconsole.log(1 + 1);\n```\n\n[Exercise 02](../exercises/02-two/02-two.ipynb)\n");
    writeExercise(course, "02-two", "# Exercise 02\n\n```ts\nconsole.log(2);\n```\n");
    git(course, "add", "-A");
    git(course, "commit", "-q", "-m", "second lesson and exercise");
    git(student, "pull", "-q", "--ff-only");
    expect(notebookProblems(student)).to.deep.equal([]);

    // The next start copies the new ones in and keeps the student's work.
    expect(syncWorkspace(student)).to.deep.equal({ copied: ["notebooks/01-second.ipynb", "exercises/02-two/02-two.ipynb"], moved: [] });
    expect(fs.readFileSync(lesson, "utf8")).to.equal(savedLesson);
    expect(fs.readFileSync(exercise, "utf8")).to.equal(savedExercise);
    expect(syncWorkspace(student)).to.deep.equal({ copied: [], moved: [] });

    // Resetting the exercise gives the new original and keeps the student's copy aside; the lesson stays the student's.
    const { notebook, kept } = resetNotebook("01-one", student);
    expect(notebook).to.equal(exercise);
    expect(fs.readFileSync(exercise, "utf8")).to.equal(fs.readFileSync(path.join(student, "exercises", "01-one", "01-one.ipynb"), "utf8"));
    expect(fs.readFileSync(exercise, "utf8")).to.include("then check it");
    expect(kept && path.dirname(kept)).to.equal(path.join(workspaceDir(student), BACKUP_NAME));
    expect(fs.readFileSync(kept!, "utf8")).to.equal(savedExercise);
    expect(fs.readFileSync(lesson, "utf8")).to.equal(savedLesson);
    // A lesson resets the same way, named as a file too.
    expect(resetNotebook("00-first.md", student).notebook).to.equal(lesson);
    expect(fs.readFileSync(lesson, "utf8")).to.equal(fs.readFileSync(path.join(student, "notebooks", "00-first.ipynb"), "utf8"));
    expect(deadLinks(notebooksUnder(workspaceDir(student)), workspaceDir(student)).dead).to.deep.equal([]);
    expect(git(student, "status", "--porcelain")).to.equal("");
  });

  it("an exercise notebook run from the working copy finds fuselab and its exercise: fl.check grades the student's kernel", async function () {
    requireJupyter(this, jupyter);
    // Inside the package, as my-notebooks/ is, so that the notebook resolves "fuselab".
    fs.mkdirSync(path.join(packageRoot(), ".fuselab"), { recursive: true });
    const workspace = fs.mkdtempSync(path.join(packageRoot(), ".fuselab", "workspace-"));
    try {
      const { copied } = withWorkspace(workspace, () => syncWorkspace());
      const copy = path.join(workspace, "exercises", "01-add-relu", "01-add-relu.ipynb");
      expect(copied).to.include("exercises/01-add-relu/01-add-relu.ipynb");
      const solution = withoutMarkers(fs.readFileSync(path.join(solutionsDir(), "01-add-relu", "solution.hip"), "utf8"));
      editCell(copy, "fl.check(", `const source = ${JSON.stringify(solution)};\nawait fl.check("01-add-relu", source);`);
      const problems = await executeNotebook(jupyter, copy, { save: true });
      expect(problems, problemReport(problems)).to.deep.equal([]);
      const saved = fs.readFileSync(copy, "utf8");
      expect(saved, "fl.check's report").to.match(/01-add-relu on [^:]+: [\d.]+ of [\d.]+ points/);
      expect(saved).to.include("ok   f32 small");
      expect(saved, "a visible test failed").to.not.include("FAIL");

      // A later start keeps it; a reset puts the stub back and keeps the student's run.
      expect(withWorkspace(workspace, () => syncWorkspace())).to.deep.equal({ copied: [], moved: [] });
      expect(fs.readFileSync(copy, "utf8")).to.equal(saved);
      const { kept } = withWorkspace(workspace, () => resetNotebook("01-add-relu"));
      expect(fs.readFileSync(copy, "utf8")).to.equal(fs.readFileSync(path.join(packageRoot(), "exercises", "01-add-relu", "01-add-relu.ipynb"), "utf8"));
      expect(fs.readFileSync(kept!, "utf8")).to.equal(saved);
    } finally {
      fs.rmSync(workspace, { recursive: true, force: true });
    }
  });

  it("every relative link of every lesson, the index and every exercise notebook names a file inside the working copy", () => {
    const workspace = path.join(tmp, WORKSPACE_NAME);
    withWorkspace(workspace, () => syncWorkspace());
    const notebooks = notebooksUnder(workspace);
    const { dead, links } = deadLinks(notebooks, workspace);
    expect(dead, "links that Jupyter cannot open").to.deep.equal([]);
    // Not vacuous: the lessons and the index link the exercises, and the index every lesson.
    const relative = notebooks.map((f) => path.relative(workspace, f));
    const lessons = relative.filter((f) => f.startsWith("notebooks/") && f !== WORKSPACE_INDEX);
    expect(relative.filter((f) => f.startsWith("exercises/")).length, "exercise notebooks in the working copy").to.be.greaterThan(0);
    const fromLessons = links.filter((l) => lessons.some((f) => l.startsWith(`${f} -> `)));
    expect(fromLessons.filter((l) => l.includes(" -> ../exercises/")).length).to.be.greaterThan(0);
    const fromIndex = links.filter((l) => l.startsWith(`${WORKSPACE_INDEX} -> `));
    expect(fromIndex.filter((l) => l.includes(" -> ../exercises/")).length).to.be.greaterThan(0);
    expect(fromIndex.filter((l) => !l.includes(" -> ../exercises/")).length, "the index's links to the lessons").to.equal(lessons.length);
  });

  it("every relative link of the committed notebooks and the lessons names a file of the package", () => {
    const root = packageRoot();
    const files = [
      ...notebooksUnder(path.join(root, "notebooks")),
      ...notebooksUnder(path.join(root, "exercises")),
      ...fs.readdirSync(path.join(root, "lessons")).filter((f) => f.endsWith(".md")).map((f) => path.join(root, "lessons", f)),
    ];
    const { dead, links } = deadLinks(files, root);
    expect(dead).to.deep.equal([]);
    expect(links.length).to.be.greaterThan(0);
  });

  it("moves the lessons of a working copy made before it held the exercises, and drops the old index", () => {
    writeLesson(tmp, "00-first", FIRST);
    writeExercise(tmp, "01-one", EXERCISE);
    const old = workspaceDir(tmp);
    fs.mkdirSync(old);
    fs.writeFileSync(path.join(old, "00-first.ipynb"), "the student's run");
    fs.writeFileSync(path.join(old, INDEX_NOTEBOOK), "the course's index of then");
    expect(syncWorkspace(tmp)).to.deep.equal({ copied: ["exercises/01-one/01-one.ipynb"], moved: ["notebooks/00-first.ipynb"] });
    expect(fs.readFileSync(path.join(old, "notebooks", "00-first.ipynb"), "utf8")).to.equal("the student's run");
    expect(fs.readdirSync(old).sort()).to.deep.equal(["exercises", "notebooks"]);
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
    writeLesson(tmp, "00-first", FIRST);
    writeExercise(tmp, "01-one", EXERCISE);
    fs.writeFileSync(readme, table(firstRow));
    expect(notebookProblems(tmp)).to.deep.equal([`notebooks/${INDEX_NOTEBOOK} is missing: run 'npm run notebooks'`]);
    const first = writeIndex();
    expect(notebookProblems(tmp)).to.deep.equal([]);
    const text = (JSON.parse(first) as { cells: { source: string[] }[] }).cells.map((c) => c.source.join("")).join("\n");
    expect(text).to.include("| 00 | [First](00-first.ipynb) | printing | [01](../exercises/01-one/01-one.ipynb) |");
    expect(syncWorkspace(tmp).copied).to.deep.equal(["notebooks/00-first.ipynb", WORKSPACE_INDEX, "exercises/01-one/01-one.ipynb"]);
    expect(deadLinks([path.join(workspaceDir(tmp), WORKSPACE_INDEX)], workspaceDir(tmp))).to.deep.equal({
      dead: [], links: [`${WORKSPACE_INDEX} -> 00-first.ipynb`, `${WORKSPACE_INDEX} -> ../exercises/01-one/01-one.ipynb`],
    });

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
    expect(syncWorkspace(tmp).copied).to.deep.equal(["notebooks/01-second.ipynb", WORKSPACE_INDEX]);
    expect(fs.readFileSync(path.join(workspaceDir(tmp), WORKSPACE_INDEX), "utf8")).to.equal(second);
    expect(syncWorkspace(tmp).copied).to.deep.equal([]);
  });

  it("reset names the lessons and the exercises when given an unknown one", () => {
    writeLesson(tmp, "00-first", FIRST);
    writeExercise(tmp, "01-one", EXERCISE);
    expect(() => resetNotebook("00-frist", tmp)).to.throw(
      'reset: the notebook must be a lesson (00-first) or an exercise (01-one), got "00-frist"');
  });
});
