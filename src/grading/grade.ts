// Grading submissions: one at a time (gradeSubmission) or a class of them with
// several running at once (gradeClass), each in its own sandboxed process.
// Every submission ends with a result, whatever it did; a result is written as
// soon as it is known, so an interrupted run keeps what it finished.
import * as fs from "fs";
import * as path from "path";
import { EngineOptions, SubmissionFailure, freshSecret, gradeKernel, makeCases } from "./engine";
import { Exercise, loadExercise } from "./exercise";
import { ChildExecutor, DEFAULT_LIMITS, TimeLimits } from "./executor";
import { gradeNumbers } from "./numbers";
import { RESULT_SCHEMA, SubmissionResult, TestResult, overallVerdict } from "./results";
import { describeSandbox } from "./sandbox";

/** The largest submission file the grader reads. */
export const MAX_SUBMISSION_BYTES = 1 << 20;

export interface GradeOptions {
  device: "cpu" | "gpu";
  /** GPU indices, one worker each (GPU only); the default: GPU 0. */
  gpus?: number[];
  /** Submissions graded at once: on the CPU in all, on GPUs a GPU (their timed tests take turns). */
  jobs?: number;
  /** The secret the tests' seeds are combined with; fresh for each run when left out. */
  secret?: string;
  copyCeilingGBs?: number;
  limits?: TimeLimits;
  /** Timed iterations of a performance test. */
  timedSets?: number;
  /** The students the files are from, in the files' order (default: each file's name). */
  students?: string[];
  /** Called with each submission's result as it is finished. */
  onResult?(result: SubmissionResult, index: number): void;
}

/** The student a file is from: its name without folders and extension. */
export function studentOf(file: string): string {
  return path.basename(file).replace(/\.[^.]*$/, "");
}

function readSubmission(file: string): string {
  const stat = fs.statSync(file);
  if (!stat.isFile()) throw new SubmissionFailure("grader_error", `${file} is not a file`);
  if (stat.size > MAX_SUBMISSION_BYTES) throw new SubmissionFailure("resource_limit", `the submission is ${stat.size} bytes (at most ${MAX_SUBMISSION_BYTES})`);
  return fs.readFileSync(file, "utf8");
}

function allTests(ex: Exercise): { name: string; description: string; visibility: TestResult["visibility"]; points: number }[] {
  if (ex.kind === "numbers") return ex.questions.map((q) => ({ name: q.key, description: q.question, visibility: q.visibility, points: q.points }));
  return [...ex.tests, ...ex.performance];
}

/** Grades one submission file, on the given GPU (or the CPU). Never throws for anything the submission does. */
export async function gradeSubmission(ex: Exercise, file: string,
  options: GradeOptions & { gpu?: number; student?: string; exclusive?<T>(fn: () => Promise<T>): Promise<T> }): Promise<SubmissionResult> {
  const started = new Date();
  const result: SubmissionResult = {
    schema: RESULT_SCHEMA, exercise: ex.id, submission: path.basename(file), student: options.student ?? studentOf(file),
    device: options.device === "gpu" ? `gpu ${options.gpu ?? 0}` : "cpu (emulator, check mode)",
    sandbox: describeSandbox(), startedAt: started.toISOString(), ms: 0, score: 0, maxScore: 0, verdict: "passed",
    compile: { ok: true, log: "" }, tests: [], log: "",
  };
  const executors: ChildExecutor[] = [];
  try {
    const source = readSubmission(file);
    if (ex.kind === "numbers") {
      result.tests = gradeNumbers(ex, source, () => true);
    } else {
      const engine: EngineOptions = {
        secret: options.secret ?? freshSecret(), deviceKind: options.device, copyCeilingGBs: options.copyCeilingGBs,
        include: () => true, timedSets: options.timedSets, exclusive: options.exclusive,
        executor: () => {
          const e = new ChildExecutor({ device: options.device, gpu: options.gpu, jobs: options.jobs ?? 1 }, options.limits ?? DEFAULT_LIMITS);
          executors.push(e);
          return e;
        },
      };
      const graded = await gradeKernel(ex, source, engine);
      result.tests = graded.tests;
      result.compile = graded.compile;
    }
  } catch (e) {
    // Whatever went wrong, every test gets a verdict.
    const failure = e instanceof SubmissionFailure ? e : new SubmissionFailure("grader_error", `the grader failed: ${(e as Error).message}`);
    const done = new Set(result.tests.map((t) => t.name));
    for (const t of allTests(ex)) {
      if (done.has(t.name)) continue;
      result.tests.push({ name: t.name, description: t.description, visibility: t.visibility, points: 0, maxPoints: t.points, verdict: failure.verdict, message: failure.message, ms: 0 });
    }
  }
  result.log = executors.map((e) => e.log).filter((l) => l.length > 0).join("\n---\n");
  result.score = Math.round(result.tests.reduce((a, t) => a + t.points, 0) * 100) / 100;
  result.maxScore = result.tests.reduce((a, t) => a + t.maxPoints, 0);
  result.verdict = overallVerdict(result.tests);
  result.ms = Date.now() - started.getTime();
  return result;
}

/**
 * Grades every file, `jobs` at a time (one per GPU on GPUs). Results come back
 * in the files' order; `onResult` sees each as it is done.
 */
export async function gradeClass(exerciseId: string, files: readonly string[], options: GradeOptions): Promise<SubmissionResult[]> {
  const ex = loadExercise(exerciseId);
  const secret = options.secret ?? freshSecret();
  const jobs = Math.max(1, options.jobs ?? 1);
  const workers = options.device === "gpu"
    ? (options.gpus ?? [0]).flatMap((gpu) => Array.from({ length: jobs }, () => ({ gpu })))
    : Array.from({ length: jobs }, () => ({ gpu: undefined }));
  // One timed test at a time on each GPU: bandwidth measured while another process shares the GPU would be wrong.
  const gpuLocks = new Map<number, Promise<unknown>>();
  const exclusive = (gpu: number | undefined) => <T>(fn: () => Promise<T>): Promise<T> => {
    const key = gpu ?? -1;
    const previous = gpuLocks.get(key) ?? Promise.resolve();
    const run = previous.then(fn, fn);
    gpuLocks.set(key, run.catch(() => undefined));
    return run;
  };
  if (ex.kind === "kernel") makeCases(ex, { secret, deviceKind: options.device, include: () => true, timedSets: options.timedSets });
  const results: SubmissionResult[] = new Array(files.length);
  let next = 0;
  await Promise.all(workers.map(async (worker) => {
    for (;;) {
      const index = next++;
      if (index >= files.length) return;
      const r = await gradeSubmission(ex, files[index], { ...options, secret, gpu: worker.gpu, jobs: workers.length, student: options.students?.[index], exclusive: exclusive(worker.gpu) });
      results[index] = r;
      options.onResult?.(r, index);
    }
  }));
  return results;
}
