// `fuselab grade`: a class folder graded in sandboxes, every report written,
// a crashing or hanging submission leaving the next one unaffected, and an
// interrupted run keeping what it finished.
import { expect } from "chai";
import { execFile, spawn } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { solutionsDir } from "../src/grading/exercise";
import { graderDevice } from "./graders/suite";

const CLI = path.join(__dirname, "..", "src", "cli.js");
const fixture = (name: string) => path.join(solutionsDir(), "01-add-relu", name);

function run(args: string[], node = process.execPath): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(node, [CLI, ...args], { timeout: 600_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === "number" ? error.code : 1) : 0, stdout, stderr });
    });
  });
}

describe("fuselab grade", function () {
  this.timeout(10 * 60 * 1000);
  let out: string;
  beforeEach(() => {
    out = fs.mkdtempSync(path.join(os.tmpdir(), "fuselab-grade-"));
  });
  afterEach(() => fs.rmSync(out, { recursive: true, force: true }));

  it("grades a class folder: a crash and a hang before the solution leave it unaffected", async () => {
    const folder = path.join(out, "class");
    for (const [student, file] of [["a-crash", "fixtures/null-write.hip"], ["b-hang", "fixtures/hangs.hip"], ["c-right", "solution.hip"]]) {
      fs.mkdirSync(path.join(folder, student), { recursive: true });
      fs.copyFileSync(fixture(file), path.join(folder, student, "kernel.hip"));
    }
    const r = await run(["grade", "--exercise", "01", folder, "--device", graderDevice(), "--out", path.join(out, "grades")]);
    expect(r.code, r.stderr).to.equal(0);
    const c = JSON.parse(fs.readFileSync(path.join(out, "grades", "class.json"), "utf8"));
    expect(c.submissions.map((s: { student: string; verdict: string }) => `${s.student} ${s.verdict}`)).to.deep.equal([
      "a-crash/kernel illegal_address", "b-hang/kernel time_limit", "c-right/kernel passed"]);
    for (const f of ["junit.xml", "gradebook.csv", "grade.log", "submissions/c-right_kernel.json", "feedback/c-right_kernel.json", "gradescope/c-right_kernel/results.json"]) {
      expect(fs.existsSync(path.join(out, "grades", f)), f).to.equal(true);
    }
    expect(r.stdout).to.match(/verdicts: .*illegal_address 1/);
  });

  it("runs with a node unpacked under /tmp, which the sandbox's own /tmp hides", async () => {
    const prefix = fs.mkdtempSync(path.join(os.tmpdir(), "fuselab-node-"));
    try {
      fs.mkdirSync(path.join(prefix, "bin"));
      fs.chmodSync(prefix, 0o755);
      const node = path.join(prefix, "bin", "node");
      fs.copyFileSync(fs.realpathSync(process.execPath), node);
      fs.chmodSync(node, 0o755);
      const r = await run(["grade", "--exercise", "01", fixture("solution.hip"), "--device", graderDevice(), "--out", path.join(out, "grades")], node);
      expect(r.code, r.stderr).to.equal(0);
      const c = JSON.parse(fs.readFileSync(path.join(out, "grades", "class.json"), "utf8"));
      expect(c.submissions.map((s: { verdict: string }) => s.verdict)).to.deep.equal(["passed"]);
    } finally {
      fs.rmSync(prefix, { recursive: true, force: true });
    }
  });

  it("writes the class reports of what was finished when interrupted", async () => {
    const files = ["solution.hip", "fixtures/hangs.hip", "fixtures/hangs.hip"].map(fixture);
    const grades = path.join(out, "grades");
    const child = spawn(process.execPath, [CLI, "grade", "--exercise", "01-add-relu", ...files, "--out", grades], { stdio: "ignore" });
    // Stopped once the first result is written.
    const first = path.join(grades, "submissions", "solution.json");
    while (!fs.existsSync(first)) await new Promise((r) => setTimeout(r, 200));
    child.kill("SIGTERM");
    const code = await new Promise((resolve) => child.on("exit", (c) => resolve(c)));
    expect(code).to.equal(130);
    const c = JSON.parse(fs.readFileSync(path.join(grades, "class.json"), "utf8"));
    expect(c.submissions.length).to.be.greaterThan(0);
    expect(c.submissions[0].verdict).to.equal("passed");
  });

  it("says what is wrong with its command line", async () => {
    const r = await run(["grade", "--exercise", "77", fixture("solution.hip")]);
    expect(r.code).to.equal(1);
    expect(r.stderr).to.match(/fuselab grade: exercise must be one of 01-add-relu/);
    const usage = await run(["grade", "--exercise", "01", "--device", "tpu", fixture("solution.hip")]);
    expect(usage.code).to.equal(2);
    expect(usage.stderr).to.contain('--device must be cpu or gpu, got "tpu"');
  });

  it("refuses a GPU it cannot use, by its number, before grading anything", async () => {
    const grades = path.join(out, "grades");
    const r = await run(["grade", "--exercise", "01", fixture("solution.hip"), "--device", "gpu", "--gpus", "0,63", "--out", grades]);
    expect(r.code).to.equal(1);
    // Without a GPU, GPU 0 is refused too; on a GPU machine, GPU 63 is.
    expect(r.stderr).to.match(/--gpus: GPU (0|63) cannot be used: fl\.device: a GPU was asked for/);
    expect(r.stderr).not.to.match(/^\s+at /m);
    expect(fs.existsSync(path.join(grades, "submissions"))).to.equal(false);
  });
});
