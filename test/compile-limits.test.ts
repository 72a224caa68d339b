// The CPU emulator's compiler under limits: a time limit, interrupts, no
// compiler outliving fuselab, no file outside the toolkit's headers included,
// and settings that kernel code cannot change for later compiles.
import { expect } from "chai";
import { spawn } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import * as fl from "../src";
import { native, nativeCall, packageRoot } from "../src/native";
import { Scratch, processesWorkingIn, source } from "./compile-child";
import { expectRejects, expectThrows } from "./helpers";

// Runs at compile time for far longer than any test waits (gcc allows 2^33 constexpr operations).
const CONSTEXPR_BOMB = `
constexpr unsigned long long spin() {
  unsigned long long x = 0;
  for (unsigned long long i = 0; i < 200000; i++)
    for (unsigned long long j = 0; j < 200000; j++) x += i ^ j;
  return x;
}
constexpr unsigned long long spun = spin();
__global__ void k(int* out) { out[0] = (int)spun; }
`;

// Compiles argv[2] synchronously or not (argv[1]), with FL_TEST_TIMEOUT, and reports.
const COMPILING_CHILD = `
const fl = require(process.env.FL_TEST_ROOT + "/dist/src");
// As a notebook kernel does: an interrupt is for the running cell, not the end of the process.
if (process.env.FL_TEST_LISTEN) process.on("SIGINT", () => {});
const dev = fl.device("cpu");
const started = Date.now();
const report = (r) => console.log(JSON.stringify({ ...r, ms: Date.now() - started }));
const options = { device: dev, timeoutMs: Number(process.env.FL_TEST_TIMEOUT) };
if (process.argv[1] === "sync") {
  try { fl.compile(process.argv[2], options); report({ ok: true }); } catch (e) { report({ error: e.message }); }
} else {
  fl.compileAsync(process.argv[2], options).then(() => report({ ok: true }), (e) => report({ error: e.message }));
}
`;

interface Report { ok?: boolean; error?: string; ms: number }

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

async function waitFor(what: string, condition: () => boolean, seconds: number): Promise<void> {
  const deadline = Date.now() + seconds * 1000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

/** Starts a child compiling the bomb, waits until its compiler runs, then does `act` to the child. */
async function interruptCompile(scratch: Scratch, mode: "sync" | "async", env: Record<string, string>,
                                act: (child: ReturnType<typeof spawn>) => void): Promise<{ code: number | null; signal: string | null; report?: Report }> {
  const child = spawn(process.execPath, ["-e", COMPILING_CHILD, mode, CONSTEXPR_BOMB], {
    env: { ...process.env, FUSELAB_CACHE: scratch.cache, FL_TEST_ROOT: packageRoot(), FL_TEST_TIMEOUT: "600000", ...env },
  });
  let out = "";
  child.stdout!.on("data", (chunk) => (out += chunk));
  const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
    child.on("exit", (code, signal) => resolve({ code, signal })));
  // The compiler works in a build folder inside the cache folder, on cell.cc.
  await waitFor("the compiler to start", () => processesWorkingIn(scratch.cache).some((p) => p.command.includes("cell.cc")), 120);
  await sleep(300);  // well inside the constant's evaluation
  act(child);
  const { code, signal } = await exited;
  const lines = out.trim().split("\n").filter(Boolean);
  return { code, signal, report: lines.length > 0 ? JSON.parse(lines[lines.length - 1]) as Report : undefined };
}

