// The student's working copy of the course's notebooks. `fuselab start` serves
// my-notebooks/ (ignored by git), never the committed files: Jupyter rewrites a
// notebook when it opens, runs and saves it, and doing that to the committed files
// would make them stale and block `git pull`.
//
// The working copy holds the lessons and the exercise notebooks at the places the
// package has them, my-notebooks/notebooks/NN-name.ipynb and
// my-notebooks/exercises/NN-name/NN-name.ipynb, so that every relative link between
// them (a lesson's "../exercises/NN-name/NN-name.ipynb") resolves in the working
// copy as in the package, inside Jupyter's root. New notebooks are copied in on each
// start; one already there is the student's and is never overwritten, except by an
// explicit reset, which keeps the old copy. The course's index is not the student's
// work: it is brought up to date on each start, so that it lists the new lessons.
import * as fs from "fs";
import * as path from "path";
import { ArgumentError, describe } from "./errors";
import { exerciseIds, exercisesDir } from "./grading/exercise";
import { INDEX_NOTEBOOK, notebooksDir } from "./lessons";
import { packageRoot } from "./native";

export const WORKSPACE_NAME = "my-notebooks";
/** Inside the workspace: where `resetNotebook` keeps the copies it replaces (hidden from Jupyter's file list). */
export const BACKUP_NAME = ".replaced";
/** The course's index in the workspace, relative to it: the notebook `fuselab start` opens. */
export const WORKSPACE_INDEX = `notebooks/${INDEX_NOTEBOOK}`;

/**
 * The working copy of the tree at `root`: root/my-notebooks; for this package, the
 * folder FUSELAB_WORKSPACE names when it is set (it must be inside the package, so
 * that notebooks there resolve "fuselab").
 */
export function workspaceDir(root?: string): string {
  if (root === undefined && process.env.FUSELAB_WORKSPACE) return path.resolve(process.env.FUSELAB_WORKSPACE);
  return path.join(root ?? packageRoot(), WORKSPACE_NAME);
}

/** A committed notebook the workspace holds a copy of. */
interface CourseNotebook {
  kind: "lesson" | "index" | "exercise";
  /** What the student calls it: "00-tour", "01-add-relu". */
  name: string;
  /** The committed file. */
  source: string;
  /** The copy's path, relative to the workspace (and to the package for the source): "notebooks/00-tour.ipynb". */
  copy: string;
}

/** The committed notebooks of the tree at `root`: the lessons and the index, then the exercises. */
function courseNotebooks(root?: string): CourseNotebook[] {
  const lessons: CourseNotebook[] = fs.readdirSync(notebooksDir(root)).filter((f) => f.endsWith(".ipynb")).sort().map((file) => ({
    kind: file === INDEX_NOTEBOOK ? "index" : "lesson",
    name: file.replace(/\.ipynb$/, ""),
    source: path.join(notebooksDir(root), file),
    copy: path.posix.join("notebooks", file),
  }));
  const exercises: CourseNotebook[] = (fs.existsSync(exercisesDir(root)) ? exerciseIds(root) : []).map((id) => ({
    kind: "exercise",
    name: id,
    source: path.join(exercisesDir(root), id, `${id}.ipynb`),
    copy: path.posix.join("exercises", id, `${id}.ipynb`),
  }));
  return [...lessons, ...exercises.filter((e) => fs.existsSync(e.source))];
}

export interface WorkspaceSync {
  /** Notebooks copied in (new ones, and the index where it changed), relative to the workspace. */
  copied: string[];
  /** The student's lessons moved from the workspace's top, where they lay before it held the exercises too; relative to the workspace. */
  moved: string[];
}

/** Copies into the workspace each committed notebook it lacks, and the index where it differs. */
export function syncWorkspace(root?: string): WorkspaceSync {
  const dir = workspaceDir(root);
  const result: WorkspaceSync = { copied: [], moved: [] };
  for (const notebook of courseNotebooks(root)) {
    const target = path.join(dir, notebook.copy);
    fs.mkdirSync(path.dirname(target), { recursive: true });
    // Before the workspace held the exercises too, the lessons lay at its top.
    const formerPlace = path.join(dir, path.basename(notebook.copy));
    if (fs.existsSync(target)) {
      if (notebook.kind !== "index" || fs.readFileSync(target).equals(fs.readFileSync(notebook.source))) continue;
      fs.copyFileSync(notebook.source, target);
    } else if (notebook.kind === "lesson" && fs.existsSync(formerPlace)) {
      fs.renameSync(formerPlace, target);
      result.moved.push(notebook.copy);
      continue;
    } else {
      fs.copyFileSync(notebook.source, target, fs.constants.COPYFILE_EXCL);
    }
    result.copied.push(notebook.copy);
  }
  // The index that lay at the top is the course's, rewritten on every start: nothing of the student's is lost.
  fs.rmSync(path.join(dir, INDEX_NOTEBOOK), { force: true });
  return result;
}

/**
 * Puts the committed version of one lesson or exercise notebook back in the
 * workspace. `name` is its name with or without an extension or folders
 * ("00-tour", "00-tour.ipynb", "exercises/01-add-relu/01-add-relu.ipynb").
 * The student's copy, if any, moves to my-notebooks/.replaced/<name>-<time>.ipynb;
 * returns the notebook's path and that one's.
 */
export function resetNotebook(name: string, root?: string): { notebook: string; kept?: string } {
  const base = path.basename(name).replace(/\.(ipynb|md)$/, "");
  const available = courseNotebooks(root).filter((n) => n.kind !== "index");
  const original = available.find((n) => n.name === base);
  if (!original) {
    const names = (kind: CourseNotebook["kind"]) => available.filter((n) => n.kind === kind).map((n) => n.name).join(", ") || "none here";
    throw new ArgumentError("reset", "the notebook", `a lesson (${names("lesson")}) or an exercise (${names("exercise")})`, describe(name));
  }
  const dir = workspaceDir(root);
  const notebook = path.join(dir, original.copy);
  let kept: string | undefined;
  if (fs.existsSync(notebook)) {
    const stamp = new Date().toISOString().replace(/[:.]/g, "-");
    kept = path.join(dir, BACKUP_NAME, `${base}-${stamp}.ipynb`);
    fs.mkdirSync(path.dirname(kept), { recursive: true });
    fs.renameSync(notebook, kept);
  }
  fs.mkdirSync(path.dirname(notebook), { recursive: true });
  fs.copyFileSync(original.source, notebook);
  return { notebook, kept };
}
