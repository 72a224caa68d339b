// Compiles in child processes, each with its own cache folder and a $CXX
// wrapper that counts the compiler's runs on C++ source (not the run that assembles
// their output): for the tests of the CPU compile cache and of the compiler's limits.
import { expect } from "chai";
import { spawnSync } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { packageRoot } from "../src/native";

/** What one compile in a child process gave: the kernel's output, or the error's message. */
export interface Outcome { values?: number[]; error?: string }

/** A kernel writing i * factor to out[i]: each factor is a different source. */
export function source(factor: number | string): string {
  return `__global__ void k(int* out) { out[threadIdx.x] = threadIdx.x * ${factor}; }\n`;
}

export const CHILD = `
const fl = require(process.env.FL_TEST_ROOT + "/dist/src");
const results = [];
for (const text of JSON.parse(process.argv[1])) {
  try {
    const dev = fl.device("cpu", { check: process.env.FL_TEST_CHECK === "1" });
    const out = fl.zeros([4], { dtype: "i32", device: dev });
    fl.compile(text, { device: dev }).fn("k").launch({ grid: 1, block: 4 }, out);
    results.push({ values: Array.from(out.toArray()) });
  } catch (e) {
    results.push({ error: e.message });
  }
}
console.log(JSON.stringify(results));
`;

export class Scratch {
  readonly root = fs.mkdtempSync(path.join(os.tmpdir(), "fuselab-cache-test-"));
  readonly cache = path.join(this.root, "cache");
  readonly compilerLog = path.join(this.root, "compiler-runs.log");
  readonly compiler = path.join(this.root, "cxx.sh");

  constructor() {
    // Logs every compile (not the questions of what the compiler is and where
    // its headers are: --version, -v), then runs the real compiler.
    fs.writeFileSync(this.compiler, `#!/bin/sh\ncase " $* " in *" --version "*|*" -v "*|*" -x assembler "*) ;; *) echo run >> '${this.compilerLog}' ;; esac\nexec c++ "$@"\n`, { mode: 0o755 });
  }

  /** Compiles each source in one new process; `env` adds to or overrides the environment. */
  compile(sources: string[], env: Record<string, string> = {}, packageDir = packageRoot()): Outcome[] {
    const run = spawnSync(process.execPath, ["-e", CHILD, JSON.stringify(sources)], {
      env: { ...process.env, FUSELAB_CACHE: this.cache, CXX: this.compiler, FL_TEST_ROOT: packageDir, ...env },
      encoding: "utf8",
    });
    expect(run.status, `the child process failed (signal ${run.signal}): ${run.stderr}`).to.equal(0);
    return JSON.parse(run.stdout.trim().split("\n").pop()!) as Outcome[];
  }

  /** How many times the compiler ran so far. */
  compilerRuns(): number {
    return fs.existsSync(this.compilerLog) ? fs.readFileSync(this.compilerLog, "utf8").split("\n").filter(Boolean).length : 0;
  }

  entries(): string[] {
    return fs.readdirSync(this.cache).filter((name) => name.endsWith(".flmod")).sort();
  }

  entry(name: string): string {
    return path.join(this.cache, name);
  }

  remove(): void {
    fs.rmSync(this.root, { recursive: true, force: true });
  }
}


/** The live processes (zombies aside) whose working folder lies under `folder`: a compiler works in a build folder of its cache. */
export function processesWorkingIn(folder: string): { pid: number; command: string }[] {
  const found: { pid: number; command: string }[] = [];
  for (const name of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (!fs.readlinkSync(`/proc/${name}/cwd`).startsWith(folder)) continue;
      const stat = fs.readFileSync(`/proc/${name}/stat`, "utf8");
      if (stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z")) continue;
      found.push({ pid: Number(name), command: fs.readFileSync(`/proc/${name}/cmdline`, "utf8").replace(/\0/g, " ") });
    } catch {
      // gone meanwhile, a zombie, or another user's
    }
  }
  return found;
}
