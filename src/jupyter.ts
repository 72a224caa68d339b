// Jupyter integration: finding a Python that has Jupyter, the "fuselab" kernelspec
// (node + tslab by absolute path, so it works whatever is on PATH and whichever
// Python runs Jupyter), and where that kernelspec lives.
import { spawnSync } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { packageRoot } from "./native";

export const KERNEL_NAME = "fuselab";
export const KERNEL_DISPLAY_NAME = "TypeScript (fuselab)";

/** What to install when no Python with Jupyter is found. */
export const JUPYTER_INSTALL_HINT =
  "Jupyter was not found. Install it with\n" +
  "  sudo apt-get install jupyter-notebook jupyter-nbconvert python3-nbclient   (Debian/Ubuntu)\n" +
  "or\n" +
  "  pip install notebook nbclient\n" +
  "or point FUSELAB_PYTHON at a Python that has them.";

export interface JupyterPython {
  /** The command that was run (absolute or as found on PATH). */
  python: string;
  /** sys.executable as the Python itself reports it. */
  executable: string;
  notebookVersion: string;
  jupyterClientVersion: string;
  /** nbclient's version, or null when that Python lacks it (needed only to execute notebooks headless). */
  nbclientVersion: string | null;
  /** `jupyter --data-dir` of that Python: where --user kernelspecs go. */
  dataDir: string;
  /** Kernelspecs that Python's Jupyter finds: name -> folder. */
  kernelspecs: Record<string, string>;
}

export interface JupyterSearch {
  found?: JupyterPython;
  /** One line for each candidate tried: why it was not taken. */
  tried: string[];
}

const PROBE = `
import json, sys
import notebook, jupyter_client
from jupyter_core.paths import jupyter_data_dir
from jupyter_client.kernelspec import KernelSpecManager
try:
    import nbclient
    nbclient_version = nbclient.__version__
except ImportError:
    nbclient_version = None
print(json.dumps({
    "executable": sys.executable,
    "notebookVersion": notebook.__version__,
    "jupyterClientVersion": jupyter_client.__version__,
    "nbclientVersion": nbclient_version,
    "dataDir": jupyter_data_dir(),
    "kernelspecs": KernelSpecManager().find_kernel_specs(),
}))
`;

/**
 * Pythons to try, in order: $FUSELAB_PYTHON alone when set (an explicit choice is
 * never silently replaced), else /usr/bin/python3, then python3 and python on PATH.
 */
function pythonCandidates(env: NodeJS.ProcessEnv = process.env): string[] {
  if (env.FUSELAB_PYTHON) return [env.FUSELAB_PYTHON];
  return ["/usr/bin/python3", "python3", "python"];
}

/** The first candidate Python that can import notebook and jupyter_client. */
export function findJupyter(env: NodeJS.ProcessEnv = process.env): JupyterSearch {
  const tried: string[] = [];
  for (const python of pythonCandidates(env)) {
    const run = spawnSync(python, ["-c", PROBE], { encoding: "utf8", env, timeout: 60_000 });
    if (run.error) {
      tried.push(`${python}: ${(run.error as NodeJS.ErrnoException).code === "ENOENT" ? "not found" : run.error.message}`);
      continue;
    }
    if (run.status !== 0) {
      const lastLine = (run.stderr || "").trim().split("\n").pop() || `exit status ${run.status}`;
      tried.push(`${python}: cannot import notebook, jupyter_client (${lastLine})`);
      continue;
    }
    try {
      return { found: { python, ...(JSON.parse(run.stdout) as Omit<JupyterPython, "python">) }, tried };
    } catch {
      tried.push(`${python}: printed something other than the expected report`);
    }
  }
  return { tried };
}

/** tslab's command-line entry (its package bin), by absolute path. */
export function tslabEntry(): string {
  const manifest = require.resolve("tslab/package.json", { paths: [packageRoot()] });
  const bin = (require(manifest) as { bin: string | Record<string, string> }).bin;
  return path.join(path.dirname(manifest), typeof bin === "string" ? bin : bin.tslab);
}

