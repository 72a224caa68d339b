// The command that starts a submission's process in a sandbox: its own
// network (none), process, IPC and host-name namespaces; a read-only view of
// the system with only what running a kernel needs (the C++ compiler, Node,
// fuselab's compiled library, addon and kernel headers), so no solutions,
// tests, other submissions, caches or home folders; a private writable tmp; no
// root; resource limits. Bubblewrap does this where it runs; util-linux's
// unshare, setpriv and prlimit do the same where it does not. Inside, the
// process locks itself with seccomp before loading the submission (runner.ts).
import { spawnSync } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { packageRoot } from "../native";

export type SandboxKind = "bwrap" | "unshare";

export interface SandboxOptions {
  device: "cpu" | "gpu";
  /** GPU index (CUDA_VISIBLE_DEVICES / HIP_VISIBLE_DEVICES), on a GPU. */
  gpu?: number;
  /** Submissions running at once (their processes share the unprivileged user's process limit). */
  jobs: number;
}

export interface SandboxCommand {
  command: string;
  args: string[];
  env: Record<string, string>;
  kind: SandboxKind;
}

/** Where the package appears inside the sandbox. */
const INSIDE = "/fuselab";
/** The unprivileged user and group a root grader runs submissions as (nobody). */
const NOBODY = 65534;

/** Resource limits of a submission's process. */
export function limits(options: SandboxOptions): Record<string, string> {
  const gib = 2 ** 30;
  const result: Record<string, string> = {
    // Writable private memory: the GPU driver reserves address space it does not write, which this does not count.
    data: String((options.device === "gpu" ? 64 : 4) * gib),
    // soft:hard. The compiler's own guard sets 1 GiB for its output, which a lower hard limit would refuse.
    fsize: `${256 * 2 ** 20}:${2 ** 30}`,
    nofile: "1024",
    cpu: "600",
    core: "0",
  };
  if (process.getuid?.() === 0) result.nproc = String(256 + 64 * options.jobs);
  return result;
}

let detected: SandboxKind | undefined;

function works(command: string, args: string[]): string {
  const r = spawnSync(command, args, { encoding: "utf8", timeout: 20000 });
  if (r.error) return `${command}: ${r.error.message}`;
  if (r.status !== 0) return `${command}: ${(r.stderr || r.stdout || `exit ${r.status}`).trim()}`;
  return "";
}

/** Why a sandbox kind does not work here ("" when it does). */
export function sandboxProblem(kind: SandboxKind): string {
  if (kind === "bwrap") return works("bwrap", ["--unshare-all", "--die-with-parent", "--ro-bind", "/", "/", "--proc", "/proc", "true"]);
  const unshareArgs = process.getuid?.() === 0 ? [] : ["--map-root-user"];
  return works("unshare", [...unshareArgs, "--mount", "--net", "--pid", "--ipc", "--uts", "--fork", "true"]);
}

/** Which sandbox works here: bubblewrap, else unshare; throws saying why neither does. */
export function sandboxKind(): SandboxKind {
  if (detected) return detected;
  const bwrap = sandboxProblem("bwrap");
  if (!bwrap) return (detected = "bwrap");
  const unshare = sandboxProblem("unshare");
  if (!unshare) return (detected = "unshare");
  throw new Error(`no sandbox can be made here: ${bwrap}; ${unshare}`);
}

/** Forces a sandbox kind (tests of the fallback), or undefined to detect again. */
export function useSandbox(kind: SandboxKind | undefined): void {
  detected = kind;
}

// Node installed outside /usr (nvm, a tarball, a copy unpacked in /tmp) is bound
// at a fixed place inside: its own folder may lie where the sandbox shows
// nothing (under /tmp or a home folder).
const NODE_INSIDE = `${INSIDE}/node`;

function nodeInstall(): { prefix: string; executable: string } | undefined {
  const executable = fs.realpathSync(process.execPath);
  const prefix = path.dirname(path.dirname(executable));
  return prefix === "/usr" || prefix.startsWith("/usr/") ? undefined : { prefix, executable };
}