describe("the CPU compiler's limits", function () {
  this.timeout(300000);
  let scratch: Scratch;
  beforeEach(() => {
    scratch = new Scratch();
  });
  afterEach(() => scratch.remove());

  const noCompilerLeft = () => waitFor("every compiler to be gone", () => processesWorkingIn(scratch.cache).length === 0, 10);

  it("stops a compile that runs past timeoutMs, and leaves no compiler running", async () => {
    for (const mode of ["sync", "async"] as const) {
      const child = spawn(process.execPath, ["-e", COMPILING_CHILD, mode, CONSTEXPR_BOMB], {
        env: { ...process.env, FUSELAB_CACHE: scratch.cache, FL_TEST_ROOT: packageRoot(), FL_TEST_TIMEOUT: "2000" },
      });
      let out = "";
      child.stdout.on("data", (chunk) => (out += chunk));
      await new Promise((resolve) => child.on("exit", resolve));
      const report = JSON.parse(out.trim()) as Report;
      expect(report.error).to.equal("cpu compile: run-time compilation: the compiler ran past the time limit of 2000 ms and was stopped (compile's option timeoutMs)");
      expect(report.ms).to.be.within(2000, 30000);
      expect(processesWorkingIn(scratch.cache)).to.deep.equal([]);
    }
  });

  for (const mode of ["sync", "async"] as const) {
    it(`stops a ${mode === "sync" ? "synchronous" : "background"} compile on an interrupt (SIGINT) where a notebook listens for it`, async () => {
      const { code, report } = await interruptCompile(scratch, mode, { FL_TEST_LISTEN: "1" }, (child) => child.kill("SIGINT"));
      expect(code).to.equal(0);
      expect(report?.error).to.equal("cpu compile: run-time compilation: the compile was interrupted, and the compiler stopped");
      expect(processesWorkingIn(scratch.cache)).to.deep.equal([]);
    });
  }

  it("kills the compiler when fuselab's process ends by an interrupt or is killed", async () => {
    const interrupted = await interruptCompile(scratch, "async", {}, (child) => child.kill("SIGINT"));
    expect(interrupted.signal).to.equal("SIGINT");
    await noCompilerLeft();
    const killed = await interruptCompile(scratch, "sync", {}, (child) => child.kill("SIGKILL"));
    expect(killed.signal).to.equal("SIGKILL");
    await noCompilerLeft();
  });

  it("reads $CXX, $FUSELAB_CACHE and the compiler's environment once, before kernel code can change them", () => {
    const marker = path.join(scratch.root, "evil-ran");
    const evil = path.join(scratch.root, "evil.sh");
    fs.writeFileSync(evil, `#!/bin/sh\ntouch '${marker}'\nexec c++ "$@"\n`, { mode: 0o755 });
    const planted = path.join(scratch.root, "planted");
    fs.mkdirSync(planted);
    fs.writeFileSync(path.join(planted, "planted.h"), "#define PLANTED 1\n");
    const elsewhere = path.join(scratch.root, "elsewhere");
    const script = `
const fl = require(process.env.FL_TEST_ROOT + "/dist/src");
const dev = fl.device("cpu");
// What device code in this process could do before the next compile:
Object.assign(process.env, ${JSON.stringify({ CXX: evil, CPATH: planted, CPLUS_INCLUDE_PATH: planted, FUSELAB_CACHE: elsewhere })});
const results = [];
for (const text of JSON.parse(process.argv[1])) {
  try { fl.compile(text, { device: dev }); results.push({ ok: true }); } catch (e) { results.push({ error: e.message, log: e.log }); }
}
console.log(JSON.stringify(results));
`;
    const sources = [source(3), "#include <planted.h>\n__global__ void k(int* out) { out[0] = PLANTED; }\n"];
    const run = spawnSyncJson(script, sources, { FUSELAB_CACHE: scratch.cache, CXX: "c++" });
    expect(run[0]).to.deep.equal({ ok: true });
    // Not found: the compiler never saw $CPATH (found, it would be refused as a file outside the toolkit's headers).
    expect(run[1].error).to.match(/^fl\.compile: compilation failed on cpu:\n/);
    expect(run[1].log).to.match(/planted\.h: No such file or directory/);
    expect(fs.existsSync(marker)).to.equal(false);
    expect(fs.existsSync(elsewhere)).to.equal(false);
    expect(scratch.entries()).to.have.length(1);
  });
});

function spawnSyncJson(script: string, sources: string[], env: Record<string, string>): { ok?: boolean; error?: string; log?: string }[] {
  const { spawnSync } = require("child_process") as typeof import("child_process");
  const run = spawnSync(process.execPath, ["-e", script, JSON.stringify(sources)], {
    env: { ...process.env, FL_TEST_ROOT: packageRoot(), ...env },
    encoding: "utf8",
  });
  expect(run.status, run.stderr).to.equal(0);
  return JSON.parse(run.stdout.trim()) as { ok?: boolean; error?: string; log?: string }[];
}

