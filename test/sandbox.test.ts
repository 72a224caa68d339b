// A hostile student's attacks, each submitted to the grader as exercise 01.
// On the CPU emulator device code is host code, so each tries something a
// submission must not be able to do from inside the sandbox. Each kernel
// writes the right answer only when its attack worked, so a "passed" verdict
// would mean the attack succeeded; where an attack would leave a trace
// outside the sandbox (a file, a signal), the test looks for it too.
// On a GPU the same sources do not compile (host calls in device code): they fail there as well.
import { expect } from "chai";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { gradeClass } from "../src/grading/grade";
import { packageRoot } from "../src/native";
import { sandboxProblem, useSandbox } from "../src/grading/sandbox";
import { SubmissionResult } from "../src/grading/results";
import { graderDevice } from "./graders/suite";

const F16_KERNEL = `
__global__ void add_relu_f16x8(__half* out, const __half* a, const __half* b, int n) {
  const int v = blockIdx.x * blockDim.x + threadIdx.x;
  for (int i = v * 8; i < n && i < v * 8 + 8; i++) out[i] = __float2half(fmaxf(__half2float(a[i]) + __half2float(b[i]), 0.0f));
}`;

/** A submission whose add_relu is right only when `attack()` (run once a process) returns nonzero. */
function attackSource(prelude: string, attackBody: string): string {
  return `${prelude}
static int attack() {
${attackBody}
}
__global__ void add_relu(float* out, const float* a, const float* b, int n) {
  static const int worked = attack();
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (worked && i < n) out[i] = fmaxf(a[i] + b[i], 0.0f);
}
${F16_KERNEL}`;
}

