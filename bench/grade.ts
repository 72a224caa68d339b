// npm run bench:grade -- [--count N] [--device cpu|gpu] [--jobs J] [--gpus 0,1] [--out DIR]
// npm run bench:grade -- generate --count N --dir DIR
//
// How long `fuselab grade` takes for a class: N submissions of exercise 01, a
// mix of right (some scalar, some vectorised), wrong, hanging, crashing and
// cheating ones, each a copy of a fixture with its student's own comment (so
// each compiles on its own, as a class's would). Runs the real command, checks
// that every submission got its fixture's verdict (a wrong one fails the bench),
// and writes bench/results/grade-<host>-<device>-<date>.md with the timing.
// Targets: 30 on 2 CPU cores under 5 minutes; 300 on one H100 under 10.
import { execFileSync } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { Fixture, describeExpected, fixtures, meetsExpected } from "../src/grading/fixtures";
import { ClassResult } from "../src/grading/results";

const USAGE = "usage: npm run bench:grade -- [--count N] [--device cpu|gpu] [--jobs J] [--gpus 0,1] [--out DIR]\n" +
  "       npm run bench:grade -- generate --count N --dir DIR";
const EXERCISE = "01-add-relu";
const ROOT = path.resolve(__dirname, "..", "..");

// Of every 20 submissions: 9 right, 5 wrong, 2 hanging, 2 crashing, 2 cheating.
const MIX: [string, number][] = [
  ["solution.hip", 6], ["fixtures/scalar-f16.hip", 3],
  ["fixtures/relu-of-each-input.hip", 1], ["fixtures/off-by-one.hip", 1], ["fixtures/no-bounds-check.hip", 1],
  ["fixtures/f16-no-tail.hip", 1], ["fixtures/syntax-error.hip", 1],
  ["fixtures/hangs.hip", 2],
  ["fixtures/null-write.hip", 2],
  ["fixtures/lazy-after-warmup.hip", 1], ["fixtures/positive-only.hip", 1],
];

interface Generated {
  file: string;
  fixture: Fixture;
}

/** Writes `count` submissions into `dir`, in the mix's proportions, student-001.hip on. */
export function generate(count: number, dir: string): Generated[] {
  const byName = new Map(fixtures(EXERCISE).map((f) => [path.relative(path.join(ROOT, "solutions", EXERCISE), f.file), f]));
  const cycle = MIX.flatMap(([name, n]) => Array.from({ length: n }, () => name));
  fs.mkdirSync(dir, { recursive: true });
  return Array.from({ length: count }, (_, i) => {
    const fixture = byName.get(cycle[(i * 7) % cycle.length]);
    if (!fixture) throw new Error(`no fixture ${cycle[(i * 7) % cycle.length]} in ${EXERCISE}`);
    const file = path.join(dir, `student-${String(i + 1).padStart(3, "0")}.hip`);
    // The fixture's own first lines stay first (they say its expected verdict); the student's name goes last.
    fs.writeFileSync(file, `${fs.readFileSync(fixture.file, "utf8")}\n// submitted by student ${i + 1}\n`);
    return { file, fixture };
  });
}

interface Options {
  count: number;
  device: "cpu" | "gpu";
  jobs: number;
  gpus?: string;
  out: string;
}

function parse(argv: string[]): Options {
  const o: Options = { count: 30, device: "cpu", jobs: os.cpus().length, out: path.join(ROOT, "bench", "results") };
  for (let i = 0; i < argv.length; i += 2) {
    const [flag, value] = [argv[i], argv[i + 1]];
    if (value === undefined) throw new Error(`${flag} needs a value\n${USAGE}`);
    if (flag === "--count") o.count = Number(value);
    else if (flag === "--device" && (value === "cpu" || value === "gpu")) o.device = value;
    else if (flag === "--jobs") o.jobs = Number(value);
    else if (flag === "--gpus") o.gpus = value;
    else if (flag === "--out") o.out = path.resolve(value);
    else throw new Error(`unexpected ${flag} ${value}\n${USAGE}`);
  }
  if (!Number.isInteger(o.count) || o.count < 1 || !Number.isInteger(o.jobs) || o.jobs < 1) throw new Error(USAGE);
  return o;
}

