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
function lessonToNotebook(markdown: string, where: string): Notebook {
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
function notebookJson(notebook: Notebook): string {
  return JSON.stringify(notebook, null, 1) + "\n";
}

function lessonsDir(): string {
  return path.join(packageRoot(), "lessons");
}

export function notebooksDir(): string {
  return path.join(packageRoot(), "notebooks");
}

/** Every lesson, with the notebook file it produces and that notebook's text. */
export function renderLessons(): { lesson: string; notebook: string; json: string }[] {
  return fs.readdirSync(lessonsDir())
    .filter((name) => name.endsWith(".md"))
    .sort()
    .map((name) => {
      const lesson = path.join(lessonsDir(), name);
      return {
        lesson,
        notebook: path.join(notebooksDir(), name.replace(/\.md$/, ".ipynb")),
        json: notebookJson(lessonToNotebook(fs.readFileSync(lesson, "utf8"), path.relative(packageRoot(), lesson))),
      };
    });
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
