// `fuselab grade`: grades submission files (or folders of them) of one exercise,
// writes the reports as it goes, and the class reports at the end, also when
// interrupted. `--slurm` writes a Slurm job array instead; `merge` builds the
// class reports from the array's parts.
import * as fs from "fs";
import * as path from "path";
import { freshSecret } from "./engine";
import { loadExercise } from "./exercise";
import { gradeClass } from "./grade";
import { measureCeiling } from "./ceiling";
import { classLog, logLine, safeName, writeClassReports, writeSubmissionReports } from "./reports";
import { ClassResult, SubmissionResult, classResult, RESULT_SCHEMA } from "./results";
import { describeSandbox } from "./sandbox";
import { GradeUsageError } from "./usage";

interface Parsed {
  exercise?: string;
  files: string[];
  device: "cpu" | "gpu";
  gpus?: number[];
  jobs: number;
  out: string;
  secret?: string;
  slurm: boolean;
  chunk: number;
  sbatch: string;
  list?: string;
  task?: number;
}

const SUBMISSION = /\.(hip|cu|cpp|cc|json)$/;

function positiveInt(flag: string, text: string | undefined): number {
  const n = Number(text);
  if (!text || !Number.isInteger(n) || n < 0) throw new GradeUsageError(`${flag} must be followed by a whole number, got ${JSON.stringify(text ?? "nothing")}`);
  return n;
}

function parse(args: string[]): Parsed {
  const p: Parsed = { files: [], device: "cpu", jobs: 1, out: "grades", slurm: false, chunk: 25, sbatch: "" };
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    const value = () => {
      if (i + 1 >= args.length) throw new GradeUsageError(`${a} must be followed by a value`);
      return args[++i];
    };
    switch (a) {
      case "--exercise": p.exercise = value(); break;
      case "--device": {
        const d = value();
        if (d !== "cpu" && d !== "gpu") throw new GradeUsageError(`--device must be cpu or gpu, got ${JSON.stringify(d)}`);
        p.device = d;
        break;
      }
      case "--gpus": p.gpus = value().split(",").map((g) => positiveInt("--gpus", g)); break;
      case "--jobs": p.jobs = Math.max(1, positiveInt("--jobs", value())); break;
      case "--out": p.out = value(); break;
      case "--secret": p.secret = value(); break;
      case "--slurm": p.slurm = true; break;
      case "--chunk": p.chunk = Math.max(1, positiveInt("--chunk", value())); break;
      case "--sbatch": p.sbatch = value(); break;
      case "--list": p.list = value(); break;
      case "--task": p.task = positiveInt("--task", value()); break;
      default:
        if (a.startsWith("--")) throw new GradeUsageError(`grade: unknown option ${JSON.stringify(a)}`);
        p.files.push(a);
    }
  }
  if (p.gpus && p.device !== "gpu") throw new GradeUsageError("--gpus needs --device gpu");
  return p;
}

/** Files named, and the submission files inside folders named (sorted), with a student name each. */
export function expandSubmissions(args: readonly string[]): { file: string; student: string }[] {
  const found: { file: string; student: string }[] = [];
  for (const arg of args) {
    if (!fs.existsSync(arg)) throw new GradeUsageError(`no such file or folder: ${arg}`);
    if (fs.statSync(arg).isDirectory()) {
      const walk = (dir: string) => {
        for (const entry of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
          const full = path.join(dir, entry.name);
          if (entry.isDirectory()) walk(full);
          else if (entry.isFile() && SUBMISSION.test(entry.name)) found.push({ file: full, student: path.relative(arg, full).replace(SUBMISSION, "") });
        }
      };
      walk(arg);
    } else found.push({ file: arg, student: path.basename(arg).replace(SUBMISSION, "") });
  }
  // Two submissions that would share a report name get numbered.
  const seen = new Map<string, number>();
  return found.map(({ file, student }) => {
    const key = safeName(student);
    const n = (seen.get(key) ?? 0) + 1;
    seen.set(key, n);
    return { file, student: n === 1 ? student : `${student}~${n}` };
  });
}

