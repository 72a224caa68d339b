// fl.check: a notebook's own grading. It runs the grader's visible tests (the
// same test definitions, inputs, references and comparisons as the grader;
// the hidden ones aside) on the notebook's device and shows each test's result
// with its points, and for a failure a hint and a small counterexample.
import { copyCeiling } from "../bench";
import { Device, checkDevice } from "../device";
import { ArgumentError, checkOptionsObject, describe } from "../errors";
import { freshSecret, gradeKernel } from "./engine";
import { loadExercise } from "./exercise";
import { InProcessExecutor } from "./executor";
import { NumbersSubmission, gradeNumbers } from "./numbers";
import { TestResult, Verdict, overallVerdict } from "./results";

export interface CheckOptions {
  /** Where the kernels run; the default device when left out. */
  device?: Device;
  /** What the tests' seeds are combined with: the same text reproduces a run; fresh when left out. */
  secret?: string;
}

/** What `fl.check` found: per test, and in all. */
export class CheckResult {
  constructor(readonly exercise: string, readonly device: string, readonly tests: readonly TestResult[], readonly compileLog: string) {}

  get score(): number {
    return Math.round(this.tests.reduce((a, t) => a + t.points, 0) * 100) / 100;
  }

  get maxScore(): number {
    return this.tests.reduce((a, t) => a + t.maxPoints, 0);
  }

  get verdict(): Verdict {
    return overallVerdict(this.tests);
  }

  /** The report as text: a line a test, then what failed. */
  toString(): string {
    const lines = [`${this.exercise} on ${this.device}: ${this.score} of ${this.maxScore} points (visible tests; the grader adds hidden ones)`];
    if (this.compileLog) lines.push("", this.compileLog);
    for (const t of this.tests) {
      const mark = t.verdict === "passed" ? "ok  " : t.verdict === "not_run" ? "--  " : "FAIL";
      lines.push(`${mark} ${t.name.padEnd(28)} ${`${t.points}/${t.maxPoints}`.padStart(7)}  ${t.verdict === "passed" ? "" : t.verdict + ": "}${t.message}`);
      if (t.counterexample) {
        lines.push(`       for example (${t.counterexample.label}):`);
        for (const row of t.counterexample.rows) {
          const inputs = Object.entries(row.inputs).map(([k, v]) => `${k}=${v}`).join(" ");
          lines.push(`         ${t.counterexample.output}[${row.index}]: expected ${row.expected}, got ${row.got}${inputs ? `   (${inputs})` : ""}`);
        }
      }
      if (t.answer && t.verdict !== "passed") lines.push(`       working: ${t.answer.working}`);
      if (t.hint) lines.push(`       hint: ${t.hint}`);
    }
    return lines.join("\n");
  }
}

const ceilings = new Map<Device, number>();

/**
 * Runs exercise `id`'s visible tests on `source` (a kernel exercise's HIP
 * source, or a numbers exercise's answers), prints the report and returns it.
 */
export async function check(id: string, source: string | NumbersSubmission, options?: CheckOptions): Promise<CheckResult> {
  const where = "fl.check";
  const ex = loadExercise(id, where);
  const o = checkOptionsObject(where, options, ["device", "secret"]);
  if (o.secret !== undefined && typeof o.secret !== "string") throw new ArgumentError(where, "options.secret", "a string", describe(o.secret));
  const visible = (t: { visibility: string }) => t.visibility === "visible";
  let result: CheckResult;
  if (ex.kind === "numbers") {
    if (typeof source !== "string" && (typeof source !== "object" || source === null)) {
      throw new ArgumentError(where, "submission", "an object { answers: { name: number }, working?: { name: text } }", describe(source));
    }
    result = new CheckResult(ex.id, "the host", gradeNumbers(ex, source, visible), "");
  } else {
    if (typeof source !== "string") throw new ArgumentError(where, "source", "a string of HIP source", describe(source));
    const dev = checkDevice(where, o.device);
    let ceiling = ceilings.get(dev);
    if (dev.kind === "gpu" && ceiling === undefined) {
      ceiling = (await copyCeiling({ device: dev })).gbs;
      ceilings.set(dev, ceiling);
    }
    const graded = await gradeKernel(ex, source, {
      secret: (o.secret as string | undefined) ?? freshSecret(), deviceKind: dev.kind, copyCeilingGBs: ceiling, include: visible, executor: () => new InProcessExecutor(dev),
    });
    result = new CheckResult(ex.id, dev.describe(), graded.tests, graded.compile.ok ? "" : graded.compile.log);
  }
  console.log(result.toString());
  return result;
}