/** The node executable's path inside the sandbox. */
function nodeInside(): string {
  const node = nodeInstall();
  return node ? path.posix.join(NODE_INSIDE, path.relative(node.prefix, node.executable)) : process.execPath;
}

/** Folders the submission's process reads, outside → inside. */
function readOnlyMounts(): [string, string][] {
  const root = packageRoot();
  const mounts: [string, string][] = [
    [path.join(root, "dist", "src"), `${INSIDE}/dist/src`],
    [path.join(root, "build", "Release"), `${INSIDE}/build/Release`],
    [path.join(root, "kernels"), `${INSIDE}/kernels`],
    ["/usr", "/usr"],
  ];
  const node = nodeInstall();
  if (node) mounts.push([node.prefix, NODE_INSIDE]);
  for (const p of ["/etc/alternatives", "/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/opt/rocm"]) {
    if (fs.existsSync(p)) mounts.push([p, p]);
  }
  return mounts;
}

/** /bin, /lib, /lib64, /sbin: symlinks into /usr on merged systems, folders elsewhere. */
function topLevelLinks(): { links: [string, string][]; dirs: string[] } {
  const links: [string, string][] = [];
  const dirs: string[] = [];
  for (const p of ["/bin", "/lib", "/lib64", "/lib32", "/sbin"]) {
    let stat: fs.Stats;
    try {
      stat = fs.lstatSync(p);
    } catch {
      continue;
    }
    if (stat.isSymbolicLink()) links.push([fs.readlinkSync(p), p]);
    else if (stat.isDirectory()) dirs.push(p);
  }
  return { links, dirs };
}

function gpuDevices(): string[] {
  return fs.readdirSync("/dev").filter((d) => /^(nvidia|kfd$|dri$)/.test(d)).map((d) => `/dev/${d}`);
}

function environment(options: SandboxOptions): Record<string, string> {
  const env: Record<string, string> = {
    PATH: "/usr/local/bin:/usr/bin:/bin",
    HOME: "/tmp/home",
    FUSELAB_CACHE: "/tmp/cache",
    LANG: "C.UTF-8",
  };
  if (options.gpu !== undefined) {
    env.CUDA_VISIBLE_DEVICES = String(options.gpu);
    env.HIP_VISIBLE_DEVICES = String(options.gpu);
  }
  return env;
}

function runnerArgs(options: SandboxOptions): string[] {
  return [nodeInside(), `${INSIDE}/dist/src/grading/runner.js`, "--device", options.device, "--own-pid-namespace"];
}

/** setpriv and prlimit in front of a command: nobody when root, and the limits. */
function dropAndLimit(options: SandboxOptions, inner: string[]): string[] {
  const prlimit = ["prlimit", ...Object.entries(limits(options)).map(([k, v]) => `--${k}=${v}`), "--"];
  const drop = process.getuid?.() === 0
    ? ["setpriv", `--reuid=${NOBODY}`, `--regid=${NOBODY}`, "--clear-groups", "--inh-caps=-all", "--bounding-set=-all", "--no-new-privs", "--"]
    : [];
  return [...drop, ...prlimit, ...inner];
}

function bwrapCommand(options: SandboxOptions): SandboxCommand {
  // --as-pid-1: the runner is its namespace's first process, so no other process (not even bwrap's) is there to look at.
  const args = ["--unshare-all", "--as-pid-1", "--die-with-parent", "--new-session", "--cap-drop", "ALL"];
  for (const [from, to] of readOnlyMounts()) args.push("--ro-bind", from, to);
  const { links, dirs } = topLevelLinks();
  for (const [target, link] of links) args.push("--symlink", target, link);
  for (const dir of dirs) args.push("--ro-bind", dir, dir);
  args.push("--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp", "--dir", "/tmp/home", "--chdir", "/tmp");
  if (options.device === "gpu") {
    for (const d of gpuDevices()) args.push("--dev-bind", d, d);
    args.push("--ro-bind", "/sys", "/sys");
  }
  const full = dropAndLimit(options, ["bwrap", ...args, "--", ...runnerArgs(options)]);
  return { command: full[0], args: full.slice(1), env: environment(options), kind: "bwrap" };
}