async function grade(p: Parsed): Promise<number> {
  if (!p.exercise) throw new GradeUsageError("grade: --exercise NN is needed");
  const ex = loadExercise(p.exercise, "fuselab grade");
  let entries: { file: string; student: string }[];
  if (p.list !== undefined) {
    // A Slurm task: its chunk of the list the array was written with.
    const all = JSON.parse(fs.readFileSync(p.list, "utf8")) as { file: string; student: string }[];
    const task = p.task ?? Number(process.env.SLURM_ARRAY_TASK_ID ?? NaN);
    if (!Number.isInteger(task)) throw new GradeUsageError("--list needs --task N or SLURM_ARRAY_TASK_ID");
    entries = all.slice(task * p.chunk, (task + 1) * p.chunk);
  } else entries = expandSubmissions(p.files);
  if (entries.length === 0) throw new GradeUsageError("grade: no submissions given (files, or folders holding .hip or .json files)");
  if (p.slurm) return writeSlurm(p, ex.id, entries);

  const started = new Date();
  const device = p.device === "gpu" ? `gpu ${(p.gpus ?? [0]).join(",")}` : "cpu (emulator, check mode)";
  let copyCeilingGBs: number | undefined;
  if (p.device === "gpu") {
    // Each GPU's own ceiling; a submission is scored against the slowest, so no GPU gives an easier grade.
    const ceilings = await Promise.all((p.gpus ?? [0]).map(measureCeiling));
    copyCeilingGBs = Math.min(...ceilings.map((c) => c.gbs));
    console.error(`fuselab grade: copy ceiling ${ceilings.map((c, i) => `GPU ${(p.gpus ?? [0])[i]} ${c.gbs.toFixed(1)} GB/s`).join(", ")}`);
  }
  const sandbox = describeSandbox();
  console.error(`fuselab grade: ${entries.length} submissions of ${ex.id}, sandbox: ${sandbox}`);
  const done: SubmissionResult[] = [];
  const writeAll = () => writeClassReports(p.out, classResult(ex.id, device, sandbox, started, done.slice(), copyCeilingGBs));
  // Interrupted: the class reports hold what was finished.
  const onSignal = (signal: NodeJS.Signals) => {
    writeAll();
    console.error(`fuselab grade: stopped by ${signal}; ${done.length} of ${entries.length} graded, reports in ${p.out}`);
    process.exit(130);
  };
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  const results = await gradeClass(ex.id, entries.map((e) => e.file), {
    device: p.device, gpus: p.gpus, jobs: p.jobs, secret: p.secret, copyCeilingGBs, students: entries.map((e) => e.student),
    onResult: (r) => {
      writeSubmissionReports(p.out, r);
      done.push(r);
      console.error(`[${done.length}/${entries.length}] ${logLine(r).split("\n")[0]}`);
    },
  });
  process.removeListener("SIGINT", onSignal);
  process.removeListener("SIGTERM", onSignal);
  const c = classResult(ex.id, device, sandbox, started, results, copyCeilingGBs);
  writeClassReports(p.out, c);
  console.log(classLog(c));
  return 0;
}

function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