export interface KernelSpec {
  argv: string[];
  display_name: string;
  language: string;
  env?: Record<string, string>;
}

/** The kernelspec: this very node and tslab by absolute path; FUSELAB_DEVICE passed through when set. */
function kernelSpec(env: NodeJS.ProcessEnv = process.env): KernelSpec {
  const spec: KernelSpec = {
    argv: [process.execPath, tslabEntry(), "kernel", "--config-path", "{connection_file}"],
    display_name: KERNEL_DISPLAY_NAME,
    language: "typescript",
  };
  if (env.FUSELAB_DEVICE) spec.env = { FUSELAB_DEVICE: env.FUSELAB_DEVICE };
  return spec;
}

/** The project-local Jupyter data folder that `fuselab start` puts on JUPYTER_PATH. */
export function projectJupyterDir(): string {
  return path.join(packageRoot(), ".fuselab", "jupyter");
}

/** The user's Jupyter data folder: from the found Python's Jupyter, else as jupyter_core computes it. */
export function userJupyterDir(found: JupyterPython | undefined, env: NodeJS.ProcessEnv = process.env): string {
  if (found) return found.dataDir;
  if (env.JUPYTER_DATA_DIR) return env.JUPYTER_DATA_DIR;
  const dataHome = env.XDG_DATA_HOME || path.join(os.homedir(), ".local", "share");
  return path.join(dataHome, "jupyter");
}

/** Where the kernelspec lives inside a Jupyter data folder. */
export function kernelSpecDir(jupyterDir: string): string {
  return path.join(jupyterDir, "kernels", KERNEL_NAME);
}

/** Writes kernel.json under `jupyterDir`/kernels/fuselab; returns the file written. */
export function installKernelSpec(jupyterDir: string, env: NodeJS.ProcessEnv = process.env): string {
  const dir = kernelSpecDir(jupyterDir);
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, "kernel.json");
  fs.writeFileSync(file, JSON.stringify(kernelSpec(env), null, 2) + "\n");
  return file;
}

export interface InstalledKernelSpec {
  file: string;
  /** Its node and tslab still exist (a moved or upgraded node leaves a stale spec). */
  usable: boolean;
  problem?: string;
}

/** The kernelspec in `dir` (a kernelspec folder), if there is one, and whether it still works. */
export function readKernelSpec(dir: string): InstalledKernelSpec | undefined {
  const file = path.join(dir, "kernel.json");
  if (!fs.existsSync(file)) return undefined;
  try {
    const spec = JSON.parse(fs.readFileSync(file, "utf8")) as KernelSpec;
    const missing = spec.argv.slice(0, 2).find((p) => !fs.existsSync(p));
    return missing ? { file, usable: false, problem: `${missing} does not exist (run 'fuselab jupyter install' again)` }
      : { file, usable: true };
  } catch (e) {
    return { file, usable: false, problem: `unreadable: ${(e as Error).message}` };
  }
}

/** JUPYTER_PATH with `dir` in front, keeping what the user had. */
export function jupyterPathWith(dir: string, env: NodeJS.ProcessEnv = process.env): string {
  return [dir, ...(env.JUPYTER_PATH ? [env.JUPYTER_PATH] : [])].join(path.delimiter);
}

/**
 * node_modules/fuselab -> .. inside this repository, so that notebooks here (and
 * tslab's type checker) resolve `import * as fl from "fuselab"` to this package.
 * npm removes the link as extraneous when it reinstalls, so it is made again here.
 */
export function ensureSelfLink(): void {
  const root = packageRoot();
  if (path.basename(path.dirname(root)) === "node_modules") return; // installed as a dependency
  const link = path.join(root, "node_modules", "fuselab");
  try {
    fs.lstatSync(link);
  } catch {
    fs.mkdirSync(path.dirname(link), { recursive: true });
    fs.symlinkSync("..", link, "dir");
  }
}
