// Every grader against every fixture: the solution must pass, and each
// known-wrong solution or cheat must get its verdict. Runs in the sandbox, on
// the CPU emulator (CI) or the GPU (FUSELAB_DEVICE=gpu).
import { expect } from "chai";
import * as os from "os";
import { describeExpected, fixtures, meetsExpected } from "../../src/grading/fixtures";
import { gradeClass } from "../../src/grading/grade";
import { SubmissionResult } from "../../src/grading/results";

export function graderDevice(): "cpu" | "gpu" {
  return process.env.FUSELAB_DEVICE === "gpu" ? "gpu" : "cpu";
}

export function graderSuite(id: string): void {
  describe(`grader ${id}`, function () {
    this.timeout(20 * 60 * 1000);
    const device = graderDevice();
    const list = fixtures(id);
    let results: SubmissionResult[] = [];
    let copyCeilingGBs: number | undefined;

    before(async function () {
      if (device === "gpu") {
        const { measureCeiling } = await import("../../src/grading/ceiling");
        copyCeilingGBs = (await measureCeiling(0)).gbs;
      }
      results = await gradeClass(id, list.map((f) => f.file), {
        device, jobs: device === "cpu" ? Math.min(2, os.cpus().length) : 1, copyCeilingGBs,
        limits: { compileMs: 120_000, testMs: 20_000 },
      });
    });

    list.forEach((fixture, i) => {
      const name = fixture.file.replace(/^.*solutions\//, "");
      it(`${name} gets ${describeExpected(fixture.expect[device])}`, function () {
        const expected = fixture.expect[device];
        if (expected === "skip") this.skip();
        const r = results[i];
        const detail = r.tests.filter((t) => t.verdict !== "passed" && t.verdict !== "not_run").map((t) => `${t.name}: ${t.verdict}: ${t.message}`).join("\n");
        expect(meetsExpected(expected, r.verdict), `${name} got ${r.verdict}\n${detail}\n${r.compile.log}\n${r.log}`).to.equal(true);
        if (expected.includes("passed")) expect(r.score).to.be.greaterThan(0);
        else expect(r.score).to.be.lessThan(r.maxScore);
      });
    });
  });
}
