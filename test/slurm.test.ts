// `fuselab grade --slurm` and `fuselab grade merge` against a real single-node
// Slurm (slurm-wlm), started here with its own munge daemon, ports and state
// folder, and stopped afterwards. Needs root and the Debian packages slurm-wlm
// and munge; CI has both (FUSELAB_REQUIRE_SLURM=1 makes their absence a failure).
import { expect } from "chai";
import { execFileSync, spawnSync } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { solutionsDir } from "../src/grading/exercise";

const CLI = path.join(__dirname, "..", "src", "cli.js");
const DAEMONS = ["/usr/sbin/munged", "/usr/sbin/slurmctld", "/usr/sbin/slurmd", "/usr/bin/sbatch", "/usr/bin/squeue", "/usr/bin/sinfo"];

function missing(): string {
  if (process.getuid?.() !== 0) return "not root";
  const absent = DAEMONS.filter((d) => !fs.existsSync(d));
  return absent.length > 0 ? `${absent.join(", ")} not installed (apt-get install slurm-wlm munge)` : "";
}

async function waitFor(what: string, ms: number, done: () => boolean): Promise<void> {
  const end = Date.now() + ms;
  while (!done()) {
    if (Date.now() > end) throw new Error(`${what}: not within ${ms / 1000} s`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

describe("fuselab grade on Slurm", function () {
  this.timeout(20 * 60 * 1000);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "fuselab-slurm-"));
  const env = { ...process.env, SLURM_CONF: path.join(dir, "slurm.conf") };
  const run = (command: string, args: string[]) => spawnSync(command, args, { env, encoding: "utf8", timeout: 60_000 });
  const pidOf = (name: string) => Number(fs.readFileSync(path.join(dir, name), "utf8").trim());
  const munge = path.join(dir, "munge");

  before(async function () {
    const why = missing();
    if (why) {
      if (process.env.FUSELAB_REQUIRE_SLURM === "1") throw new Error(`Slurm test required but cannot run: ${why}`);
      this.skip();
    }
    fs.mkdirSync(munge, { mode: 0o700 });
    fs.writeFileSync(path.join(munge, "munge.key"), Buffer.from(Array.from({ length: 128 }, () => Math.floor(Math.random() * 256))), { mode: 0o600 });
    execFileSync("munged", ["--force", `--socket=${munge}/socket`, `--key-file=${munge}/munge.key`, `--log-file=${munge}/log`,
      `--pid-file=${munge}/pid`, `--seed-file=${munge}/seed`]);
    // Ports of its own, so that no other Slurm on the machine is disturbed.
    const port = 20000 + (process.pid % 20000);
    const host = os.hostname();
    fs.mkdirSync(path.join(dir, "state"));
    fs.mkdirSync(path.join(dir, "spool"));
    fs.writeFileSync(env.SLURM_CONF, [
      "ClusterName=fuselabgrade", `SlurmctldHost=${host}`, `SlurmctldPort=${port}`, `SlurmdPort=${port + 1}`,
      "AuthType=auth/munge", "CredType=cred/munge", `AuthInfo=socket=${munge}/socket`, "SlurmUser=root", "SlurmdUser=root",
      `StateSaveLocation=${dir}/state`, `SlurmdSpoolDir=${dir}/spool`,
      `SlurmctldPidFile=${dir}/slurmctld.pid`, `SlurmdPidFile=${dir}/slurmd.pid`,
      `SlurmctldLogFile=${dir}/slurmctld.log`, `SlurmdLogFile=${dir}/slurmd.log`,
      "ProctrackType=proctrack/linuxproc", "TaskPlugin=task/none", "JobAcctGatherType=jobacct_gather/none",
      "SchedulerType=sched/builtin", "SelectType=select/cons_tres", "SelectTypeParameters=CR_CPU", "MpiDefault=none", "ReturnToService=2",
      `NodeName=${host} CPUs=${os.cpus().length} State=UNKNOWN`, "PartitionName=grading Nodes=ALL Default=YES MaxTime=INFINITE State=UP", "",
    ].join("\n"));
    execFileSync("slurmctld", ["-i"], { env });
    execFileSync("slurmd", [], { env });
    await waitFor("the Slurm node to come up idle", 60_000, () => /idle/.test(run("sinfo", ["-h", "-o", "%T"]).stdout ?? ""));
  });

  after(() => {
    for (const pid of ["slurmd.pid", "slurmctld.pid"]) {
      try {
        process.kill(pidOf(pid), "SIGTERM");
      } catch {
        // not started, or gone
      }
    }
    if (fs.existsSync(path.join(munge, "pid"))) spawnSync("munged", ["-s", `--socket=${munge}/socket`]);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("writes a job array of chunks, runs it, and merges the parts into the class reports", async () => {
    const fixture = (name: string) => path.join(solutionsDir(), "01-add-relu", name);
    const files = [fixture("solution.hip"), fixture("fixtures/off-by-one.hip"), fixture("fixtures/relu-of-each-input.hip")];
    const out = path.join(dir, "grades");
    const written = execFileSync(process.execPath, [CLI, "grade", "--slurm", "--exercise", "01", ...files, "--chunk", "2", "--out", out], { env, encoding: "utf8" });
    expect(written).to.match(/a job array of 2 tasks \(3 submissions, 2 a task\)/);
    const job = path.join(out, "slurm", "job.sh");
    expect(fs.statSync(job).mode & 0o077, "the job script holds the secret: the instructor's alone").to.equal(0);
    expect(fs.readFileSync(job, "utf8")).to.match(/#SBATCH --array=0-1/);

    const submitted = run("sbatch", ["--parsable", job]);
    expect(submitted.status, submitted.stderr).to.equal(0);
    const id = submitted.stdout.trim().split(";")[0];
    await waitFor(`job ${id}`, 15 * 60_000, () => (run("squeue", ["-h", "-j", id]).stdout ?? "").trim() === "");
    expect(fs.readdirSync(path.join(out, "parts")).sort()).to.deep.equal(["0", "1"]);

    const merged = spawnSync(process.execPath, [CLI, "grade", "merge", out], { env, encoding: "utf8" });
    expect(merged.status, merged.stderr).to.equal(0);
    const c = JSON.parse(fs.readFileSync(path.join(out, "class.json"), "utf8"));
    expect(c.submissions.map((s: { student: string; verdict: string }) => `${s.student} ${s.verdict}`)).to.deep.equal([
      "solution passed", "off-by-one nan", "relu-of-each-input wrong_answer"]);
    expect(fs.readFileSync(path.join(out, "gradebook.csv"), "utf8").trim().split("\n")).to.have.length(4);
    expect(merged.stdout).to.match(/3 submissions/);
  });
});