function quote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

// The same view as bwrap's, built by a shell in a new mount namespace: a tmpfs
// root with read-only binds, then chroot, drop and limit.
function unshareCommand(options: SandboxOptions): SandboxCommand {
  // The new root is a tmpfs over /mnt, seen in this mount namespace only
  // (a fresh folder in /tmp where /mnt holds what must be bound).
  const overMnt = fs.existsSync("/mnt") && !readOnlyMounts().some(([from]) => from.startsWith("/mnt/"));
  const lines = [
    "set -eu",
    overMnt ? "R=/mnt" : "R=$(mktemp -d)",
    `mount -t tmpfs -o mode=755 fuselab-root "$R"`,
    `bind_ro() { mkdir -p "$R$2"; if [ -d "$1" ]; then :; else rmdir "$R$2"; touch "$R$2"; fi; mount --rbind "$1" "$R$2"; mount -o remount,bind,ro "$R$2"; }`,
  ];
  for (const [from, to] of readOnlyMounts()) lines.push(`bind_ro ${quote(from)} ${quote(to)}`);
  const { links, dirs } = topLevelLinks();
  for (const [target, link] of links) lines.push(`ln -s ${quote(target)} "$R"${quote(link)}`);
  for (const dir of dirs) lines.push(`bind_ro ${quote(dir)} ${quote(dir)}`);
  lines.push(
    `mkdir -p "$R/proc" "$R/dev" "$R/tmp"`,
    `mount -t proc proc "$R/proc"`,
    `mount -t tmpfs -o mode=1777 fuselab-tmp "$R/tmp"`,
    `mkdir -m 777 "$R/tmp/home"`,
    `mount -t tmpfs -o mode=755 fuselab-dev "$R/dev"`,
  );
  const devices = ["/dev/null", "/dev/zero", "/dev/urandom", "/dev/random", ...(options.device === "gpu" ? gpuDevices() : [])];
  for (const d of devices) lines.push(`if [ -d ${quote(d)} ]; then mkdir -p "$R"${quote(d)}; else touch "$R"${quote(d)}; fi; mount --rbind ${quote(d)} "$R"${quote(d)}`);
  if (options.device === "gpu") lines.push(`mkdir -p "$R/sys"`, `mount --rbind /sys "$R/sys"`, `mount -o remount,bind,ro "$R/sys"`);
  const chroot = ["/usr/sbin/chroot", "/sbin/chroot", "/usr/bin/chroot"].find((p) => fs.existsSync(p)) ?? "chroot";
  lines.push(`cd "$R/tmp"`, `exec ${chroot} "$R" ${dropAndLimit(options, ["sh", "-c", `cd /tmp && exec ${runnerArgs(options).map(quote).join(" ")}`]).map(quote).join(" ")}`);
  const unshare = ["unshare", ...(process.getuid?.() === 0 ? [] : ["--map-root-user"]), "--mount", "--net", "--pid", "--ipc", "--uts", "--fork", "--kill-child", "--mount-proc",
    "sh", "-c", lines.join("\n")];
  return { command: unshare[0], args: unshare.slice(1), env: environment(options), kind: "unshare" };
}

/** The command that starts a sandboxed runner for one submission. */
export function sandboxCommand(options: SandboxOptions): SandboxCommand {
  return sandboxKind() === "bwrap" ? bwrapCommand(options) : unshareCommand(options);
}

/** What the sandbox is, in words (for reports and `fuselab grade --sandbox`). */
export function describeSandbox(): string {
  const kind = sandboxKind();
  const user = process.getuid?.() === 0 ? `as nobody (${NOBODY})` : `as ${os.userInfo().username}`;
  return `${kind === "bwrap" ? "bubblewrap" : "unshare/setpriv/prlimit"}, ${user}, no network, read-only system, private /tmp, seccomp`;
}
