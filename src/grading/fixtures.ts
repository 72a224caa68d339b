// The submissions an exercise ships beside its solution (solutions/NN-name/):
// the solution, known-wrong solutions and cheats, each with the verdict the
// grader must give it, written in its first lines:
//
//   // expect: out_of_bounds
//   // expect on gpu: illegal_address      (where a GPU says otherwise; "skip" where it may go either way)
//
// or, in a numbers exercise's JSON, a key: { "expect": "wrong_answer", "answers": ... }.
import * as fs from "fs";
import * as path from "path";
import { solutionsDir } from "./exercise";
import { VERDICTS, Verdict } from "./results";

export interface Fixture {
  file: string;
  /** The verdict expected on the CPU emulator and on a GPU; "skip": not decided there (a race a GPU may win by luck). */
  expect: { cpu: Verdict | "skip"; gpu: Verdict | "skip" };
}

function parseExpect(file: string): Fixture["expect"] {
  const head = fs.readFileSync(file, "utf8").split("\n").slice(0, 5).join("\n");
  const all = /expect"?\s*:\s*"?([a-z_]+)/.exec(head)?.[1];
  const gpu = /expect on gpu"?\s*:\s*"?([a-z_]+)/.exec(head)?.[1];
  const check = (v: string | undefined): Verdict | "skip" => {
    if (v === "skip") return v;
    if (!v || !(VERDICTS as readonly string[]).includes(v)) throw new Error(`${file}: its first lines must say "expect: <verdict>" (one of ${VERDICTS.join(", ")})`);
    return v as Verdict;
  };
  const cpu = check(all);
  return { cpu, gpu: gpu ? check(gpu) : cpu };
}

/** The solution (expected to pass) and every fixture of the exercise `id`. */
export function fixtures(id: string): Fixture[] {
  const dir = path.join(solutionsDir(), id);
  const solution = fs.readdirSync(dir).find((f) => /^solution\.(hip|json)$/.test(f));
  if (!solution) throw new Error(`${dir} has no solution.hip or solution.json`);
  const list: Fixture[] = [{ file: path.join(dir, solution), expect: { cpu: "passed", gpu: "passed" } }];
  const fixtureDir = path.join(dir, "fixtures");
  for (const f of fs.readdirSync(fixtureDir).sort()) list.push({ file: path.join(fixtureDir, f), expect: parseExpect(path.join(fixtureDir, f)) });
  return list;
}
