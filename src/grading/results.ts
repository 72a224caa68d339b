// The one result schema every report is written from (reports.ts), and the
// verdicts a test can get.
import { Visibility } from "./exercise";

export const RESULT_SCHEMA = "fuselab-grade/1";

/** Every way a test ends. */
export const VERDICTS = [
  "passed",
  "partial",          // performance: points scaled by bandwidth
  "wrong_answer",
  "nan",              // NaN where a number belongs (also an output never written: it keeps the NaN canary)
  "out_of_bounds",    // a write outside a buffer (guard bands, canary regions)
  "race",             // a data race on shared memory (check mode's race check)
  "illegal_address",
  "time_limit",
  "crash",
  "resource_limit",
  "compile_error",
  "runtime_error",    // any other launch failure
  "impossible",       // faster than the copy ceiling allows: not rewarded
  "not_run",          // skipped: e.g. performance on the CPU emulator, or after the process could not be restarted
  "grader_error",     // the grader itself failed: not the submission's fault, said so
] as const;
export type Verdict = (typeof VERDICTS)[number];

export interface Counterexample {
  /** What the small case was: "n = 7". */
  label: string;
  /** The first elements that were wrong: where, the inputs there, what was expected and what came. */
  rows: { index: number; inputs: Record<string, number>; expected: number; got: number }[];
  output: string;
}

export interface TestResult {
  name: string;
  description: string;
  visibility: Visibility;
  points: number;
  maxPoints: number;
  verdict: Verdict;
  message: string;
  hint?: string;
  counterexample?: Counterexample;
  /** Performance: the measured bandwidth and the ceiling it was scored against. */
  bandwidth?: { gbs: number; ceilingGBs: number; fraction: number; medianMs: number; bytes: number };
  /** Numbers exercises: the answer given and the working. */
  answer?: { given: number | null; expected: number; working: string; unit: string };
  ms: number;
}

export interface SubmissionResult {
  schema: typeof RESULT_SCHEMA;
  exercise: string;
  /** The submission's file name, as given. */
  submission: string;
  /** Who it is from: the file name without its extension. */
  student: string;
  device: string;
  sandbox: string;
  startedAt: string;
  ms: number;
  score: number;
  maxScore: number;
  /** "passed", or the verdict of the first test that failed. */
  verdict: Verdict;
  compile: { ok: boolean; log: string };
  tests: TestResult[];
  /** What the submission's process printed (trimmed), for the instructor. */
  log: string;
}

export interface ClassResult {
  schema: typeof RESULT_SCHEMA;
  exercise: string;
  device: string;
  sandbox: string;
  copyCeilingGBs?: number;
  startedAt: string;
  ms: number;
  submissions: SubmissionResult[];
  verdicts: Partial<Record<Verdict, number>>;
}

/** The overall verdict: passed, or the first failing test's. */
export function overallVerdict(tests: readonly TestResult[]): Verdict {
  const failed = tests.find((t) => t.verdict !== "passed" && t.verdict !== "partial" && t.verdict !== "not_run");
  return failed ? failed.verdict : "passed";
}

export function classResult(exercise: string, device: string, sandbox: string, startedAt: Date, submissions: SubmissionResult[], copyCeilingGBs?: number): ClassResult {
  const verdicts: Partial<Record<Verdict, number>> = {};
  for (const s of submissions) verdicts[s.verdict] = (verdicts[s.verdict] ?? 0) + 1;
  return {
    schema: RESULT_SCHEMA, exercise, device, sandbox, copyCeilingGBs, startedAt: startedAt.toISOString(),
    ms: Date.now() - startedAt.getTime(), submissions, verdicts,
  };
}
