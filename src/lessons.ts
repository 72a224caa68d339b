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
 * `where` names the lesson in errors.
 */
export function lessonToNotebook(markdown: string, where: string): Notebook {
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
  if (!cells.some((c) => c.cell_type === "code")) {
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
    .filter((name) => name.endsWith(".md"))
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

/**
 * What is wrong with the committed notebooks of the tree at `root`, one line each:
 * missing, stale (not what their lesson generates) or without a lesson. Empty when all is well.
 */
export function notebookProblems(root = packageRoot()): string[] {
  const rendered = renderLessons(root);
  const problems: string[] = [];
  for (const { lesson, notebook, json } of rendered) {
    const name = path.relative(root, notebook);
    if (!fs.existsSync(notebook)) problems.push(`${name} is missing: run 'npm run notebooks'`);
    else if (fs.readFileSync(notebook, "utf8") !== json) problems.push(`${name} is stale (${path.basename(lesson)} changed): run 'npm run notebooks'`);
  }
  const dir = notebooksDir(root);
  const orphans = fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => f.endsWith(".ipynb"))
    .filter((f) => !rendered.some((r) => path.basename(r.notebook) === f)) : [];
  for (const orphan of orphans) problems.push(`notebooks/${orphan} has no lesson in lessons/`);
  return problems;
}

if (require.main === module) {
  try {
    fs.mkdirSync(notebooksDir(), { recursive: true });
    for (const { lesson, notebook, json } of renderLessons()) {
      const unchanged = fs.existsSync(notebook) && fs.readFileSync(notebook, "utf8") === json;
      if (!unchanged) fs.writeFileSync(notebook, json);
      console.log(`${path.relative(packageRoot(), lesson)} -> ${path.relative(packageRoot(), notebook)}${unchanged ? " (unchanged)" : ""}`);
    }
  } catch (e) {
    console.error(`fuselab notebooks: ${(e as Error).message}`);
    process.exitCode = 1;
  }
}
