#!/usr/bin/env node
// The `fuselab` command: doctor, jupyter install, start. It must run even when
// the native addon cannot load (doctor exists to explain why), so the addon and
// the library are only loaded inside doctor, and their failures are reported.
import { spawn } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import {
  JUPYTER_INSTALL_HINT, JupyterPython, ensureSelfLink, findJupyter, installKernelSpec, jupyterPathWith,
  kernelSpecDir, projectJupyterDir, readKernelSpec, tslabEntry, userJupyterDir,
} from "./jupyter";
import { native } from "./native";
import { WORKSPACE_INDEX, WORKSPACE_NAME, resetNotebook, syncWorkspace, workspaceDir } from "./workspace";
import { GRADE_USAGE, GradeUsageError } from "./grading/usage";

const USAGE = `usage: fuselab <command>

  doctor [--json]             what is built and usable here: backends, devices, Jupyter, kernelspec
  jupyter install [--user]    install the "fuselab" Jupyter kernelspec: project-local by default,
                 [--dir DIR]  in the user's Jupyter data folder with --user, or in DIR/kernels
  start [jupyter args...]     open your copies of the lessons and exercises (my-notebooks/) in Jupyter
                              with the fuselab kernel, on the course's index when no args are given;
                              notebooks new since the last start are copied in first, yours are kept
  reset NOTEBOOK              put the original of one lesson or exercise notebook back in my-notebooks/
                              (e.g. reset 00-tour, reset 01-add-relu); your copy moves to
                              my-notebooks/.replaced/
${GRADE_USAGE}
  help                        this text`;

/** A mistake on the command line: printed with the usage, exit status 2. */
class UsageError extends Error {}

interface DeviceReport { index: number; name: string; arch?: string; warpSize?: number; error?: string }
interface BackendReport {
  name: string; library: string; built: boolean; loaded: boolean; reason?: string; notes: string[];
  devices: DeviceReport[];
}
interface KernelSpecReport { where: "project" | "user"; dir: string; installed: boolean; usable?: boolean; problem?: string }
interface DoctorReport {
  node: { version: string; path: string };
  addon: { loaded: boolean; error?: string };
  backends: BackendReport[];
  defaultDevice: { backend: string; index: number; name: string } | { error: string };
  jupyter: { found: boolean; python?: string; executable?: string; notebook?: string; jupyterClient?: string;
    nbclient?: string | null; tried: string[]; install?: string };
  tslab: { path?: string; error?: string };
  kernelspecs: KernelSpecReport[];
}

function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

function backendReports(): BackendReport[] {
  const addon = native();
  return addon.backends().map((status) => {
    const devices: DeviceReport[] = [];
    if (status.loaded) {
      for (let index = 0; index < status.deviceCount; index++) {
        try {
          const dev = addon.open(status.name, index, {});
          try {
            const props = addon.props(dev);
            devices.push({ index, name: props.name, arch: props.arch, warpSize: props.warpSize });
          } finally {
            addon.close(dev);
          }
        } catch (e) {
          devices.push({ index, name: "?", error: errorText(e) });
        }
      }
    }
    return { ...status, devices };
  });
}

/** The device the library picks by default (FUSELAB_DEVICE, else a GPU, else the CPU). */
function defaultDevice(): DoctorReport["defaultDevice"] {
  try {
    const fl = require("./index") as { device(): { backend: string; index: number; name: string } };
    const dev = fl.device();
    return { backend: dev.backend, index: dev.index, name: dev.name };
  } catch (e) {
    return { error: errorText(e) };
  }
}

function kernelSpecReport(where: KernelSpecReport["where"], jupyterDir: string): KernelSpecReport {
  const dir = kernelSpecDir(jupyterDir);
  const installed = readKernelSpec(dir);
  return installed ? { where, dir, installed: true, usable: installed.usable, problem: installed.problem }
    : { where, dir, installed: false };
}

