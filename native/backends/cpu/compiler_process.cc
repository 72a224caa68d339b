#include "compiler_process.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>

namespace fl::cpu {

namespace {

// Output files (the module, the log) larger than this end the compile.
const rlim_t kMostOutputBytes = rlim_t(1) << 30;
// A compiler using more memory fails instead of taking the machine's (an #include of /dev/zero).
const rlim_t kMostCompilerBytes = rlim_t(4) << 30;

// How long the guard waits for the compiler's leftovers to die once killed.
const int kMostReapMs = 2000;

// The guard's state, for its SIGTERM handler.
volatile sig_atomic_t stop_requested = 0;
volatile pid_t compiler_group = 0;

// The guard's SIGTERM: from run_process to stop the compile, or from the kernel
// when the thread that started the guard died.
void stop_compiler(int) {
  stop_requested = 1;
  if (compiler_group > 0) kill(-compiler_group, SIGKILL);
}

// In the freshly forked guard and compiler: only async-signal-safe calls.
void reset_signals() {
  struct sigaction plain = {};
  plain.sa_handler = SIG_DFL;
  sigemptyset(&plain.sa_mask);
  for (int sig = 1; sig < NSIG; sig++)
    if (sig != SIGKILL && sig != SIGSTOP) sigaction(sig, &plain, nullptr);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
}

// Sets a limit to `most`, or keeps a tighter one already set (a sandbox's):
// raising a hard limit would fail.
bool lower_limit(int resource, rlim_t most) {
  rlimit current = {};
  if (getrlimit(resource, &current) != 0) return false;
  const rlim_t value = current.rlim_max < most ? current.rlim_max : most;
  const rlimit lowered = {value, value};
  return setrlimit(resource, &lowered) == 0;
}

[[noreturn]] void run_compiler(const char* program, char* const* argv, char* const* envp, const char* folder,
                               const char* output_path, int report_fd) {
  setpgid(0, 0);
  int output = open(output_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  int nothing = open("/dev/null", O_RDONLY | O_CLOEXEC);
  int error = 0;
  if (output < 0 || nothing < 0 || chdir(folder) != 0 || dup2(nothing, 0) < 0 || dup2(output, 1) < 0 ||
      dup2(output, 2) < 0 || !lower_limit(RLIMIT_CORE, 0) || !lower_limit(RLIMIT_FSIZE, kMostOutputBytes) ||
      !lower_limit(RLIMIT_AS, kMostCompilerBytes))
    error = errno;
  else
    execve(program, argv, envp);
  if (error == 0) error = errno;
  ssize_t ignored = write(report_fd, &error, sizeof error);
  (void)ignored;
  _exit(127);
}

// The guard stands between fuselab and the compiler. The compiler gets a
// process group of its own, which the guard kills when asked to stop (SIGTERM)
// and when the thread that started it dies (the kernel then sends SIGTERM).
// As a subreaper, it inherits whatever the compiler leaves behind, and exits
// only when all of it is gone, with the compiler's status.
[[noreturn]] void guard(pid_t starter, const char* program, char* const* argv, char* const* envp, const char* folder,
                        const char* output_path, int report_fd) {
  reset_signals();
  struct sigaction on_stop = {};
  on_stop.sa_handler = stop_compiler;
  sigemptyset(&on_stop.sa_mask);
  sigaction(SIGTERM, &on_stop, nullptr);
  prctl(PR_SET_CHILD_SUBREAPER, 1);
  prctl(PR_SET_PDEATHSIG, SIGTERM);
  if (getppid() != starter) _exit(127);  // the starter died before the line above
  const pid_t compiler = fork();
  if (compiler == 0) {
    struct sigaction plain = {};
    plain.sa_handler = SIG_DFL;
    sigaction(SIGTERM, &plain, nullptr);
    run_compiler(program, argv, envp, folder, output_path, report_fd);
  }
  close(report_fd);
  if (compiler < 0) _exit(127);
  setpgid(compiler, compiler);  // also here, so that the group exists before any kill, whichever runs first
  compiler_group = compiler;
  if (stop_requested) kill(-compiler, SIGKILL);
  // WNOWAIT: the compiler stays a zombie while its group is killed, so its id cannot be reused meanwhile.
  siginfo_t info = {};
  while (waitid(P_PID, compiler, &info, WEXITED | WNOWAIT) < 0 && errno == EINTR) {
  }
  kill(-compiler, SIGKILL);
  int status = 0;
  while (waitpid(compiler, &status, 0) < 0 && errno == EINTR) {
  }
  // What the compiler started and left, now the guard's children, killed with
  // its group above. One that left the group (a compile server) is left alone.
  for (int waited_ms = 0; waited_ms < kMostReapMs; waited_ms++) {
    const pid_t reaped = waitpid(-1, nullptr, WNOHANG);
    if (reaped < 0 && errno == ECHILD) break;
    if (reaped > 0) continue;
    timespec pause = {0, 1000000};
    nanosleep(&pause, nullptr);
  }
  _exit(WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
}

std::vector<char*> c_strings(std::vector<std::string>& words) {
  std::vector<char*> pointers;
  for (std::string& word : words) pointers.push_back(&word[0]);
  pointers.push_back(nullptr);
  return pointers;
}

}  // namespace

process_result run_process(const std::string& program, const std::vector<std::string>& arguments,
                           const std::vector<std::string>& environment, const std::string& folder,
                           const std::string& output_path, const process_limits& limits) {
  process_result result;
  // Everything the children use is made before fork: after it they may not allocate.
  std::vector<std::string> argument_copy = arguments, environment_copy = environment;
  std::vector<char*> argv = c_strings(argument_copy), envp = c_strings(environment_copy);
  int report[2];
  if (pipe2(report, O_CLOEXEC) != 0) {
    result.error = errno;
    return result;
  }
  const pid_t self = getpid();
  const pid_t guard_pid = fork();
  if (guard_pid == 0) guard(self, program.c_str(), argv.data(), envp.data(), folder.c_str(), output_path.c_str(), report[1]);
  close(report[1]);
  if (guard_pid < 0) {
    result.error = errno;
    close(report[0]);
    return result;
  }

  const auto start = std::chrono::steady_clock::now();
  long tick_ns = 1000000;
  int status = 0;
  for (;;) {
    pid_t done = waitpid(guard_pid, &status, WNOHANG);
    if (done == guard_pid) break;
    if (done < 0 && errno != EINTR) break;
    const auto elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start);
    bool stop = false;
    if (limits.timeout_ms > 0 && elapsed.count() >= limits.timeout_ms) {
      result.outcome = process_outcome::timed_out;
      stop = true;
    } else if (limits.should_stop && limits.should_stop()) {
      result.outcome = process_outcome::stopped;
      stop = true;
    }
    if (stop) {
      // The guard kills the compiler's group and returns once every process of it is gone.
      kill(guard_pid, SIGTERM);
      while (waitpid(guard_pid, &status, 0) < 0 && errno == EINTR) {
      }
      break;
    }
    timespec pause = {0, tick_ns};
    nanosleep(&pause, nullptr);
    tick_ns = std::min(tick_ns * 2, 20000000L);
  }
  int start_error = 0;
  ssize_t got;
  while ((got = read(report[0], &start_error, sizeof start_error)) < 0 && errno == EINTR) {
  }
  close(report[0]);
  if (result.outcome == process_outcome::timed_out || result.outcome == process_outcome::stopped) return result;
  if (got == sizeof start_error) {
    result.outcome = process_outcome::not_started;
    result.error = start_error;
  } else if (WIFEXITED(status) && WEXITSTATUS(status) < 128) {
    result.outcome = process_outcome::exited;
    result.code = WEXITSTATUS(status);
  } else {
    result.outcome = process_outcome::killed_by_signal;
    result.code = WIFEXITED(status) ? WEXITSTATUS(status) - 128 : WTERMSIG(status);
  }
  return result;
}

}  // namespace fl::cpu
