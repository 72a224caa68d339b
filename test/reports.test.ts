// The reports, from one result schema: what each says, what a student may see,
// and that a hostile student name or message cannot break them.
import { expect } from "chai";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { feedback, gradebook, gradescope, junit, safeName, writeClassReports, writeSubmissionReports } from "../src/grading/reports";
import { RESULT_SCHEMA, SubmissionResult, TestResult, classResult } from "../src/grading/results";

function test(name: string, visibility: TestResult["visibility"], verdict: TestResult["verdict"], points: number): TestResult {
  return { name, description: `${name} checks`, visibility, points, maxPoints: 2, verdict, message: `${name}: ${verdict} <&"'>\u0001`, ms: 5,
    ...(verdict === "wrong_answer" ? { hint: "look at the sum", counterexample: { label: "n = 7", output: "out", rows: [{ index: 3, inputs: { a: 1, b: -2 }, expected: 0, got: -1 }] } } : {}) };
}

function submission(student: string, tests: TestResult[]): SubmissionResult {
  return {
    schema: RESULT_SCHEMA, exercise: "01-add-relu", submission: `${student}.hip`, student, device: "cpu", sandbox: "bwrap",
    startedAt: new Date(0).toISOString(), ms: 1500, score: tests.reduce((a, t) => a + t.points, 0), maxScore: 2 * tests.length,
    verdict: tests.find((t) => t.verdict !== "passed")?.verdict ?? "passed", compile: { ok: true, log: "" }, tests, log: "printed",
  };
}

describe("grade reports", () => {
  const alice = submission("alice", [test("small", "visible", "passed", 2), test("large", "hidden", "wrong_answer", 0), test("later", "after_due_date", "wrong_answer", 0)]);
  const bob = submission("=cmd|' /C calc'!A0", [test("small", "visible", "wrong_answer", 0), test("large", "hidden", "passed", 2), test("later", "after_due_date", "passed", 2)]);
  const c = classResult("01-add-relu", "cpu", "bwrap", new Date(), [alice, bob]);

  it("keeps hidden tests out of a student's feedback and withholds the details of unreleased ones", () => {
    const f = feedback(alice);
    expect(f.tests.map((t) => t.name)).to.deep.equal(["small", "later"]);
    const later = f.tests[1];
    expect(later.message).to.equal("details of this test are not shown");
    expect(later.counterexample).to.equal(undefined);
    expect(later.hint).to.equal(undefined);
    expect(f.log).to.equal("");
  });

  it("writes Gradescope's results.json with each test's visibility", () => {
    const g = gradescope(alice) as { score: number; tests: { name: string; visibility: string; status: string; output: string }[] };
    expect(g.score).to.equal(2);
    expect(g.tests.map((t) => [t.name, t.visibility, t.status])).to.deep.equal([
      ["small", "visible", "passed"], ["large", "hidden", "failed"], ["later", "after_due_date", "failed"]]);
    expect(g.tests[1].output).to.contain("for example (n = 7)");
    expect(g.tests[1].output).to.contain("hint: look at the sum");
  });

  it("writes JUnit XML with every character escaped and a failure a lost test", () => {
    const x = junit(c);
    expect(x).to.contain('<testsuite name="01-add-relu" tests="6" failures="3"');
    expect(x).to.contain("&lt;&amp;&quot;&apos;&gt;?");
    expect(x).to.not.match(/[\u0001]/);
    expect((x.match(/<failure /g) ?? []).length).to.equal(3);
  });

  it("writes a CSV gradebook a spreadsheet reads as text, never as a formula", () => {
    const rows = gradebook(c).trim().split("\n");
    expect(rows[0]).to.equal("student,submission,score,max_score,verdict,small,large,later");
    expect(rows[1]).to.equal("alice,alice.hip,2,6,wrong_answer,2,0,0");
    expect(rows[2].startsWith("'=cmd|' /C calc'!A0,")).to.equal(true);
  });

  it("names report files so that no student name leaves the folder", () => {
    expect(safeName("../../etc/passwd")).to.equal("__.._etc_passwd");
    expect(safeName("")).to.equal("_");
    const out = fs.mkdtempSync(path.join(os.tmpdir(), "fuselab-reports-"));
    writeSubmissionReports(out, { ...alice, student: "../escape" });
    writeClassReports(out, c);
    expect(fs.readdirSync(out).sort()).to.deep.equal(["class.json", "feedback", "grade.log", "gradebook.csv", "gradescope", "junit.xml", "submissions"]);
    expect(fs.existsSync(path.join(out, "submissions", "__escape.json"))).to.equal(true);
    expect(JSON.parse(fs.readFileSync(path.join(out, "class.json"), "utf8")).verdicts).to.deep.equal({ wrong_answer: 2 });
    fs.rmSync(out, { recursive: true });
  });
});
