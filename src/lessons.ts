// Lessons are written as Markdown (prose + fenced ```ts cells) and turned into
// notebooks: lessons/<name>.md -> notebooks/<name>.ipynb (nbformat 4, no outputs).
// The JSON is stable, so regenerating an unchanged lesson gives the same bytes and
// a test can tell a stale notebook. Run with `npm run notebooks`.
import * as fs from "fs";
import MarkdownIt from "markdown-it";
import * as path from "path";
import { KERNEL_DISPLAY_NAME, KERNEL_NAME } from "./jupyter";
import { packageRoot } from "./native";

const CODE_LANGUAGES = new Set(["ts", "typescript"]);
// A lesson is NN-name.md; other Markdown in lessons/ (README.md, the course's index) is not.
const LESSON_FILE = /^\d{2}-[a-z0-9-]+\.md$/;

interface Cell {
  cell_type: "markdown" | "code";
  id: string;
  metadata: Record<string, never>;
  source: string[];
  execution_count?: null;
  outputs?: never[];
}

export interface Notebook {
  cells: Cell[];
  metadata: {
    kernelspec: { display_name: string; language: string; name: string };
    language_info: { name: string; file_extension: string; mimetype: string };
  };
  nbformat: 4;
  nbformat_minor: 5;
}

/** Jupyter keeps a cell's source as lines, each but the last ending in "\n". */
function sourceLines(text: string): string[] {
  const lines = text.split("\n");
  return lines.map((line, i) => (i < lines.length - 1 ? line + "\n" : line)).filter((line) => line !== "");
}

/**
 * Builds the notebook for one lesson. A fenced ts block becomes a code cell; the
 * prose between code cells becomes markdown cells, a new one at every # or ## heading.
 * `where` names the lesson in errors. A lesson must have a code cell; the course's
 * index (`proseOnly`) has none.
 */
export function lessonToNotebook(markdown: string, where: string, proseOnly = false): Notebook {
  const lines = markdown.replace(/\r\n/g, "\n").split("\n");
  const tokens = new MarkdownIt().parse(markdown, {});
  const cells: Cell[] = [];
  let proseStart = 0;

  const addProse = (end: number) => {
    const text = lines.slice(proseStart, end).join("\n").trim();
    if (text) cells.push({ cell_type: "markdown", id: "", metadata: {}, source: sourceLines(text) });
  };

  for (const token of tokens) {
    if (token.level !== 0 || !token.map) continue;
    const [first, end] = token.map;
    if (token.type === "heading_open" && (token.tag === "h1" || token.tag === "h2")) {
      addProse(first);
      proseStart = first;
    } else if (token.type === "fence" && CODE_LANGUAGES.has(token.info.trim())) {
      addProse(first);
      const code = token.content.replace(/\s+$/, "");
      if (!code) throw new Error(`${where}:${first + 1}: a ts cell must hold code, got an empty block`);
      cells.push({ cell_type: "code", id: "", execution_count: null, metadata: {}, outputs: [], source: sourceLines(code) });
      proseStart = end;
    }
  }
  addProse(lines.length);
  if (!proseOnly && !cells.some((c) => c.cell_type === "code")) {
    throw new Error(`${where}: a lesson must have at least one \`\`\`ts cell, got none`);
  }
  cells.forEach((cell, i) => { cell.id = `cell-${i}`; });

  return {
    cells,
    metadata: {
      kernelspec: { display_name: KERNEL_DISPLAY_NAME, language: "typescript", name: KERNEL_NAME },
      language_info: { name: "typescript", file_extension: ".ts", mimetype: "text/typescript" },
    },
    nbformat: 4,
    nbformat_minor: 5,
  };
}

/** The notebook as written to disk: Jupyter's own indentation, keys in a fixed order, a final newline. */
export function notebookJson(notebook: Notebook): string {
  return JSON.stringify(notebook, null, 1) + "\n";
}

function lessonsDir(root = packageRoot()): string {
  return path.join(root, "lessons");
}

export function notebooksDir(root = packageRoot()): string {
  return path.join(root, "notebooks");
}

/** Every lesson of the tree at `root`, with the notebook file it produces and that notebook's text. */
export function renderLessons(root = packageRoot()): { lesson: string; notebook: string; json: string }[] {
  return fs.readdirSync(lessonsDir(root))
    .filter((name) => LESSON_FILE.test(name))
    .sort()
    .map((name) => {
      const lesson = path.join(lessonsDir(root), name);
      return {
        lesson,
        notebook: path.join(notebooksDir(root), name.replace(/\.md$/, ".ipynb")),
        json: notebookJson(lessonToNotebook(fs.readFileSync(lesson, "utf8"), path.relative(root, lesson))),
      };
    });
}

// The course's index: notebooks/index.ipynb, made from the lessons table of
// lessons/README.md (a row a lesson: "| NN | [Title](NN-name.md) | what you learn |
// exercise |") and from the lessons themselves (their titles and the exercise
// notebooks they link to), so that it lists every lesson and cannot drift from them.
export const INDEX_NOTEBOOK = "index.ipynb";
const INDEX_SOURCE = "README.md";
const TABLE_ROW = /^\|\s*(\d{2})\s*\|\s*\[[^\]]*\]\((\d{2}-[a-z0-9-]+\.md)\)\s*\|([^|]*)\|/;
const EXERCISE_LINK = /\]\(\.\.\/exercises\/((\d{2})-[a-z0-9-]+)\/\1\.ipynb\)/g;

