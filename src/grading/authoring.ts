// From each exercise's one source, the files students and instructors open:
//
//   exercises/NN-name/stub.hip (or stub.json)   the solution with each marked region
//                                                replaced by "fill in, about N lines"
//   exercises/NN-name/NN-name.ipynb              the student's notebook: spec, stub, check, hints
//   solutions/NN-name/answer.ipynb               the instructor's: the same with the solution
//
// A region is marked in the solution by lines "// BEGIN SOLUTION" and "// END SOLUTION".
// Lines in it that start "//STUB " are the stub's instead (a debugging exercise's
// stub is the buggy code, not a to-do): then they replace the region, and the
// solution drops them.
// The files are committed; a test fails when one is stale. Run with `npm run exercises`.
import * as fs from "fs";
import * as path from "path";
import { lessonToNotebook, notebookJson } from "../lessons";
import { packageRoot } from "../native";
import { Exercise, exerciseIds, exerciseSpec, exercisesDir, loadExercise, solutionsDir } from "./exercise";

const BEGIN = /^(\s*)\/\/ BEGIN SOLUTION\s*$/;
const END = /^\s*\/\/ END SOLUTION\s*$/;
const STUB = /^(\s*)\/\/STUB (.*)$/;

/** The solution with its marked regions replaced by a to-do saying about how many lines go there. */
export function stubOf(solution: string, where: string): string {
  const out: string[] = [];
  let region: { indent: string; lines: number; start: number; stub: string[] } | undefined;
  solution.split("\n").forEach((line, i) => {
    const begin = BEGIN.exec(line);
    if (begin) {
      if (region) throw new Error(`${where}:${i + 1}: BEGIN SOLUTION inside the region opened at line ${region.start}`);
      region = { indent: begin[1], lines: 0, start: i + 1, stub: [] };
    } else if (END.test(line)) {
      if (!region) throw new Error(`${where}:${i + 1}: END SOLUTION without a BEGIN SOLUTION`);
      if (region.stub.length > 0) out.push(...region.stub);
      else out.push(`${region.indent}// TODO: fill in, about ${region.lines} line${region.lines === 1 ? "" : "s"}`);
      region = undefined;
    } else if (region) {
      const stub = STUB.exec(line);
      if (stub) region.stub.push(stub[2]);
      else if (line.trim() !== "") region.lines++;
    } else out.push(line);
  });
  if (region) throw new Error(`${where}:${region.start}: BEGIN SOLUTION is never ended`);
  return out.join("\n");
}

/** The solution as a student would hand it in: the markers removed. */
export function withoutMarkers(solution: string): string {
  return solution.split("\n").filter((line) => !BEGIN.test(line) && !END.test(line) && !STUB.test(line)).join("\n");
}

function solutionFile(id: string): string {
  const dir = path.join(solutionsDir(), id);
  const hip = path.join(dir, "solution.hip");
  return fs.existsSync(hip) ? hip : path.join(dir, "solution.json");
}

function hintsMarkdown(ex: Exercise): string {
  return ex.hints.map((h, i) => `<details><summary>Hint ${i + 1}</summary>\n\n${h}\n\n</details>`).join("\n\n");
}

function notebookMarkdown(ex: Exercise, code: string, answer: boolean): string {
  const kernel = path.extname(solutionFile(ex.id)) === ".hip";
  const check = kernel
    ? `\`\`\`ts\nconst source = ${JSON.stringify(code)};\nawait fl.check(${JSON.stringify(ex.id)}, source);\n\`\`\``
    : `\`\`\`ts\nconst submission = ${code.trim()};\nawait fl.check(${JSON.stringify(ex.id)}, submission);\n\`\`\``;
  return [
    exerciseSpec(ex.id).trim(),
    "",
    "```ts",
    'import * as fl from "fuselab";',
    "```",
    "",
    answer ? "## The answer" : "## Your answer",
    "",
    answer
      ? "The reference solution, checked by the same tests as a student's."
      : (kernel
        ? "Fill in the kernels below, run the cell: `fl.check` runs the grader's visible tests on this notebook's device and shows each test's result, points and, for a failure, a hint and a small counterexample. The grader runs the same tests, and a few hidden ones."
        : "Fill in the numbers (and your working), run the cell: `fl.check` grades them as the grader will."),
    "",
    check,
    "",
    "## Hints",
    "",
    hintsMarkdown(ex),
    "",
  ].join("\n");
}

export interface Generated {
  file: string;
  text: string;
}

/** Every generated file of the exercise `id`, with its text. */
export function renderExercise(id: string): Generated[] {
  const ex = loadExercise(id);
  const file = solutionFile(id);
  const solution = fs.readFileSync(file, "utf8");
  const where = path.relative(packageRoot(), file);
  const ext = path.extname(file);
  // A numbers exercise's stub: the same keys, no answers yet.
  const stub = ext === ".json"
    ? JSON.stringify({ answers: Object.fromEntries(Object.keys(JSON.parse(solution).answers).map((k) => [k, null])), working: {} }, null, 2) + "\n"
    : stubOf(solution, where);
  return [
    { file: path.join(exercisesDir(), id, `stub${ext}`), text: stub },
    { file: path.join(exercisesDir(), id, `${id}.ipynb`), text: notebookJson(lessonToNotebook(notebookMarkdown(ex, stub, false), `${id} (student)`)) },
    { file: path.join(solutionsDir(), id, "answer.ipynb"), text: notebookJson(lessonToNotebook(notebookMarkdown(ex, ext === ".json" ? solution : withoutMarkers(solution), true), `${id} (answer)`)) },
  ];
}

/** Every exercise's generated files. */
export function renderExercises(): Generated[] {
  return exerciseIds().flatMap(renderExercise);
}

if (require.main === module) {
  try {
    for (const { file, text } of renderExercises()) {
      const unchanged = fs.existsSync(file) && fs.readFileSync(file, "utf8") === text;
      if (!unchanged) fs.writeFileSync(file, text);
      console.log(`${path.relative(packageRoot(), file)}${unchanged ? " (unchanged)" : ""}`);
    }
  } catch (e) {
    console.error(`fuselab exercises: ${(e as Error).message}`);
    process.exitCode = 1;
  }
}
