// The submissions an exercise ships beside its solution (solutions/NN-name/):
// the solution, known-wrong solutions and cheats, each with the verdict the
// grader must give it, written in its first lines:
//
//   // expect: out_of_bounds
//   // expect on gpu: illegal_address      (where a GPU says otherwise; "skip" where it may go either way)
//   // expect: wrong_answer or nan         (where the secret-seeded data decides between them: garbage read
//                                          as an f16 scale is NaN for some data and a wrong number for other)
//
// or, in a numbers exercise's JSON, a key: { "expect": "wrong_answer", "answers": ... }.
import * as fs from "fs";
import * as path from "path";
import { solutionsDir } from "./exercise";
import { VERDICTS, Verdict } from "./results";

/** The verdicts a fixture may get (any one of them), or "skip": not decided there (a race a GPU may win by luck). */
export type Expected = readonly Verdict[] | "skip";

export interface Fixture {
  file: string;
  /** What is expected on the CPU emulator and on a GPU. */
  expect: { cpu: Expected; gpu: Expected };
}

/** "wrong_answer", "wrong_answer or nan", "skip". */
export function describeExpected(e: Expected): string {
  return e === "skip" ? e : e.join(" or ");
}

/** Whether `verdict` is one that was expected (a skipped fixture expects anything). */
export function meetsExpected(e: Expected, verdict: string): boolean {
  return e === "skip" || (e as readonly string[]).includes(verdict);
}

function parseExpect(file: string): Fixture["expect"] {
  const head = fs.readFileSync(file, "utf8").split("\n").slice(0, 5).join("\n");
  const all = /expect"?\s*:\s*"?([a-z_]+(?: or [a-z_]+)*)/.exec(head)?.[1];
  const gpu = /expect on gpu"?\s*:\s*"?([a-z_]+(?: or [a-z_]+)*)/.exec(head)?.[1];
  const check = (v: string | undefined): Expected => {
    if (v === "skip") return v;
    const verdicts = v?.split(" or ") ?? [];
    const unknown = verdicts.find((x) => !(VERDICTS as readonly string[]).includes(x));
    if (verdicts.length === 0 || unknown !== undefined) {
      throw new Error(`${file}: its first lines must say "expect: <verdict>" or "expect: <verdict> or <verdict>" (each one of ${VERDICTS.join(", ")})`);
    }
    return verdicts as Verdict[];
  };
  const cpu = check(all);
  return { cpu, gpu: gpu ? check(gpu) : cpu };
}

/** The solution (expected to pass) and every fixture of the exercise `id`. */
export function fixtures(id: string): Fixture[] {
  const dir = path.join(solutionsDir(), id);
  const solution = fs.readdirSync(dir).find((f) => /^solution\.(hip|json)$/.test(f));
  if (!solution) throw new Error(`${dir} has no solution.hip or solution.json`);
  const list: Fixture[] = [{ file: path.join(dir, solution), expect: { cpu: ["passed"], gpu: ["passed"] } }];
  const fixtureDir = path.join(dir, "fixtures");
  for (const f of fs.readdirSync(fixtureDir).sort()) list.push({ file: path.join(fixtureDir, f), expect: parseExpect(path.join(fixtureDir, f)) });
  return list;
}