// Bubblewrap, and the unshare/setpriv/prlimit fallback (used where bubblewrap does not run).
for (const kind of ["bwrap", "unshare"] as const) describe(`the grader's sandbox (${kind}) against a hostile submission`, function () {
  this.timeout(20 * 60 * 1000);
  const device = graderDevice();
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "fuselab-probe-"));
  // A folder anyone could write to, were it visible: only the sandbox keeps a submission out.
  fs.chmodSync(work, 0o777);
  const marker = (name: string) => path.join(work, name);
  const secretVariable = "FUSELAB_PROBE_SECRET";
  const solution = path.join(packageRoot(), "solutions", "01-add-relu", "solution.hip");

  const attacks: Record<string, string> = {
    "system()": attackSource("#include <stdlib.h>", `  return system("touch ${marker("system")}") == 0;`),
    "writing a file outside": attackSource("#include <stdio.h>", `
  FILE* f = fopen("${marker("written")}", "w");
  if (!f) return 0;
  fputs("escaped", f);
  fclose(f);
  return 1;`),
    "reading the grader's environment": attackSource("#include <stdlib.h>\n#include <string.h>", `
  const char* home = getenv("HOME");
  return getenv("${secretVariable}") != 0 || getenv("USER") != 0 || (home && strcmp(home, "${os.homedir()}") == 0);`),
    "reading ~/.ssh, home and the solutions": attackSource("#include <stdio.h>\n#include <dirent.h>", `
  const char* paths[] = {"/root/.ssh", "${os.homedir()}", "${path.dirname(solution)}", "/home"};
  for (const char* p : paths) {
    DIR* d = opendir(p);
    if (d) { closedir(d); return 1; }
  }
  return fopen("${solution}", "r") != 0;`),
    "fork()": attackSource("#include <unistd.h>\n#include <sys/wait.h>", `
  pid_t child = fork();
  if (child == 0) _exit(0);
  if (child > 0) { waitpid(child, 0, 0); return 1; }
  return 0;`),
    "sockets, also by raw syscall and a token-pasted name": attackSource(
      "#include <sys/socket.h>\n#include <netinet/in.h>\n#include <unistd.h>\n#include <sys/syscall.h>\n#define JOIN(a, b) a##b", `
  int fds[] = {socket(AF_INET, SOCK_STREAM, 0), (int)syscall(SYS_socket, AF_UNIX, SOCK_STREAM, 0), JOIN(sock, et)(AF_INET6, SOCK_DGRAM, 0)};
  int worked = 0;
  for (int fd : fds) if (fd >= 0) { worked = 1; close(fd); }
  return worked;`),
    "signals to other processes": attackSource("#include <signal.h>\n#include <unistd.h>", `
  return kill(${process.pid}, SIGTERM) == 0 || kill(getppid(), SIGKILL) == 0 || (getpid() != 1 && kill(1, SIGKILL) == 0) || kill(-1, SIGKILL) == 0 || kill(0, SIGKILL) == 0;`),
    "reading the grader's memory, or seeing any other process": attackSource(
      "#include <sys/uio.h>\n#include <stdio.h>\n#include <unistd.h>\n#include <dirent.h>\n#include <stdlib.h>", `
  char buffer[64];
  struct iovec local = {buffer, sizeof buffer}, remote = {(void*)0x400000, sizeof buffer};
  if (process_vm_readv(${process.pid}, &local, 1, &remote, 1, 0) > 0) return 1;
  if (fopen("/proc/${process.pid}/mem", "r") != 0) return 1;
  DIR* proc = opendir("/proc");
  if (!proc) return 0;
  int others = 0;
  for (struct dirent* e; (e = readdir(proc)) != 0;) {
    int pid = atoi(e->d_name);
    if (pid > 0 && pid != getpid()) others++;
  }
  closedir(proc);
  return others > 0;`),
    "patching the plugin's function table to forge downloads": attackSource(
      "#include <dlfcn.h>\n#include <link.h>\n#include <string.h>\n#include <sys/mman.h>\n#include <stdint.h>", `
  struct table { uint32_t abi; const char* name; void* fns[40]; };
  static char library[4096];
  dl_iterate_phdr([](struct dl_phdr_info* info, size_t, void*) -> int {
    if (strstr(info->dlpi_name, "libfuselab_cpu")) { strncpy(library, info->dlpi_name, sizeof library - 1); return 1; }
    return 0;
  }, 0);
  void* handle = dlopen(library, RTLD_NOW | RTLD_NOLOAD);
  if (!handle) return 0;
  auto get = (table* (*)(void))dlsym(handle, "fuselab_backend");
  if (!get) return 0;
  table* t = get();
  uintptr_t page = (uintptr_t)t & ~(uintptr_t)4095;
  if (mprotect((void*)page, 8192, PROT_READ | PROT_WRITE) != 0) return 0;
  // download is the 11th function: every later download hands back zeros.
  t->fns[10] = (void*)+[](void*, void* dst, const void*, size_t bytes) -> int { memset(dst, 0, bytes); return 0; };
  return 1;`),
    "blocking the stop signal and spinning": attackSource("#include <signal.h>", `
  sigset_t all;
  sigfillset(&all);
  sigprocmask(SIG_BLOCK, &all, 0);
  pthread_sigmask(SIG_BLOCK, &all, 0);
  for (volatile int spin = 1; spin;) {
  }
  return 0;`),
    "a thread that outlives the launch": attackSource("#include <thread>\n#include <atomic>", `
  static std::atomic<int> ticks{0};
  try {
    std::thread([] { for (;;) ticks++; }).detach();
  } catch (...) {
    return 0;
  }
  return 1;`),
    "setting $CXX for later compiles": attackSource("#include <stdlib.h>\n#include <stdio.h>", `
  FILE* f = fopen("/tmp/evil-cxx", "w");
  if (f) { fprintf(f, "#!/bin/sh\\ntouch ${marker("cxx")}\\nexec c++ \\"$@\\"\\n"); fclose(f); }
  setenv("CXX", "/tmp/evil-cxx", 1);
  return 0;`),
    "#include </etc/passwd>": `#include </etc/passwd>\n${attackSource("", "  return 1;")}`,
    "__has_include of the grader's files": `#if __has_include(</etc/passwd>) || __has_include("${solution}") || __has_include("${path.join(packageRoot(), "exercises", "01-add-relu", "exercise.ts")}")
${attackSource("", "  return 1;")}
#else
${attackSource("", "  return 0;")}
#endif`,
    ".incbin of the grader's files": attackSource(
      `__asm__(".section .rodata\\n.global probe_blob\\nprobe_blob:\\n.incbin \\"${solution}\\"\\n.byte 0\\n.previous");\nextern "C" const char probe_blob[];\n#include <string.h>`,
      "  return strstr(probe_blob, \"BEGIN SOLUTION\") != 0;"),
    "__attribute__((constructor)) at compile time": attackSource("#include <stdlib.h>\n#include <stdio.h>", `  return 0;
}
__attribute__((constructor)) static void at_load() {
  system("touch ${marker("constructor")}");
  FILE* f = fopen("${marker("constructor-file")}", "w");
  if (f) fclose(f);`),
  };

  const names = Object.keys(attacks);
  let results: SubmissionResult[] = [];
  const log = (r: SubmissionResult) => `${r.verdict}\n${r.tests.map((t) => `${t.name}: ${t.verdict}: ${t.message}`).join("\n")}\n${r.compile.log}\n${r.log}`;

  before(async function () {
    // The GPU machine may have no bubblewrap (then the fallback is what grades there); CI installs it and requires it.
    const problem = sandboxProblem(kind);
    if (problem) {
      if (process.env.FUSELAB_REQUIRE_BWRAP === "1" || kind === "unshare") throw new Error(`${kind} cannot run here: ${problem}`);
      this.skip();
    }
    const files = names.map((name, i) => {
      const file = path.join(work, `attack-${i}.hip`);
      fs.writeFileSync(file, attacks[name]);
      return file;
    });
    process.env[secretVariable] = "the grader's secret";
    useSandbox(kind);
    try {
      // The solution last: whatever came before, it is graded as usual.
      results = await gradeClass("01-add-relu", [...files, solution], { device, jobs: 2, limits: { compileMs: 120_000, testMs: 20_000 } });
    } finally {
      delete process.env[secretVariable];
      useSandbox(undefined);
    }
  });

  after(() => fs.rmSync(work, { recursive: true, force: true }));

  names.forEach((name, i) => {
    it(`${name}: fails`, () => {
      expect(results[i].verdict, log(results[i])).to.not.equal("passed");
      expect(results[i].tests.filter((t) => t.verdict === "passed").map((t) => t.name)).to.not.include("f32 small");
    });
  });

  it("leaves no trace outside the sandbox, and the solution after the attacks passes", () => {
    expect(fs.readdirSync(work).filter((f) => !f.startsWith("attack-"))).to.deep.equal([]);
    expect(results[names.length].verdict, log(results[names.length])).to.equal("passed");
  });

  it(`runs every submission in ${kind}`, () => {
    for (const r of results) expect(r.sandbox).to.match(kind === "bwrap" ? /^bubblewrap, / : /^unshare\/setpriv\/prlimit, /);
  });

  it("shows no file of the system in a compile error", () => {
    const r = results[names.indexOf("#include </etc/passwd>")];
    expect(r.verdict).to.equal("compile_error");
    expect(r.compile.log).to.not.match(/root:|nobody:|\/bin\/(ba)?sh/);
    expect(r.compile.log).to.not.contain(packageRoot());
  });
});