function run(o: Options): void {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "fuselab-bench-grade-"));
  const generated = generate(o.count, path.join(work, "class"));
  const grades = path.join(work, "grades");
  const args = [path.join(ROOT, "dist", "src", "cli.js"), "grade", "--exercise", EXERCISE, path.join(work, "class"),
    "--device", o.device, "--jobs", String(o.jobs), "--out", grades, ...(o.gpus ? ["--gpus", o.gpus] : [])];
  const load = os.loadavg()[0];
  const started = Date.now();
  execFileSync(process.execPath, args, { stdio: ["ignore", "ignore", "inherit"] });
  const seconds = (Date.now() - started) / 1000;
  const c = JSON.parse(fs.readFileSync(path.join(grades, "class.json"), "utf8")) as ClassResult;

  const wrong: string[] = [];
  const rows = new Map<string, { expected: string; count: number; got: Map<string, number> }>();
  generated.forEach((g, i) => {
    const expected = describeExpected(g.fixture.expect[o.device]);
    const got = c.submissions[i]?.verdict ?? "missing";
    if (!meetsExpected(g.fixture.expect[o.device], got)) wrong.push(`${path.basename(g.file)} (${path.basename(g.fixture.file)}): expected ${expected}, got ${got}`);
    const row = rows.get(g.fixture.file) ?? { expected, count: 0, got: new Map() };
    row.count++;
    row.got.set(got, (row.got.get(got) ?? 0) + 1);
    rows.set(g.fixture.file, row);
  });

  // Where each submission ran, and how long its graders were busy there: with --gpus, every GPU should take a share.
  const byDevice = new Map<string, { count: number; ms: number }>();
  for (const s of c.submissions) {
    const d = byDevice.get(s.device) ?? { count: 0, ms: 0 };
    d.count++;
    d.ms += s.ms;
    byDevice.set(s.device, d);
  }

  const date = new Date().toISOString().slice(0, 10);
  const cpu = os.cpus()[0]?.model ?? "unknown CPU";
  const command = `npm run bench:grade -- --count ${o.count} --device ${o.device} --jobs ${o.jobs}${o.gpus ? ` --gpus ${o.gpus}` : ""}`;
  const target = o.device === "gpu" ? 600 : 300;
  const lines = [
    `# fuselab grade: ${o.count} submissions of ${EXERCISE} on ${c.device}`,
    "",
    `- date: ${date}; host: ${os.hostname()}, ${os.cpus().length} cores (${cpu}), ${Math.round(os.totalmem() / 2 ** 30)} GiB; load average ${load.toFixed(1)} when it started`,
    `- command: \`${command}\` (runs \`${["fuselab", ...args.slice(1)].join(" ").split(work).join("$WORK")}\`)`,
    `- sandbox: ${c.sandbox}${c.copyCeilingGBs !== undefined ? `; copy ceiling ${c.copyCeilingGBs.toFixed(1)} GB/s` : ""}`,
    `- **${seconds.toFixed(1)} s** for all ${o.count}, reports included (${(seconds / o.count).toFixed(2)} s a submission); target ${target} s: ${seconds < target ? "met" : "NOT met"}`,
    `- by device: ${[...byDevice.entries()].map(([d, b]) => `${d}: ${b.count} submissions, ${(b.ms / 1000).toFixed(0)} s of grading`).join("; ")}`,
    `- every verdict as its fixture expects: ${wrong.length === 0 ? "yes" : `NO (${wrong.length} differ)`}`,
    "",
    "| fixture | submissions | expected | verdicts |",
    "| --- | ---: | --- | --- |",
    ...[...rows.entries()].map(([file, r]) => `| ${path.basename(file)} | ${r.count} | ${r.expected} | ${[...r.got.entries()].map(([v, n]) => `${v} ${n}`).join(", ")} |`),
    "",
  ];
  fs.mkdirSync(o.out, { recursive: true });
  const host = os.hostname().replace(/[^A-Za-z0-9-]/g, "-");
  const report = path.join(o.out, `grade-${host}-${o.device}-${o.count}-${date}.md`);
  fs.writeFileSync(report, lines.join("\n"));
  console.log(lines.join("\n"));
  console.log(`written to ${report}`);
  fs.rmSync(work, { recursive: true, force: true });
  if (wrong.length > 0) {
    console.error(wrong.join("\n"));
    process.exitCode = 1;
  }
}

if (require.main === module) {
  try {
    const argv = process.argv.slice(2);
    if (argv[0] === "generate") {
      const count = Number(argv[argv.indexOf("--count") + 1]);
      const dir = argv[argv.indexOf("--dir") + 1];
      if (!Number.isInteger(count) || count < 1 || !argv.includes("--dir") || !dir) throw new Error(USAGE);
      for (const g of generate(count, path.resolve(dir))) console.log(`${g.file}\t${path.basename(g.fixture.file)}`);
    } else run(parse(argv));
  } catch (e) {
    console.error((e as Error).message);
    process.exitCode = 1;
  }
}
