// Reports, all written from the one result schema (results.ts):
//
//   OUT/submissions/<student>.json   everything, for the instructor (written as each finishes)
//   OUT/feedback/<student>.json      what the student may see now: hidden tests' details withheld
//   OUT/gradescope/<student>/results.json   Gradescope's format, with its visibility levels
//   OUT/class.json                   every submission and the verdict counts
//   OUT/junit.xml                    a test suite an exercise, a test case a (student, test)
//   OUT/gradebook.csv                a row a student: score, verdict, points a test
//   OUT/grade.log                    a readable line a submission, and why it lost points
import * as fs from "fs";
import * as path from "path";
import { ClassResult, SubmissionResult, TestResult } from "./results";

/** A file name for a student that cannot leave the folder. */
export function safeName(student: string): string {
  const cleaned = student.replace(/[^A-Za-z0-9._-]/g, "_").replace(/^\.+/, "_");
  return cleaned.length > 0 ? cleaned.slice(0, 120) : "_";
}

function writeJson(file: string, value: unknown): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  // Written whole, then renamed: an interrupted run never leaves half a file.
  const temporary = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temporary, JSON.stringify(value, null, 2) + "\n");
  fs.renameSync(temporary, file);
}

/** What a student may see of a test now: a hidden (or not yet released) test's details are withheld. */
export function studentView(t: TestResult): TestResult {
  if (t.visibility === "visible") return t;
  return { name: t.name, description: t.description, visibility: t.visibility, points: t.points, maxPoints: t.maxPoints,
    verdict: t.verdict === "passed" ? "passed" : t.verdict, message: "details of this test are not shown", ms: t.ms };
}

export function feedback(r: SubmissionResult): SubmissionResult {
  return { ...r, tests: r.tests.filter((t) => t.visibility !== "hidden").map(studentView), log: "" };
}

/** Writes one submission's files (instructor, student, Gradescope) at once. */
export function writeSubmissionReports(out: string, r: SubmissionResult): void {
  const name = safeName(r.student);
  writeJson(path.join(out, "submissions", `${name}.json`), r);
  writeJson(path.join(out, "feedback", `${name}.json`), feedback(r));
  writeJson(path.join(out, "gradescope", name, "results.json"), gradescope(r));
}

function testOutput(t: TestResult): string {
  const lines = [`${t.verdict}: ${t.message}`];
  if (t.counterexample) {
    lines.push(`for example (${t.counterexample.label}):`);
    for (const row of t.counterexample.rows) {
      const inputs = Object.entries(row.inputs).map(([k, v]) => `${k}=${v}`).join(" ");
      lines.push(`  ${t.counterexample.output}[${row.index}]: expected ${row.expected}, got ${row.got}${inputs ? ` (${inputs})` : ""}`);
    }
  }
  if (t.bandwidth) lines.push(`bandwidth ${t.bandwidth.gbs.toFixed(1)} GB/s of a ${t.bandwidth.ceilingGBs.toFixed(1)} GB/s copy ceiling`);
  if (t.answer) lines.push(`expected ${t.answer.expected} ${t.answer.unit}; working: ${t.answer.working}`);
  if (t.hint) lines.push(`hint: ${t.hint}`);
  return lines.join("\n");
}

/** Gradescope's results.json for one submission. */
export function gradescope(r: SubmissionResult): Record<string, unknown> {
  const compile = r.compile.ok ? "" : `Compilation failed:\n${r.compile.log}\n`;
  return {
    score: r.score,
    execution_time: Math.round(r.ms / 1000),
    output: `${compile}${r.score} of ${r.maxScore} points (${r.verdict})`,
    visibility: "visible",
    stdout_visibility: "hidden",
    tests: r.tests.map((t) => ({
      name: t.name,
      score: t.points,
      max_score: t.maxPoints,
      status: t.verdict === "passed" ? "passed" : "failed",
      output: testOutput(t),
      visibility: t.visibility,
    })),
  };
}