function doctorReport(): DoctorReport {
  let backends: BackendReport[] = [];
  let addon: DoctorReport["addon"];
  try {
    backends = backendReports();
    addon = { loaded: true };
  } catch (e) {
    addon = { loaded: false, error: errorText(e) };
  }
  const search = findJupyter();
  const found: JupyterPython | undefined = search.found;
  let tslab: DoctorReport["tslab"];
  try {
    tslab = { path: tslabEntry() };
  } catch (e) {
    tslab = { error: errorText(e) };
  }
  return {
    node: { version: process.version, path: process.execPath },
    addon,
    backends,
    defaultDevice: addon.loaded ? defaultDevice() : { error: "the native addon is not loaded" },
    jupyter: found
      ? { found: true, python: found.python, executable: found.executable, notebook: found.notebookVersion,
          jupyterClient: found.jupyterClientVersion, nbclient: found.nbclientVersion, tried: search.tried }
      : { found: false, tried: search.tried, install: JUPYTER_INSTALL_HINT },
    tslab,
    kernelspecs: [kernelSpecReport("project", projectJupyterDir()), kernelSpecReport("user", userJupyterDir(found))],
  };
}

function printDoctor(r: DoctorReport): void {
  const out: string[] = [];
  const row = (label: string, text: string) => out.push(`${label.padEnd(20)}${text}`);
  const more = (text: string) => out.push(`${"".padEnd(20)}${text}`);
  row("node", `${r.node.version} (${r.node.path})`);
  row("addon", r.addon.loaded ? "loaded" : `not loaded: ${r.addon.error}`);
  for (const b of r.backends) {
    const reason = b.reason ? `: ${b.reason}` : "";
    row(`backend ${b.name}`, !b.built ? b.reason ?? "not built"
      : !b.loaded ? `built, not loaded${reason} (${b.library})`
      : `loaded, ${b.devices.length} device${b.devices.length === 1 ? "" : "s"}${reason} (${b.library})`);
    for (const d of b.devices) more(d.error ? `${b.name}:${d.index} cannot be opened: ${d.error}` : `${b.name}:${d.index} ${d.name} (${d.arch}, warp ${d.warpSize})`);
    for (const note of b.notes) more(note);
  }
  const dd = r.defaultDevice;
  row("default device", "error" in dd ? `none: ${dd.error.split("\n")[0]}` : `${dd.backend}:${dd.index} ${dd.name}` +
    (process.env.FUSELAB_DEVICE ? ` (FUSELAB_DEVICE=${process.env.FUSELAB_DEVICE})` : ""));
  const j = r.jupyter;
  if (j.found) {
    row("jupyter", `${j.python} (${j.executable}): notebook ${j.notebook}, jupyter_client ${j.jupyterClient}, ` +
      (j.nbclient ? `nbclient ${j.nbclient}` : "no nbclient (needed by the notebook tests)"));
  } else {
    row("jupyter", "not found");
    for (const t of j.tried) more(t);
    for (const line of (j.install ?? "").split("\n")) more(line);
  }
  row("tslab", r.tslab.path ?? `not found: ${r.tslab.error}`);
  for (const k of r.kernelspecs) {
    const state = !k.installed ? "not installed" : k.usable ? "installed" : `installed but broken: ${k.problem}`;
    row(`kernelspec ${k.where}`, `${state} (${k.dir})`);
  }
  console.log(out.join("\n"));
}

function jupyterInstall(args: string[]): void {
  let target: string | undefined;
  for (let i = 0; i < args.length; i++) {
    if (args[i] === "--user") target = userJupyterDir(findJupyter().found);
    else if (args[i] === "--dir") {
      if (!args[i + 1]) throw new UsageError("--dir must be followed by a folder");
      target = path.resolve(args[++i]);
    } else throw new UsageError(`jupyter install: unknown option ${JSON.stringify(args[i])}`);
  }
  ensureSelfLink();
  const file = installKernelSpec(target ?? projectJupyterDir());
  console.log(`fuselab: kernelspec "fuselab" written to ${file}`);
  if (!target) console.log(`fuselab: Jupyter finds it with JUPYTER_PATH=${projectJupyterDir()} (as 'fuselab start' sets)`);
}