/** The index's Markdown, or an error naming what in lessons/README.md disagrees with the lessons. */
export function courseIndexMarkdown(root = packageRoot()): string {
  const readme = path.join(lessonsDir(root), INDEX_SOURCE);
  const where = path.relative(root, readme);
  const lessons = fs.readdirSync(lessonsDir(root)).filter((name) => LESSON_FILE.test(name)).sort();
  const rows = new Map<string, string>();
  for (const line of fs.readFileSync(readme, "utf8").split("\n")) {
    const row = TABLE_ROW.exec(line);
    if (!row) continue;
    const [, number, file, summary] = row;
    if (!file.startsWith(`${number}-`)) throw new Error(`${where}: the row numbered ${number} links ${file}`);
    if (!lessons.includes(file)) throw new Error(`${where}: the lessons table links ${file}, which is not in lessons/`);
    rows.set(file, summary.trim());
  }
  const table = lessons.map((file) => {
    const summary = rows.get(file);
    if (summary === undefined) throw new Error(`${where}: the lessons table has no row for ${file}`);
    const text = fs.readFileSync(path.join(lessonsDir(root), file), "utf8");
    const title = /^# (.+)$/m.exec(text)?.[1].trim() ?? file;
    const exercises = [...new Map([...text.matchAll(EXERCISE_LINK)].map((m) => [m[1], m[2]])).entries()]
      .map(([id, number]) => `[${number}](../exercises/${id}/${id}.ipynb)`);
    return `| ${file.slice(0, 2)} | [${title}](${file.replace(/\.md$/, ".ipynb")}) | ${summary} | ${exercises.join(", ") || "—"} |`;
  });
  return [
    "# The fuselab course",
    "",
    "Every lesson of the course, in order. Open one, run its cells from the top (each",
    "measurement asks for your prediction first), and finish with its exercises: a notebook",
    "each, where `fl.check` grades your kernel as the grader will. Every lesson runs on a",
    "GPU when there is one and on the CPU emulator when there is not.",
    "",
    "| # | lesson | what you learn | exercises |",
    "| --- | --- | --- | --- |",
    ...table,
    "",
    "This page is made from `lessons/README.md` and the lessons (`npm run notebooks`). In",
    "`npm start`'s working copy the lessons and the exercises are your own copies, kept when",
    "the course changes: `fuselab reset NN-name` puts one back as it came (`reset 00-tour`,",
    "`reset 01-add-relu`).",
    "",
  ].join("\n");
}

/** The index notebook of the tree at `root` and its text; undefined for a tree without lessons/README.md. */
export function renderCourseIndex(root = packageRoot()): { notebook: string; json: string } | undefined {
  if (!fs.existsSync(path.join(lessonsDir(root), INDEX_SOURCE))) return undefined;
  return {
    notebook: path.join(notebooksDir(root), INDEX_NOTEBOOK),
    json: notebookJson(lessonToNotebook(courseIndexMarkdown(root), `lessons/${INDEX_SOURCE}`, true)),
  };
}

/**
 * What is wrong with the committed notebooks of the tree at `root`, one line each:
 * missing, stale (not what their lesson, or for the index the lessons table, generates)
 * or without a lesson. Empty when all is well.
 */
export function notebookProblems(root = packageRoot()): string[] {
  const rendered = renderLessons(root);
  const problems: string[] = [];
  for (const { lesson, notebook, json } of rendered) {
    const name = path.relative(root, notebook);
    if (!fs.existsSync(notebook)) problems.push(`${name} is missing: run 'npm run notebooks'`);
    else if (fs.readFileSync(notebook, "utf8") !== json) problems.push(`${name} is stale (${path.basename(lesson)} changed): run 'npm run notebooks'`);
  }
  let index: ReturnType<typeof renderCourseIndex>;
  try {
    index = renderCourseIndex(root);
  } catch (e) {
    problems.push(`notebooks/${INDEX_NOTEBOOK} cannot be made: ${(e as Error).message}`);
  }
  if (index) {
    if (!fs.existsSync(index.notebook)) problems.push(`notebooks/${INDEX_NOTEBOOK} is missing: run 'npm run notebooks'`);
    else if (fs.readFileSync(index.notebook, "utf8") !== index.json) {
      problems.push(`notebooks/${INDEX_NOTEBOOK} is stale (the lessons or lessons/${INDEX_SOURCE} changed): run 'npm run notebooks'`);
    }
  }
  const dir = notebooksDir(root);
  const hasIndex = fs.existsSync(path.join(lessonsDir(root), INDEX_SOURCE));
  const generated = (f: string) => rendered.some((r) => path.basename(r.notebook) === f) || (f === INDEX_NOTEBOOK && hasIndex);
  const orphans = fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => f.endsWith(".ipynb") && !generated(f)) : [];
  for (const orphan of orphans) problems.push(`notebooks/${orphan} has no lesson in lessons/`);
  return problems;
}

if (require.main === module) {
  try {
    fs.mkdirSync(notebooksDir(), { recursive: true });
    const index = renderCourseIndex();
    const outputs = renderLessons();
    if (index) outputs.push({ lesson: path.join(lessonsDir(), INDEX_SOURCE), ...index });
    for (const { lesson, notebook, json } of outputs) {
      const unchanged = fs.existsSync(notebook) && fs.readFileSync(notebook, "utf8") === json;
      if (!unchanged) fs.writeFileSync(notebook, json);
      console.log(`${path.relative(packageRoot(), lesson)} -> ${path.relative(packageRoot(), notebook)}${unchanged ? " (unchanged)" : ""}`);
    }
  } catch (e) {
    console.error(`fuselab notebooks: ${(e as Error).message}`);
    process.exitCode = 1;
  }
}
