// fl.check in the notebook and the grader run the same tests: the visible
// tests' verdicts agree; the stub and the notebooks are what the sources make.
import { expect } from "chai";
import * as fs from "fs";
import * as path from "path";
import * as fl from "../src";
import { renderExercises, stubOf } from "../src/grading/authoring";
import { loadExercise, solutionsDir } from "../src/grading/exercise";
import { measureCeiling } from "../src/grading/ceiling";
import { gradeClass } from "../src/grading/grade";
import { graderDevice } from "./graders/suite";
import { expectRejects } from "./helpers";

const fixture = (name: string) => path.join(solutionsDir(), "01-add-relu", name);
const read = (name: string) => fs.readFileSync(fixture(name), "utf8");

describe("fl.check", function () {
  this.timeout(10 * 60 * 1000);
  let log: typeof console.log;
  beforeEach(() => {
    log = console.log;
    console.log = () => undefined;
  });
  afterEach(() => {
    console.log = log;
  });

  it("passes the solution on every visible test, and runs no hidden one", async () => {
    const ex = loadExercise("01");
    const r = await fl.check("01-add-relu", read("solution.hip"));
    // Bandwidth is scored on a GPU only: there the visible timed tests run too.
    const timed = ex.kind === "kernel" && fl.device().kind === "gpu" ? ex.performance : [];
    const visible = ex.kind === "kernel" ? [...ex.tests, ...timed].filter((t) => t.visibility === "visible").map((t) => t.name) : [];
    expect(r.tests.filter((t) => t.verdict !== "not_run").map((t) => t.name)).to.deep.equal(visible);
    expect(r.tests.every((t) => t.verdict === "passed" || t.verdict === "not_run" || t.verdict === "partial")).to.equal(true);
    expect(r.score).to.be.greaterThan(0);
    expect(r.toString()).to.match(/^01-add-relu on .*: \d+(\.\d+)? of \d+(\.\d+)? points/);  // bandwidth may give part of its points
  });

  it("shows the stub's empty kernels as never written, with a counterexample and a hint", async () => {
    const r = await fl.check("01", fs.readFileSync(path.join(__dirname, "..", "..", "exercises", "01-add-relu", "stub.hip"), "utf8"));
    const first = r.tests[0];
    expect(first.verdict).to.equal("nan");
    expect(first.message).to.match(/NaN canary.s bytes: never written/);
    expect(first.counterexample!.rows.length).to.be.greaterThan(0);
    expect(Number.isNaN(first.counterexample!.rows[0].got)).to.equal(true);
    expect(first.hint).to.match(/blockIdx\.x \* blockDim\.x/);
    expect(r.score).to.equal(0);
  });

  it("gives a wrong kernel a counterexample from a small case, with the inputs at each wrong element", async () => {
    const r = await fl.check("01-add-relu", read("fixtures/relu-of-each-input.hip"));
    const wrong = r.tests.find((t) => t.verdict === "wrong_answer")!;
    const row = wrong.counterexample!.rows[0];
    expect(Math.max(row.inputs.a + row.inputs.b, 0)).to.be.closeTo(row.expected, 1e-6);
    expect(row.got).to.not.equal(row.expected);
    expect(r.toString()).to.match(/for example \(f32, n = 7\)/);
  });

  it("agrees with the sandboxed grader on every visible test", async () => {
    const names = ["solution.hip", "fixtures/relu-of-each-input.hip", "fixtures/f16-no-tail.hip", "fixtures/no-bounds-check.hip"];
    const secret = "same seeds for both";
    // On a GPU the grader times the bandwidth tests too, as fl.check does, against the measured copy ceiling.
    const copyCeilingGBs = graderDevice() === "gpu" ? (await measureCeiling(0)).gbs : undefined;
    const graded = await gradeClass("01-add-relu", names.map(fixture), { device: graderDevice(), jobs: 2, secret, copyCeilingGBs });
    for (let i = 0; i < names.length; i++) {
      const checked = await fl.check("01-add-relu", read(names[i]), { secret });
      for (const t of checked.tests) {
        // Bandwidth is measured twice, so it may differ by noise; correctness may not.
        if (t.verdict === "not_run" || t.bandwidth) continue;
        const g = graded[i].tests.find((x) => x.name === t.name)!;
        expect(`${names[i]}: ${t.name}: ${g.verdict}`).to.equal(`${names[i]}: ${t.name}: ${t.verdict}`);
      }
    }
  });

  it("refuses an unknown exercise and a source that is not a string, naming them", async () => {
    await expectRejects(fl.check("99-nothing", "x"), fl.ArgumentError, /^fl\.check: exercise must be one of 01-add-relu.*, got "99-nothing"$/);
    await expectRejects(fl.check("01", 42 as unknown as string), fl.ArgumentError, "fl.check: source must be a string of HIP source, got 42");
  });
});

describe("exercise sources", () => {
  it("replace each marked region of a solution with a to-do counting its lines", () => {
    const solution = "void f() {\n  // BEGIN SOLUTION\n  int a = 1;\n\n  a++;\n  // END SOLUTION\n}\n";
    expect(stubOf(solution, "x")).to.equal("void f() {\n  // TODO: fill in, about 2 lines\n}\n");
    expect(() => stubOf("// BEGIN SOLUTION\n", "s.hip")).to.throw("s.hip:1: BEGIN SOLUTION is never ended");
    expect(() => stubOf("// END SOLUTION\n", "s.hip")).to.throw("s.hip:1: END SOLUTION without a BEGIN SOLUTION");
  });

  it("have their stubs and notebooks up to date (npm run exercises)", () => {
    for (const { file, text } of renderExercises()) {
      expect(fs.existsSync(file), `${file} is missing: run npm run exercises`).to.equal(true);
      expect(fs.readFileSync(file, "utf8") === text, `${file} is stale: run npm run exercises`).to.equal(true);
    }
  });
});