function writeSlurm(p: Parsed, exercise: string, entries: { file: string; student: string }[]): number {
  const out = path.resolve(p.out);
  const dir = path.join(out, "slurm");
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const list = path.join(dir, "submissions.json");
  fs.writeFileSync(list, JSON.stringify(entries.map((e) => ({ file: path.resolve(e.file), student: e.student })), null, 1));
  const tasks = Math.ceil(entries.length / p.chunk);
  const secret = p.secret ?? freshSecret();
  const cli = path.join(__dirname, "..", "cli.js");
  const device = p.device === "gpu" ? ["--device", "gpu"] : ["--device", "cpu", "--jobs", String(p.jobs)];
  const script = [
    "#!/bin/bash",
    `#SBATCH --job-name=fuselab-${exercise}`,
    `#SBATCH --array=0-${tasks - 1}`,
    `#SBATCH --output=${dir}/task-%a.log`,
    ...(p.device === "gpu" ? ["#SBATCH --gres=gpu:1"] : [`#SBATCH --cpus-per-task=${p.jobs}`]),
    "set -euo pipefail",
    `exec ${shellQuote(process.execPath)} ${shellQuote(cli)} grade --exercise ${exercise} ${device.join(" ")} --secret ${shellQuote(secret)} \\`,
    `  --list ${shellQuote(list)} --chunk ${p.chunk} --task "$SLURM_ARRAY_TASK_ID" --out ${shellQuote(out)}/parts/"$SLURM_ARRAY_TASK_ID"`,
    "",
  ].join("\n");
  const job = path.join(dir, "job.sh");
  // The secret is in the script: the instructor's alone.
  fs.writeFileSync(job, script, { mode: 0o700 });
  console.log(`fuselab grade: a job array of ${tasks} task${tasks === 1 ? "" : "s"} (${entries.length} submissions, ${p.chunk} a task) in ${job}`);
  console.log(`  submit:  sbatch ${p.sbatch ? p.sbatch + " " : ""}${job}`);
  console.log(`  then:    fuselab grade merge ${out}`);
  return 0;
}

/** The class reports of a Slurm run, from its parts' submission results. */
export function merge(out: string): ClassResult {
  const parts = path.join(out, "parts");
  if (!fs.existsSync(parts)) throw new GradeUsageError(`grade merge: ${parts} does not exist (no task of the array has run yet)`);
  const submissions: SubmissionResult[] = [];
  const classes: ClassResult[] = [];
  for (const part of fs.readdirSync(parts).sort((a, b) => Number(a) - Number(b))) {
    const classFile = path.join(parts, part, "class.json");
    if (fs.existsSync(classFile)) classes.push(JSON.parse(fs.readFileSync(classFile, "utf8")) as ClassResult);
    const dir = path.join(parts, part, "submissions");
    if (!fs.existsSync(dir)) continue;
    for (const f of fs.readdirSync(dir).filter((f) => f.endsWith(".json")).sort()) {
      const r = JSON.parse(fs.readFileSync(path.join(dir, f), "utf8")) as SubmissionResult;
      if (r.schema === RESULT_SCHEMA) submissions.push(r);
    }
  }
  if (submissions.length === 0) throw new GradeUsageError(`grade merge: no submission results under ${parts}`);
  // In the order the array was written.
  const listFile = path.join(out, "slurm", "submissions.json");
  const order = fs.existsSync(listFile) ? (JSON.parse(fs.readFileSync(listFile, "utf8")) as { student: string }[]).map((e) => e.student) : [];
  submissions.sort((a, b) => order.indexOf(a.student) - order.indexOf(b.student));
  const first = classes[0];
  const startedAt = classes.length > 0 ? new Date(Math.min(...classes.map((c) => Date.parse(c.startedAt)))) : new Date();
  const c = classResult(submissions[0].exercise, first?.device ?? submissions[0].device, first?.sandbox ?? submissions[0].sandbox, startedAt, submissions, first?.copyCeilingGBs);
  c.ms = Math.max(0, ...classes.map((k) => Date.parse(k.startedAt) + k.ms)) - startedAt.getTime();
  for (const r of submissions) writeSubmissionReports(out, r);
  writeClassReports(out, c);
  const missing = order.filter((s) => !submissions.some((r) => r.student === s));
  if (missing.length > 0) console.error(`fuselab grade merge: ${missing.length} submissions have no result yet: ${missing.slice(0, 10).join(", ")}${missing.length > 10 ? ", ..." : ""}`);
  return c;
}

/** `fuselab grade ...`: returns the exit status. */
export async function gradeCommand(args: string[]): Promise<number> {
  if (args[0] === "merge") {
    if (args.length !== 2) throw new GradeUsageError("grade merge: one folder (the --out of the Slurm run) is needed");
    console.log(classLog(merge(args[1])));
    return 0;
  }
  if (args.length === 1 && args[0] === "--sandbox") {
    console.log(describeSandbox());
    return 0;
  }
  return grade(parse(args));
}
