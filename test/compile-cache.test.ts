// The CPU backend's compile cache, tried as a careless or hostile user would:
// each case runs compiles in fresh processes sharing (or not) a cache folder,
// and counts the compiler's runs through a $CXX wrapper that logs them.
import { expect } from "chai";
import { spawn, spawnSync } from "child_process";
import * as fs from "fs";
import * as path from "path";
import { packageRoot } from "../src/native";
import { CHILD, Outcome, Scratch, source } from "./compile-child";

const expected = (factor: number) => [0, factor, 2 * factor, 3 * factor];

describe("the CPU compile cache", function () {
  this.timeout(300000);
  let scratch: Scratch;
  beforeEach(() => {
    scratch = new Scratch();
  });
  afterEach(() => scratch.remove());

  it("keeps modules in a private folder and loads them in a later process without compiling", () => {
    expect(scratch.compile([source(3)])).to.deep.equal([{ values: expected(3) }]);
    expect(scratch.compilerRuns()).to.equal(1);
    expect(fs.statSync(scratch.cache).mode & 0o777).to.equal(0o700);
    const [entry] = scratch.entries();
    expect(fs.statSync(scratch.entry(entry)).mode & 0o777).to.equal(0o600);
    expect(scratch.compile([source(3)])).to.deep.equal([{ values: expected(3) }]);
    expect(scratch.compilerRuns()).to.equal(1);
    // Nothing of the build is left behind.
    expect(fs.readdirSync(scratch.cache).filter((name) => name.startsWith("."))).to.deep.equal([]);
  });

  it("keys a module by the compiler too: another $CXX builds its own", () => {
    scratch.compile([source(3)]);
    const other = path.join(scratch.root, "other-cxx.sh");
    fs.copyFileSync(scratch.compiler, other);
    fs.chmodSync(other, 0o755);
    expect(scratch.compile([source(3)], { CXX: other })).to.deep.equal([{ values: expected(3) }]);
    expect(scratch.compilerRuns()).to.equal(2);
    expect(scratch.entries()).to.have.length(2);
  });

  it("compiles with clang as $CXX: every flag it is given is one clang takes", function () {
    const clang = [process.env.PATH ?? "", "/usr/lib/llvm-15/bin", "/usr/lib/llvm-16/bin", "/usr/lib/llvm-17/bin"]
      .flatMap((dirs) => dirs.split(":")).map((dir) => path.join(dir, "clang++")).find((file) => fs.existsSync(file));
    if (!clang) this.skip();
    expect(scratch.compile([source(5)], { CXX: clang! })).to.deep.equal([{ values: expected(5) }]);
    expect(scratch.compile([source(5)], { CXX: clang!, FL_TEST_CHECK: "1" })).to.deep.equal([{ values: expected(5) }]);
    // Shared memory: two builds, plain and in lock step, linked into one module (native/backends/cpu/twin.cc).
    const shared = `__global__ void k(int* out) {
  __shared__ int tile[4];
  tile[threadIdx.x] = threadIdx.x * 6;
  __syncthreads();
  out[threadIdx.x] = tile[threadIdx.x];
}`;
    expect(scratch.compile([shared], { CXX: clang! })).to.deep.equal([{ values: expected(6) }]);
  });

  it("rebuilds a module whose entry was changed on disk, and never runs the changed code", () => {
    scratch.compile([source(3)]);
    const [entry] = scratch.entries();
    const bytes = fs.readFileSync(scratch.entry(entry));
    // Change one byte of the shared object, near the end of the file.
    bytes[bytes.length - 100] ^= 0xff;
    fs.writeFileSync(scratch.entry(entry), bytes);
    expect(scratch.compile([source(3)])).to.deep.equal([{ values: expected(3) }]);
    expect(scratch.compilerRuns()).to.equal(2);
    expect(fs.readFileSync(scratch.entry(entry)).equals(bytes)).to.equal(false);
  });

  it("never loads a whole, self-consistent entry planted under another source's name", () => {
    scratch.compile([source(3), source(5)]);
    const [a, b] = scratch.entries();
    // Swap the two entries: each is intact, but stored under the other's key.
    const first = fs.readFileSync(scratch.entry(a));
    fs.copyFileSync(scratch.entry(b), scratch.entry(a));
    fs.writeFileSync(scratch.entry(b), first);
    expect(scratch.compile([source(3), source(5)])).to.deep.equal([{ values: expected(3) }, { values: expected(5) }]);
    expect(scratch.compilerRuns()).to.equal(4);
  });

  it("never loads an entry written by another cache (one without this folder's secret)", () => {
    scratch.compile([source(3)]);
    const [entry] = scratch.entries();
    // The same source, built into a second cache: a valid entry, signed with that cache's secret.
    const elsewhere = new Scratch();
    try {
      elsewhere.compile([source(3)], { CXX: scratch.compiler });
      expect(elsewhere.entries()).to.deep.equal([entry]);
      fs.copyFileSync(elsewhere.entry(entry), scratch.entry(entry));
    } finally {
      elsewhere.remove();
    }
    expect(scratch.compile([source(3)])).to.deep.equal([{ values: expected(3) }]);
    expect(scratch.compilerRuns()).to.equal(3);
  });

  it("rebuilds a truncated entry (no SIGBUS) and a garbage one, and goes on using the cache afterwards", () => {
    scratch.compile([source(3), source(5)]);
    const [a, b] = scratch.entries();
    const whole = fs.statSync(scratch.entry(a)).size;
    fs.truncateSync(scratch.entry(a), Math.floor(whole / 2));
    fs.writeFileSync(scratch.entry(b), "not a module at all\n".repeat(50));
    expect(scratch.compile([source(3), source(5)])).to.deep.equal([{ values: expected(3) }, { values: expected(5) }]);
    expect(scratch.compilerRuns()).to.equal(4);
    expect(scratch.compile([source(3), source(5)])).to.deep.equal([{ values: expected(3) }, { values: expected(5) }]);
    expect(scratch.compilerRuns()).to.equal(4);
  });

  it("sees a change to a file the source includes", () => {
    // A copy of the package, so that one of fuselab's headers can change.
    const copy = path.join(scratch.root, "package");
    fs.mkdirSync(copy);
    fs.cpSync(path.join(packageRoot(), "kernels"), path.join(copy, "kernels"), { recursive: true });
    fs.cpSync(path.join(packageRoot(), "dist"), path.join(copy, "dist"), { recursive: true });
    fs.symlinkSync(path.join(packageRoot(), "node_modules"), path.join(copy, "node_modules"));
    const env = { FUSELAB_ADDON: path.join(packageRoot(), "build", "Release", "fuselab.node") };
    const header = path.join(copy, "kernels", "fuselab", "fuselab.h");
    const original = fs.readFileSync(header, "utf8");
    fs.writeFileSync(header, `${original}\n#define FL_TEST_FACTOR 7\n`);
    expect(scratch.compile([source("FL_TEST_FACTOR")], env, copy)).to.deep.equal([{ values: expected(7) }]);
    fs.writeFileSync(header, `${original}\n#define FL_TEST_FACTOR 9\n`);
    expect(scratch.compile([source("FL_TEST_FACTOR")], env, copy)).to.deep.equal([{ values: expected(9) }]);
    expect(scratch.compilerRuns()).to.equal(2);
    // Touched but unchanged: still found.
    fs.utimesSync(header, new Date(), new Date(Date.now() + 5000));
    expect(scratch.compile([source("FL_TEST_FACTOR")], env, copy)).to.deep.equal([{ values: expected(9) }]);
    expect(scratch.compilerRuns()).to.equal(2);
  });

  it("makes a folder open to others private, and refuses a symbolic link", () => {
    fs.mkdirSync(scratch.cache, { mode: 0o777 });
    fs.chmodSync(scratch.cache, 0o777);
    expect(scratch.compile([source(3)])).to.deep.equal([{ values: expected(3) }]);
    expect(fs.statSync(scratch.cache).mode & 0o777).to.equal(0o700);
    const link = path.join(scratch.root, "link");
    fs.symlinkSync(scratch.cache, link);
    const [outcome] = scratch.compile([source(3)], { FUSELAB_CACHE: link });
    expect(outcome.error).to.equal(`cpu compile: run-time compilation: the cache folder ${link} is a symbolic link or not a folder: set FUSELAB_CACHE to a folder`);
  });

  it("refuses a folder that belongs to another user", function () {
    if (process.getuid?.() !== 0) this.skip();  // only root can give a folder away
    fs.mkdirSync(scratch.cache, { mode: 0o700 });
    fs.chownSync(scratch.cache, 65534, 65534);
    const [outcome] = scratch.compile([source(3)]);
    expect(outcome.error).to.match(new RegExp(`^cpu compile: run-time compilation: the cache folder ${scratch.cache} belongs to (\\w+ \\()?uid 65534\\)?, not to you: modules are only loaded from a folder of your own \\(set FUSELAB_CACHE\\)$`));
    expect(scratch.compilerRuns()).to.equal(0);
  });

  it("evicts the least recently used modules to stay under FUSELAB_CACHE_MAX_MB", () => {
    scratch.compile([source(3), source(5)]);
    const sizes = scratch.entries().map((name) => fs.statSync(scratch.entry(name)).size);
    // Room for two entries and a half.
    const bound = { FUSELAB_CACHE_MAX_MB: String((Math.max(...sizes) * 2.5) / 1048576) };
    const before = new Map(scratch.entries().map((name) => [name, fs.readFileSync(scratch.entry(name))]));
    // Using 3 makes 5 the least recently used; adding 7 evicts 5.
    expect(scratch.compile([source(3)], bound)).to.deep.equal([{ values: expected(3) }]);
    expect(scratch.compile([source(7)], bound)).to.deep.equal([{ values: expected(7) }]);
    expect(scratch.compilerRuns()).to.equal(3);
    const kept = scratch.entries();
    expect(kept).to.have.length(2);
    const evicted = [...before.keys()].filter((name) => !kept.includes(name));
    expect(evicted).to.have.length(1);
    expect(scratch.compile([source(3)], bound)).to.deep.equal([{ values: expected(3) }]);
    expect(scratch.compilerRuns()).to.equal(3);
    expect(scratch.compile([source(5)], bound)).to.deep.equal([{ values: expected(5) }]);
    expect(scratch.compilerRuns()).to.equal(4);
    // A bound of 0 keeps nothing, and the module is still loaded.
    expect(scratch.compile([source(11)], { FUSELAB_CACHE_MAX_MB: "0" })).to.deep.equal([{ values: expected(11) }]);
    expect(scratch.entries()).to.deep.equal([]);
    const [outcome] = scratch.compile([source(3)], { FUSELAB_CACHE_MAX_MB: "lots" });
    expect(outcome.error).to.equal("cpu compile: run-time compilation: FUSELAB_CACHE_MAX_MB must be a size in megabytes (a number from 0 to 1e9, such as 512 or 0.5), got 'lots'");
  });

  it("lets processes compile the same source at once", async () => {
    const runs = [0, 1, 2].map(() => new Promise<Outcome[]>((resolve, reject) => {
      const child = spawn(process.execPath, ["-e", CHILD, JSON.stringify([source(13)])], {
        env: { ...process.env, FUSELAB_CACHE: scratch.cache, CXX: scratch.compiler, FL_TEST_ROOT: packageRoot() },
      });
      let out = "";
      child.stdout.on("data", (chunk) => (out += chunk));
      child.on("error", reject);
      child.on("exit", (code) => (code === 0 ? resolve(JSON.parse(out.trim()) as Outcome[]) : reject(new Error(`child exited with ${code}`))));
    }));
    for (const outcome of await Promise.all(runs)) expect(outcome).to.deep.equal([{ values: expected(13) }]);
    expect(scratch.entries()).to.have.length(1);
    expect(fs.readdirSync(scratch.cache).filter((name) => name.startsWith("."))).to.deep.equal([]);
    expect(scratch.compile([source(13)])).to.deep.equal([{ values: expected(13) }]);
    expect(scratch.compilerRuns()).to.equal(3);
  });

  it("says 'no space left on device' when the disk is full", function () {
    // A 64 KiB file system, mounted in a user namespace of its own.
    const probe = spawnSync("unshare", ["-rm", "sh", "-c", `mount -t tmpfs -o size=64k tmpfs '${scratch.root}' && echo mounted`], { encoding: "utf8" });
    if (!probe.stdout?.includes("mounted")) this.skip();  // no user namespaces here
    const small = path.join(scratch.root, "small");
    fs.mkdirSync(small);
    const script = `mount -t tmpfs -o size=64k tmpfs '${small}' && exec '${process.execPath}' -e "$FL_CHILD" '${JSON.stringify([source(3)])}'`;
    const run = spawnSync("unshare", ["-rm", "sh", "-c", script], {
      env: { ...process.env, FL_CHILD: CHILD, FUSELAB_CACHE: path.join(small, "cache"), FL_TEST_ROOT: packageRoot(), CXX: "c++" },
      encoding: "utf8",
    });
    expect(run.status, run.stderr).to.equal(0);
    const [outcome] = JSON.parse(run.stdout.trim()) as Outcome[];
    expect(outcome.error).to.match(/^cpu compile: run-time compilation: no space left on device.* in .*small\/cache.*: free some space there, or set FUSELAB_CACHE to a folder on another disk/);
  });
});
