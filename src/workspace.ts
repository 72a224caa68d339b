// The student's working copy of the lessons. `fuselab start` serves my-notebooks/
// (ignored by git), never the committed notebooks/: Jupyter rewrites a notebook
// when it opens, runs and saves it, and doing that to the committed files would
// make them stale and block `git pull`. New lessons are copied in on each start;
// a lesson already there is the student's and is never overwritten, except by an
// explicit reset, which keeps the old copy. The course's index is not the student's
// work: it is brought up to date on each start, so that it lists the new lessons.
import * as fs from "fs";
import * as path from "path";
import { INDEX_NOTEBOOK, notebooksDir } from "./lessons";
import { packageRoot } from "./native";

export const WORKSPACE_NAME = "my-notebooks";
/** Inside the workspace: where `resetLesson` keeps the copies it replaces (hidden from Jupyter's file list). */
export const BACKUP_NAME = ".replaced";

/**
 * The working copy of the tree at `root`: root/my-notebooks; for this package, the
 * folder FUSELAB_WORKSPACE names when it is set (it must be inside the package, so
 * that notebooks there resolve "fuselab").
 */
export function workspaceDir(root?: string): string {
  if (root === undefined && process.env.FUSELAB_WORKSPACE) return path.resolve(process.env.FUSELAB_WORKSPACE);
  return path.join(root ?? packageRoot(), WORKSPACE_NAME);
}

function committedNotebooks(root?: string): string[] {
  return fs.readdirSync(notebooksDir(root)).filter((f) => f.endsWith(".ipynb")).sort();
}

/** Copies into the workspace each committed notebook it lacks, and the index where it differs; returns the names copied. */
export function syncWorkspace(root?: string): string[] {
  const dir = workspaceDir(root);
  fs.mkdirSync(dir, { recursive: true });
  const copied: string[] = [];
  for (const name of committedNotebooks(root)) {
    const source = path.join(notebooksDir(root), name);
    const target = path.join(dir, name);
    if (fs.existsSync(target)) {
      if (name !== INDEX_NOTEBOOK || fs.readFileSync(target).equals(fs.readFileSync(source))) continue;
      fs.copyFileSync(source, target);
    } else {
      fs.copyFileSync(source, target, fs.constants.COPYFILE_EXCL);
    }
    copied.push(name);
  }
  return copied;
}

/**
 * Puts the committed version of one lesson back in the workspace. `lesson` is its
 * name with or without an extension ("00-tour", "00-tour.ipynb", "00-tour.md").
 * The student's copy, if any, moves to my-notebooks/.replaced/<name>-<time>.ipynb;
 * returns that path.
 */
export function resetLesson(lesson: string, root?: string): { notebook: string; kept?: string } {
  const base = path.basename(lesson).replace(/\.(ipynb|md)$/, "");
  const available = committedNotebooks(root);
  const name = `${base}.ipynb`;
  if (!available.includes(name)) {
    throw new Error(`no lesson named ${JSON.stringify(lesson)}; the lessons are ${available.map((n) => n.replace(/\.ipynb$/, "")).join(", ")}`);
  }
  const dir = workspaceDir(root);
  const notebook = path.join(dir, name);
  let kept: string | undefined;
  if (fs.existsSync(notebook)) {
    const stamp = new Date().toISOString().replace(/[:.]/g, "-");
    kept = path.join(dir, BACKUP_NAME, `${base}-${stamp}.ipynb`);
    fs.mkdirSync(path.dirname(kept), { recursive: true });
    fs.renameSync(notebook, kept);
  }
  fs.mkdirSync(dir, { recursive: true });
  fs.copyFileSync(path.join(notebooksDir(root), name), notebook);
  return { notebook, kept };
}
