#!/usr/bin/env node
// Builds the native addon and its backend plugins into build/ with cmake-js.
// Runs on `npm install` and `npm run build`. The addon and the CPU backend must
// build; a GPU backend is built when its toolkit is found, and a GPU backend that
// fails to build is dropped (with its log kept) rather than failing the install.
//
// Environment:
//   FUSELAB_CUDA=0|1        force the CUDA backend off, or on (then a failure is fatal)
//   FUSELAB_HIP=0|1         the same for the HIP backend
//   FUSELAB_CUDA_ARCHS=...  CUDA architectures, e.g. "90;100" (SASS for each, PTX for the last)
//   CUDA_HOME, ROCM_PATH    where to look for nvcc, hipcc and libamdhip64
"use strict";

const fs = require("fs");
const path = require("path");
const { spawn, spawnSync } = require("child_process");

const root = path.resolve(__dirname, "..");
const buildDir = path.join(root, "build");
const logDir = path.join(root, ".fuselab");

function say(line) {
  console.log(`fuselab: ${line}`);
}

function isExecutable(file) {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

/** The first executable named `name` in `dirs`, or undefined. */
function findIn(dirs, name) {
  for (const dir of dirs) {
    if (!dir) continue;
    const file = path.join(dir, name);
    if (isExecutable(file)) return file;
  }
  return undefined;
}

function pathDirs() {
  return (process.env.PATH || "").split(path.delimiter).filter(Boolean);
}

function findNvcc() {
  const cudaHome = process.env.CUDA_HOME || process.env.CUDA_PATH;
  return findIn([...pathDirs(), cudaHome && path.join(cudaHome, "bin"), "/usr/local/cuda/bin"], "nvcc");
}

function rocmRoots() {
  return [process.env.ROCM_PATH, process.env.HIP_PATH, "/opt/rocm"].filter(Boolean);
}

function findHipcc() {
  return findIn([...pathDirs(), ...rocmRoots().map((r) => path.join(r, "bin"))], "hipcc");
}

/** ROCm's HIP runtime library: in a ROCm tree, or known to the dynamic linker (Debian's packages). */
function findAmdHipRuntime() {
  for (const r of rocmRoots()) {
    for (const lib of ["lib", "lib64"]) {
      const file = path.join(r, lib, "libamdhip64.so");
      if (fs.existsSync(file)) return file;
    }
  }
  const ldconfig = spawnSync("ldconfig", ["-p"], { encoding: "utf8" });
  const cache = ldconfig.status === 0 ? ldconfig.stdout : "";
  const match = /libamdhip64\.so[^\n]*=>\s*(\S+)/.exec(cache);
  return match ? match[1] : undefined;
}

/** "0" -> false, "1" -> true, unset -> undefined; anything else is a mistake worth stopping for. */
function forcedByEnv(name) {
  const value = process.env[name];
  if (value === undefined || value === "") return undefined;
  if (value === "0" || value === "1") return value === "1";
  throw new Error(`${name} must be 0 or 1, got ${JSON.stringify(value)}`);
}

/** Which GPU backends to attempt: { name, forced, defines }. Prints one line for each one left out. */
function gpuBackends() {
  const wanted = [];

  const cuda = forcedByEnv("FUSELAB_CUDA");
  if (cuda === false) {
    say("FUSELAB_CUDA=0: building without the CUDA backend");
  } else {
    const nvcc = findNvcc();
    if (nvcc) {
      const defines = { FUSELAB_CUDA: "ON", CMAKE_CUDA_COMPILER: nvcc };
      if (process.env.FUSELAB_CUDA_ARCHS) defines.FUSELAB_CUDA_ARCHS = process.env.FUSELAB_CUDA_ARCHS;
      wanted.push({ name: "CUDA", forced: cuda === true, defines });
    } else if (cuda === true) {
      throw new Error("FUSELAB_CUDA=1 but nvcc was not found on PATH, in $CUDA_HOME/bin or in /usr/local/cuda/bin");
    } else {
      say("nvcc not found: building without the CUDA backend (set CUDA_HOME to enable)");
    }
  }

  const hip = forcedByEnv("FUSELAB_HIP");
  if (hip === false) {
    say("FUSELAB_HIP=0: building without the HIP backend");
  } else {
    const hipcc = findHipcc();
    const runtime = findAmdHipRuntime();
    if (hipcc && runtime) {
      wanted.push({ name: "HIP", forced: hip === true, defines: { FUSELAB_HIP: "ON" } });
    } else {
      const missing = !hipcc ? "hipcc not found" : "ROCm's runtime (libamdhip64) not found";
      if (hip === true) throw new Error(`FUSELAB_HIP=1 but ${missing} (set ROCM_PATH)`);
      say(`${missing}: building without the HIP backend (set ROCM_PATH to enable)`);
    }
  }
  return wanted;
}

function cmakeJs() {
  const pkg = require.resolve("cmake-js/package.json", { paths: [root] });
  const bin = require(pkg).bin;
  return path.join(path.dirname(pkg), typeof bin === "string" ? bin : bin["cmake-js"]);
}

/** Runs cmake-js with `args`, its output shown and, with `log`, also collected there. Resolves to success. */
function cmakeJsStep(args, log) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cmakeJs(), ...args], { cwd: root, stdio: ["ignore", "pipe", "pipe"] });
    child.stdout.on("data", (chunk) => { process.stdout.write(chunk); log?.push(chunk); });
    child.stderr.on("data", (chunk) => { process.stderr.write(chunk); log?.push(chunk); });
    child.on("error", reject);
    child.on("close", (code) => resolve(code === 0));
  });
}