function xml(text: string): string {
  return text.replace(/[<>&"']/g, (c) => ({ "<": "&lt;", ">": "&gt;", "&": "&amp;", '"': "&quot;", "'": "&apos;" })[c]!)
    // Characters XML 1.0 cannot hold (a submission's log may have any).
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, "?");
}

export function junit(c: ClassResult): string {
  const cases = c.submissions.flatMap((s) => s.tests.map((t) => ({ s, t })));
  const failures = cases.filter(({ t }) => t.verdict !== "passed" && t.verdict !== "partial" && t.verdict !== "not_run").length;
  const skipped = cases.filter(({ t }) => t.verdict === "not_run").length;
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="fuselab grade" tests="${cases.length}" failures="${failures}" skipped="${skipped}" time="${(c.ms / 1000).toFixed(3)}">`,
    `  <testsuite name="${xml(c.exercise)}" tests="${cases.length}" failures="${failures}" skipped="${skipped}" time="${(c.ms / 1000).toFixed(3)}">`,
  ];
  for (const { s, t } of cases) {
    const open = `    <testcase classname="${xml(s.student)}" name="${xml(t.name)}" time="${(t.ms / 1000).toFixed(3)}"`;
    if (t.verdict === "passed" || t.verdict === "partial") lines.push(`${open}/>`);
    else if (t.verdict === "not_run") lines.push(`${open}><skipped message="${xml(t.message)}"/></testcase>`);
    else lines.push(`${open}><failure type="${t.verdict}" message="${xml(t.message)}">${xml(testOutput(t))}</failure></testcase>`);
  }
  lines.push("  </testsuite>", "</testsuites>", "");
  return lines.join("\n");
}

function csvCell(value: string | number): string {
  const text = String(value);
  // A leading = + - @ would be a formula to a spreadsheet: quoted with a ' in front.
  const safe = /^[=+\-@]/.test(text) && typeof value === "string" ? `'${text}` : text;
  return /[",\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

export function gradebook(c: ClassResult): string {
  const names = [...new Set(c.submissions.flatMap((s) => s.tests.map((t) => t.name)))];
  const rows = [["student", "submission", "score", "max_score", "verdict", ...names]];
  for (const s of c.submissions) {
    rows.push([s.student, s.submission, String(s.score), String(s.maxScore), s.verdict,
      ...names.map((n) => String(s.tests.find((t) => t.name === n)?.points ?? ""))]);
  }
  return rows.map((r) => r.map(csvCell).join(",")).join("\n") + "\n";
}

/** One readable line a submission, then an indented line a test that lost points. */
export function logLine(s: SubmissionResult): string {
  const lines = [`${s.student.padEnd(24)} ${`${s.score}/${s.maxScore}`.padStart(9)}  ${s.verdict.padEnd(15)} ${(s.ms / 1000).toFixed(1)} s`];
  for (const t of s.tests) {
    if (t.verdict !== "passed" && t.verdict !== "not_run") lines.push(`    ${t.name}: ${t.verdict}: ${t.message.split("\n")[0]}`);
  }
  return lines.join("\n");
}

export function classLog(c: ClassResult): string {
  const counts = Object.entries(c.verdicts).map(([v, n]) => `${v} ${n}`).join(", ");
  return [
    `fuselab grade: exercise ${c.exercise} on ${c.device}, ${c.submissions.length} submissions in ${(c.ms / 1000).toFixed(1)} s`,
    `sandbox: ${c.sandbox}`,
    ...(c.copyCeilingGBs !== undefined ? [`copy ceiling: ${c.copyCeilingGBs.toFixed(1)} GB/s`] : []),
    `verdicts: ${counts}`,
    "",
    ...c.submissions.map(logLine),
    "",
  ].join("\n");
}

/** Writes the class-wide reports (the per-submission ones are written as each finishes). */
export function writeClassReports(out: string, c: ClassResult): void {
  fs.mkdirSync(out, { recursive: true });
  writeJson(path.join(out, "class.json"), c);
  fs.writeFileSync(path.join(out, "junit.xml"), junit(c));
  fs.writeFileSync(path.join(out, "gradebook.csv"), gradebook(c));
  fs.writeFileSync(path.join(out, "grade.log"), classLog(c));
}
