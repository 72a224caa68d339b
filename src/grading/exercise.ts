// What an exercise is, as its one source (exercises/NN-name/exercise.ts)
// declares it: the tests with their points, tolerances and visibility, the
// hints in tiers, and for a kernel exercise how each test makes its inputs,
// launches the student's kernels and computes the right answer. The notebook's
// `fl.check`, the grader, the stub and the notebooks are all made from it.
import * as fs from "fs";
import * as path from "path";
import { ArgumentError, describe } from "../errors";
import { packageRoot } from "../native";
import { DTypeName } from "./protocol";

/** Who sees a test's result (Gradescope's levels): the student now, never, after the due date, once published. */
export type Visibility = "visible" | "hidden" | "after_due_date" | "after_published";

export interface Tolerance {
  rtol: number;
  atol: number;
}

/** Values of one buffer, as numbers; 16-bit float types are rounded to their storage before anything uses them. */
export type Values = Float32Array | Float64Array | Int32Array | Uint8Array;

export interface CaseInput {
  name: string;
  dtype: DTypeName;
  values: Values;
}

export interface CaseOutput {
  name: string;
  dtype: DTypeName;
  elements: number;
  tolerance: Tolerance;
  /**
   * Starts with these values instead of the NaN canary (an output updated in
   * place, as a residual stream is); listed among the inputs is not needed.
   */
  initial?: Values;
}

/** A launch: `args` name buffers (inputs or outputs) or give scalars. */
export interface CaseLaunch {
  kernel: string;
  grid: number | number[];
  block: number | number[];
  sharedBytes?: number;
  args: (string | number)[];
}

/** One instance of a test, made from a seed. */
export interface KernelCase {
  inputs: CaseInput[];
  outputs: CaseOutput[];
  launches: CaseLaunch[];
  /** The right outputs, from the inputs as stored (16-bit values already rounded). */
  reference(inputs: Readonly<Record<string, Float64Array>>): Record<string, ArrayLike<number>>;
  /** Bytes the launches must move at least (for bandwidth): inputs read plus outputs written. */
  bytes?: number;
  /** What the case is, for messages: "n = 1000003". */
  label: string;
}

/** CPU emulator options a test runs with (ignored on a GPU, which has its own warp size). */
export interface TestDevice {
  warpSize?: 32 | 64;
  check?: boolean;
}

export interface KernelTest {
  name: string;
  points: number;
  visibility: Visibility;
  /** What it checks, shown with its result. */
  description: string;
  device?: TestDevice;
  /** `small`: a case of a few elements, for a counterexample a student can read. */
  make(seed: number, small: boolean): KernelCase;
  /** The hint tier (index into `hints`) shown when this test fails. */
  hint?: number;
}

/** Bandwidth scored against the copy ceiling (on a GPU; the CPU emulator scores correctness only). */
export interface PerformanceTest {
  name: string;
  points: number;
  visibility: Visibility;
  description: string;
  make(seed: number): KernelCase;
  /** Fractions of the copy ceiling: full points at `full`, none at or below `zero`, linear between. */
  full: number;
  zero: number;
  hint?: number;
}

export interface KernelExercise {
  kind: "kernel";
  id: string;
  title: string;
  /** The `__global__` functions a submission must define. */
  kernels: string[];
  tests: KernelTest[];
  performance: PerformanceTest[];
  /** Hints from a nudge to nearly the answer. */
  hints: string[];
}

/** A question answered by a number, graded within a relative tolerance. */
export interface NumberQuestion {
  key: string;
  question: string;
  answer: number;
  /** Relative tolerance: |given - answer| <= rtol * |answer|. */
  rtol: number;
  points: number;
  visibility: Visibility;
  /** The instructor's working, shown back with the result. */
  working: string;
  unit: string;
  hint?: number;
}

export interface NumbersExercise {
  kind: "numbers";
  id: string;
  title: string;
  questions: NumberQuestion[];
  hints: string[];
}

export type Exercise = KernelExercise | NumbersExercise;

/** Where exercise folders live (the spec, the stub, the notebook), in the tree at `root`. */
export function exercisesDir(root = packageRoot()): string {
  return path.join(root, "exercises");
}

/** Where solutions and fixtures live. */
export function solutionsDir(): string {
  return path.join(packageRoot(), "solutions");
}

/** The ids of every exercise of the tree at `root`, in order. */
export function exerciseIds(root = packageRoot()): string[] {
  const dir = exercisesDir(root);
  return fs.readdirSync(dir).filter((d) => /^\d\d-[a-z0-9-]+$/.test(d) && fs.existsSync(path.join(dir, d, "exercise.ts"))).sort();
}

/** The exercise `id` ("01-add-relu", or "01"). */
export function loadExercise(id: unknown, where = "fuselab"): Exercise {
  const ids = exerciseIds();
  const match = typeof id === "string" ? ids.find((e) => e === id || e.slice(0, 2) === id.padStart(2, "0")) : undefined;
  if (!match) throw new ArgumentError(where, "exercise", `one of ${ids.join(", ")}`, describe(id));
  // Compiled beside the library: dist/exercises/NN-name/exercise.js.
  const module = require(path.join(packageRoot(), "dist", "exercises", match, "exercise.js")) as { exercise: Exercise };
  return module.exercise;
}

/** The student's spec (README.md of the exercise folder). */
export function exerciseSpec(id: string): string {
  return fs.readFileSync(path.join(exercisesDir(), id, "README.md"), "utf8");
}