/**
 * Configures (always, so that changed options take effect on an existing build
 * folder) and builds. With `logFile`, a failure's output is kept there.
 */
async function build(backends, logFile) {
  removeStalePlugins(backends);
  const defines = { FUSELAB_CUDA: "OFF", FUSELAB_HIP: "OFF" };
  for (const b of backends) Object.assign(defines, b.defines);
  const flags = Object.entries(defines).map(([k, v]) => `--CD${k}=${v}`);
  const common = ["--directory", root, "--out", buildDir];
  const log = logFile ? [] : undefined;
  const ok = (await cmakeJsStep(["configure", ...common, ...flags], log)) && (await cmakeJsStep(["build", ...common], log));
  if (!ok && logFile) {
    fs.mkdirSync(path.dirname(logFile), { recursive: true });
    fs.writeFileSync(logFile, Buffer.concat(log));
  }
  return ok;
}

/**
 * A GPU plugin left by an earlier build would still be loaded by the addon; one
 * this build leaves out must go, so the addon loads only what was just built.
 */
function removeStalePlugins(backends) {
  const building = new Set(backends.map((b) => b.name.toLowerCase()));
  for (const name of ["cuda", "hip"]) {
    if (building.has(name)) continue;
    for (const ext of [".so", ".dylib"]) fs.rmSync(path.join(buildDir, "Release", `libfuselab_${name}${ext}`), { force: true });
  }
}

/** node_modules/fuselab -> .. so that notebooks in this repository can `import "fuselab"`. */
function linkSelf() {
  const link = path.join(root, "node_modules", "fuselab");
  if (path.basename(path.dirname(root)) === "node_modules") return; // installed as a dependency
  try {
    fs.lstatSync(link);
    return;
  } catch {
    // absent: create it below
  }
  fs.mkdirSync(path.dirname(link), { recursive: true });
  fs.symlinkSync("..", link, "dir");
}

/** "the CUDA backend", "the CUDA and HIP backends" */
function theBackends(backends) {
  return `the ${backends.map((b) => b.name).join(" and ")} backend${backends.length > 1 ? "s" : ""}`;
}

async function main() {
  const wanted = gpuBackends();
  // All GPU backends together; when that fails and there are several, each alone; then none.
  const attempts = [wanted, ...(wanted.length > 1 ? wanted.map((b) => [b]) : [])].filter((a) => a.length > 0);
  let built = false;
  for (const backends of attempts) {
    const logFile = path.join(logDir, `build-${backends.map((b) => b.name.toLowerCase()).join("-")}.log`);
    say(`building with ${theBackends(backends)}`);
    built = await build(backends, logFile);
    if (built) break;
    if (backends.length === 1 && backends[0].forced) {
      throw new Error(`the ${backends[0].name} backend failed to build and FUSELAB_${backends[0].name}=1 requires it (log: ${logFile})`);
    }
    say(`the build with ${theBackends(backends)} failed: leaving ${backends.length > 1 ? "them" : "it"} out (log: ${logFile})`);
  }
  if (!built) {
    if (wanted.length > 0) say("building with the CPU backend only");
    if (!(await build([], undefined))) {
      throw new Error("the native addon or the CPU backend failed to build (output above); " +
        "it needs cmake (>= 3.18), a C++17 compiler and make or ninja");
    }
  }
  linkSelf();
}

main().catch((e) => {
  console.error(`fuselab: build failed: ${e.message}`);
  process.exit(1);
});