describe("what a CPU kernel source may include", () => {
  const cpu = () => fl.device("cpu");
  const refused = (what: string) => new RegExp(`^cpu compile: run-time compilation: the source includes ${what}, which is neither one of fuselab's headers nor one of the compiler's: kernels may include only those$`);
  // The backend's own checks, behind fl.compile's (test/file-access.test.ts): the addon's compile, given the source as is.
  const flags = [`-I${path.join(packageRoot(), "kernels")}`, `-I${path.join(packageRoot(), "kernels", "fuselab", "emulator", "include")}`];
  const backendCompile = (text: string) => nativeCall(() => native().compile(cpu().handle, `#include <fuselab/fuselab.h>\n${text}`, ["k"], flags, 60000));

  it("refuses a file outside the toolkit's and the compiler's headers, without showing it, however the source reaches it", async () => {
    const passwd = fs.readFileSync("/etc/passwd", "utf8").split("\n")[0];
    for (const text of [
      "#include </etc/passwd>\n__global__ void k(int* out) {}\n",
      "#include \"/etc/passwd\"\n__global__ void k(int* out) {}\n",
      // spelled through a macro, and through a path that climbs out of an allowed folder
      "#define SECRET </etc/passwd>\n#include SECRET\n__global__ void k(int* out) {}\n",
      "#include <fuselab/../../../../../../../../../../etc/passwd>\n__global__ void k(int* out) {}\n",
    ]) {
      const error = expectThrows(() => backendCompile(text), fl.DeviceError, refused("/etc/passwd"));
      expect(error.log).to.equal(undefined);
      expect(error.message).to.not.contain(passwd);
    }
    // A header that compiles is refused as well: its content could be embedded in the module.
    const outside = fs.mkdtempSync(path.join(os.tmpdir(), "fuselab-outside-"));
    try {
      fs.writeFileSync(path.join(outside, "answer.h"), "#define ANSWER 42\n");
      expectThrows(() => backendCompile(`#include "${outside}/answer.h"\n__global__ void k(int* out) { out[0] = ANSWER; }\n`),
        fl.DeviceError, refused(`${outside}/answer.h`));
    } finally {
      fs.rmSync(outside, { recursive: true, force: true });
    }
    // The build folder's neighbours: the cache's own files.
    expectThrows(() => backendCompile("#include \"../secret\"\n__global__ void k(int* out) {}\n"), fl.DeviceError, refused("/.*/secret"));
    // fl.compile refuses these before the compiler runs, naming the line.
    await expectRejects(fl.compileAsync("#include </etc/passwd>\n__global__ void k(int* out) {}\n", { device: cpu() }), fl.ArgumentError,
      /^fl\.compileAsync: source must be kernel code that includes only the toolkit's and fuselab's headers, by a relative name, got #include of "\/etc\/passwd" \(a full path\) on line 1$/);
  });

  it("assembles nothing that could read a file: the compiler's assembly is read first, whatever built it", () => {
    const refusedDirective = (directive: string) =>
      `cpu compile: run-time compilation: the compiled source holds the assembler directive ${directive}, which could read a file: kernels may not reach files that way`;
    for (const [text, directive] of [
      ["asm(\".incbin \\\"/etc/passwd\\\"\");\n__global__ void k(int* out) {}\n", ".incbin"],
      // An asm label goes into the assembly as written: a newline in it starts a directive.
      ["extern \"C\" int probe asm(\"probe\\n.incbin \\\"/etc/passwd\\\"\\n\");\n__global__ void k(int* out) { out[0] = probe; }\n", ".incbin"],
      ["#define DOT(x) \".\" #x\nasm(DOT(include) \" \\\"/etc/passwd\\\"\");\n__global__ void k(int* out) {}\n", ".include"],
      ["asm(\".MACRO m\\n.endm\");\n__global__ void k(int* out) {}\n", ".macro"],
    ]) {
      const error = expectThrows(() => backendCompile(text), fl.DeviceError, refusedDirective(directive));
      expect(error.log).to.equal(undefined);
    }
  });

  it("shows no line of a file a #line names in the compiler's messages", () => {
    const passwd = fs.readFileSync("/etc/passwd", "utf8").split("\n")[0];
    const error = expectThrows(() => backendCompile("#line 1 \"/etc/passwd\"\nint x = ;\n__global__ void k(int* out) {}\n"),
      fl.DeviceError, `cpu compile: run-time compilation: compilation failed (${(process.env.CXX ?? "").trim().split(/\s+/)[0] || "c++"})`);
    expect(error.log).to.match(/^\/etc\/passwd:1:\d+: error: /m);
    expect(error.log).to.not.contain(passwd);
    expect(error.log).to.not.contain(passwd.slice(0, 8));
  });

  it("compiles a source that includes the compiler's own headers", () => {
    const module = fl.compile("#include <cmath>\n#include <climits>\n__global__ void k(int* out) { out[0] = (int)std::sqrt(49.0) + (INT_MAX > 0); }\n", { device: cpu() });
    const out = fl.zeros([1], { dtype: "i32", device: cpu() });
    module.fn("k").launch({ grid: 1, block: 1 }, out);
    expect(Array.from(out.toArray())).to.deep.equal([8]);
  });

  it("checks timeoutMs", () => {
    for (const bad of [0, -1, 1.5, "60000", 2 ** 31]) {
      expectThrows(() => fl.compile(source(3), { device: cpu(), timeoutMs: bad as number }), fl.ArgumentError,
        `fl.compile: options.timeoutMs must be a whole number of milliseconds from 1 to 2147483647, got ${typeof bad === "string" ? JSON.stringify(bad) : bad}`);
    }
  });
});
