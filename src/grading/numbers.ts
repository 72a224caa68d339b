// Grading a numbers exercise: each answer within its relative tolerance, shown
// back with the working. A submission is JSON: { "answers": { key: number },
// "working": { key: "how" } } (working optional), as `fl.check` takes it too.
import { NumbersExercise } from "./exercise";
import { TestResult } from "./results";

export interface NumbersSubmission {
  answers: Record<string, number>;
  working?: Record<string, string>;
}

/** Reads a submission: a JSON text or an object; throws a readable message when it is neither. */
export function parseNumbers(source: string | NumbersSubmission): NumbersSubmission {
  let value: unknown = source;
  if (typeof source === "string") {
    try {
      value = JSON.parse(source);
    } catch (e) {
      throw new Error(`the submission is not JSON: ${(e as Error).message}`);
    }
  }
  const v = value as { answers?: unknown };
  if (typeof v !== "object" || v === null || typeof v.answers !== "object" || v.answers === null || Array.isArray(v.answers)) {
    throw new Error('the submission must be an object { "answers": { name: number, ... }, "working"?: { name: text } }');
  }
  return value as NumbersSubmission;
}

function format(x: number): string {
  return Math.abs(x) >= 1e6 || (Math.abs(x) < 1e-3 && x !== 0) ? x.toExponential(4) : String(Math.round(x * 1e4) / 1e4);
}

export function gradeNumbers(ex: NumbersExercise, source: string | NumbersSubmission, include: (q: { visibility: string }) => boolean): TestResult[] {
  let submission: NumbersSubmission | undefined;
  let problem = "";
  try {
    submission = parseNumbers(source);
  } catch (e) {
    problem = (e as Error).message;
  }
  return ex.questions.filter(include).map((q): TestResult => {
    const base = { name: q.key, description: q.question, visibility: q.visibility, maxPoints: q.points, ms: 0 };
    const given = submission?.answers[q.key];
    const answer = { given: typeof given === "number" ? given : null, expected: q.answer, working: q.working, unit: q.unit };
    const hint = q.hint !== undefined ? ex.hints[q.hint] : undefined;
    if (!submission) return { ...base, points: 0, verdict: "compile_error", message: problem, answer };
    if (typeof given !== "number" || !Number.isFinite(given)) {
      return { ...base, points: 0, verdict: "wrong_answer", message: `no number given for "${q.key}"`, hint, answer };
    }
    const ok = Math.abs(given - q.answer) <= q.rtol * Math.abs(q.answer);
    const shownWorking = submission.working?.[q.key] ? ` (your working: ${submission.working[q.key]})` : "";
    return ok
      ? { ...base, points: q.points, verdict: "passed", message: `${format(given)} ${q.unit}: right${shownWorking}`, answer }
      : { ...base, points: 0, verdict: "wrong_answer", hint, answer,
          message: `${format(given)} ${q.unit} is off by ${format((100 * (given - q.answer)) / q.answer)}% (within ${100 * q.rtol}% expected)${shownWorking}` };
  });
}