/** Is there a display a browser could open on? */
function hasDisplay(): boolean {
  return process.platform === "darwin" || process.platform === "win32" || !!(process.env.DISPLAY || process.env.WAYLAND_DISPLAY);
}

function start(args: string[]): Promise<number> {
  const found = findJupyter().found;
  if (!found) {
    console.error(`fuselab: ${JUPYTER_INSTALL_HINT}`);
    return Promise.resolve(1);
  }
  ensureSelfLink();
  installKernelSpec(projectJupyterDir());
  const { copied, moved } = syncWorkspace();
  if (moved.length > 0) console.log(`fuselab: your lessons moved into ${WORKSPACE_NAME}/notebooks/, beside the exercises: ${moved.map((f) => path.basename(f)).join(", ")}`);
  if (copied.length > 0) console.log(`fuselab: copied into ${WORKSPACE_NAME}/: ${copied.join(", ")}`);
  const workspace = workspaceDir();
  // Jupyter's root is the whole workspace, lessons and exercises: a notebook named to
  // open would otherwise make its own folder the root, and the links out of it dead.
  const jupyterArgs = ["-m", "notebook", `--notebook-dir=${workspace}`];
  if (process.getuid?.() === 0) jupyterArgs.push("--allow-root");
  if (!hasDisplay()) jupyterArgs.push("--no-browser");
  jupyterArgs.push(...args);
  // With no arguments of the user's, Jupyter opens on the course's index.
  if (args.length === 0 && fs.existsSync(path.join(workspace, WORKSPACE_INDEX))) jupyterArgs.push(WORKSPACE_INDEX);
  console.log(`fuselab: starting Jupyter (${found.python}) on ${workspace} with the "TypeScript (fuselab)" kernel`);
  const child = spawn(found.python, jupyterArgs, {
    cwd: workspace,
    stdio: "inherit",
    env: { ...process.env, JUPYTER_PATH: jupyterPathWith(projectJupyterDir()) },
  });
  // Ctrl-C reaches Jupyter through the terminal's process group; stay alive until it has shut down.
  process.on("SIGINT", () => undefined);
  process.on("SIGTERM", () => child.kill("SIGTERM"));
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("exit", (code, signal) => resolve(code ?? 128 + (signal ? os.constants.signals[signal] : 0)));
  });
}

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case "doctor": {
      const unknown = rest.filter((a) => a !== "--json");
      if (unknown.length > 0) throw new UsageError(`doctor: unknown option ${JSON.stringify(unknown[0])}`);
      const report = doctorReport();
      if (rest.includes("--json")) console.log(JSON.stringify(report, null, 2));
      else printDoctor(report);
      return 0;
    }
    case "jupyter":
      if (rest[0] !== "install") throw new UsageError(`jupyter: expected "install", got ${JSON.stringify(rest[0] ?? "nothing")}`);
      jupyterInstall(rest.slice(1));
      return 0;
    case "start":
      return start(rest);
    case "reset": {
      if (rest.length !== 1) throw new UsageError(`reset: expected one lesson or exercise name, got ${rest.length === 0 ? "none" : rest.map((a) => JSON.stringify(a)).join(" ")}`);
      const { notebook, kept } = resetNotebook(rest[0]);
      console.log(`fuselab: ${path.relative(process.cwd(), notebook)} is the original again` +
        (kept ? `; your copy is ${path.relative(process.cwd(), kept)}` : ""));
      return 0;
    }
    case "grade":
      return (require("./grading/cli") as typeof import("./grading/cli")).gradeCommand(rest);
    case "help": case "--help": case "-h":
      console.log(USAGE);
      return 0;
    default:
      throw new UsageError(command === undefined ? "a command is needed" : `unknown command ${JSON.stringify(command)}`);
  }
}

main(process.argv.slice(2)).then(
  (status) => { process.exitCode = status; },
  (e) => {
    console.error(`fuselab: ${errorText(e)}`);
    const usage = e instanceof UsageError || e instanceof GradeUsageError;
    if (usage) console.error(USAGE);
    process.exitCode = usage ? 2 : 1;
  },
);
