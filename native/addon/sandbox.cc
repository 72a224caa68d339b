// The grader's submission process locks itself with a seccomp filter before it
// loads a submission's code: from then on the process cannot create processes
// (nor threads, unless asked), open sockets, trace or read other processes, or
// signal anyone but itself. Refused calls fail with EPERM, so a submission sees
// an ordinary error and the grader sees whatever follows from it.
#include "sandbox.h"

#include <napi.h>

#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <stddef.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <string>
#include <vector>

namespace fl::addon {
namespace {

#if defined(__x86_64__)
constexpr uint32_t kArch = AUDIT_ARCH_X86_64;
#elif defined(__aarch64__)
constexpr uint32_t kArch = AUDIT_ARCH_AARCH64;
#else
#error "the grader's seccomp filter knows x86-64 and aarch64"
#endif

constexpr uint32_t kDeny = SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA);
// clone3 answers "not implemented", so the C library falls back to clone, whose
// flags the filter can read (clone3 passes them in memory).
constexpr uint32_t kNotImplemented = SECCOMP_RET_ERRNO | (ENOSYS & SECCOMP_RET_DATA);

class filter {
 public:
  void load_nr() { add(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, nr))); }
  void load_arg_low(int index) { add(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, args) + 8 * index)); }
  void ret(uint32_t action) { add(BPF_STMT(BPF_RET | BPF_K, action)); }
  // if (acc == value) return action;
  void return_if_equal(uint32_t value, uint32_t action) {
    add(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, value, 0, 1));
    ret(action);
  }
  // Syscall `nr` returns `action`, unless its first argument (low 32 bits) is `allowed_arg0`.
  void refuse_unless_arg0(int nr, uint32_t allowed_arg0, uint32_t action) {
    load_nr();
    add(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, static_cast<uint32_t>(nr), 0, 4));
    load_arg_low(0);
    add(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, allowed_arg0, 0, 1));
    ret(SECCOMP_RET_ALLOW);
    ret(action);
  }
  std::vector<sock_filter>& program() { return program_; }

 private:
  void add(sock_filter f) { program_.push_back(f); }
  std::vector<sock_filter> program_;
};

}  // namespace

std::string sandbox_lock(bool allow_process_creation, bool allow_threads) {
  filter f;
  // Another architecture's system call numbers (x32, i386) mean other calls: refused.
  f.program().push_back(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, arch)));
  f.program().push_back(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, kArch, 1, 0));
  f.ret(SECCOMP_RET_KILL_PROCESS);
#if defined(__x86_64__)
  f.load_nr();
  f.program().push_back(BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000u, 0, 1));  // x32 ABI
  f.ret(kDeny);
#endif

  const pid_t self = getpid();
  // Signals: to this process only (the emulator stops its own runaway workers this way).
  f.refuse_unless_arg0(__NR_kill, static_cast<uint32_t>(self), kDeny);
  f.refuse_unless_arg0(__NR_tgkill, static_cast<uint32_t>(self), kDeny);
  f.refuse_unless_arg0(__NR_rt_tgsigqueueinfo, static_cast<uint32_t>(self), kDeny);

  if (!allow_process_creation) {
    f.load_nr();
    f.return_if_equal(__NR_clone3, kNotImplemented);
    // clone: threads (CLONE_THREAD set) where allowed, nothing else.
    f.program().push_back(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_clone, 0, allow_threads ? 4 : 1));
    if (allow_threads) {
      f.load_arg_low(0);
      f.program().push_back(BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, CLONE_THREAD, 0, 1));
      f.ret(SECCOMP_RET_ALLOW);
    }
    f.ret(kDeny);
  }
  f.load_nr();

  const int refused[] = {
#ifdef __NR_fork
      __NR_fork,
#endif
#ifdef __NR_vfork
      __NR_vfork,
#endif
      __NR_execve, __NR_execveat,
      // sockets of every family, and what a process could do with one
      __NR_socket, __NR_socketpair, __NR_connect, __NR_bind, __NR_listen, __NR_accept, __NR_accept4,
      // other processes' memory and control
      __NR_ptrace, __NR_process_vm_readv, __NR_process_vm_writev, __NR_pidfd_open, __NR_pidfd_send_signal,
      __NR_pidfd_getfd, __NR_tkill, __NR_rt_sigqueueinfo, __NR_kcmp,
      // leaving or reshaping the sandbox
      __NR_unshare, __NR_setns, __NR_mount, __NR_umount2, __NR_pivot_root, __NR_chroot, __NR_setsid,
      __NR_bpf, __NR_perf_event_open, __NR_keyctl, __NR_add_key, __NR_request_key, __NR_io_uring_setup,
      __NR_userfaultfd, __NR_personality,
  };
  for (int nr : refused) {
    const bool process_creation = nr == __NR_execve || nr == __NR_execveat
#ifdef __NR_fork
                                  || nr == __NR_fork
#endif
#ifdef __NR_vfork
                                  || nr == __NR_vfork
#endif
        ;
    if (process_creation && allow_process_creation) continue;
    f.return_if_equal(static_cast<uint32_t>(nr), kDeny);
  }
  f.ret(SECCOMP_RET_ALLOW);

  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return std::string("prctl(PR_SET_NO_NEW_PRIVS) failed: ") + strerror(errno);
  sock_fprog program = {static_cast<unsigned short>(f.program().size()), f.program().data()};
  // TSYNC: every thread of the process, the emulator's workers included, gets the filter.
  if (syscall(__NR_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC, &program) != 0) {
    return std::string("seccomp(SECCOMP_SET_MODE_FILTER) failed: ") + strerror(errno);
  }
  return "";
}

Napi::Value sandbox_lock_call(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() != 1 || !info[0].IsObject()) throw Napi::TypeError::New(env, "sandboxLock: expected { processes, threads }");
  Napi::Object options = info[0].As<Napi::Object>();
  std::string error = sandbox_lock(options.Get("processes").ToBoolean(), options.Get("threads").ToBoolean());
  if (!error.empty()) throw Napi::Error::New(env, "sandboxLock: " + error);
  return env.Undefined();
}

}  // namespace fl::addon
