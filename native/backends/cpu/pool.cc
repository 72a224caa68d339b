#include "pool.h"

#include <dlfcn.h>
#include <fenv.h>
#include <link.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <optional>
#include <string>

namespace fl::cpu {

namespace {

constexpr size_t kFiberStackBytes = 64 * 1024;
constexpr size_t kSignalStackBytes = 64 * 1024;
// The run time's: fibers, dynamic shared memory, check mode's order (or lock step's watch), the race check's shadow.
constexpr int kScratchSlots = 4;
// The slot the emulator's run time keeps a block's dynamic shared memory in (runtime.h).
constexpr int kDynamicSharedSlot = 1;
// How long a stop waits for a kernel to come back from library code (a system
// call that never returns, say) before it lands there anyway.
constexpr std::chrono::seconds kForceStopAfter{2};
// Sent to a worker to stop a launch that ran too long or was cancelled: a
// real-time signal, which Node and V8 leave alone.
int stop_signal() { return SIGRTMIN + 3; }

size_t page_bytes() {
  static const size_t bytes = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  return bytes;
}

// The offset of every thread's fl_emu_thread from its thread pointer, from
// libfuselab_thread.so beside the plugin; 0 (modules keep their own, slower to
// reach) where that library cannot be loaded, as when no static TLS is left.
ptrdiff_t find_thread_offset() {
  Dl_info self;
  if (!dladdr(reinterpret_cast<void*>(&find_thread_offset), &self) || !self.dli_fname) return 0;
  std::string folder = self.dli_fname;
  folder.erase(folder.find_last_of('/') + 1);
  void* library = dlopen((folder + "libfuselab_thread.so").c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!library) return 0;
  auto offset = reinterpret_cast<ptrdiff_t (*)()>(dlsym(library, "fuselab_thread_offset"));
  return offset ? offset() : 0;
}

}  // namespace

ptrdiff_t worker_pool::thread_offset() {
  static const ptrdiff_t offset = find_thread_offset();
  return offset;
}

// One OS thread of the pool. `api` comes first: the run time hands it back.
struct worker {
  fl_emu_worker api;
  std::thread thread;
  int index = 0;  // in the pool's workers_
  sigjmp_buf escape;
  volatile sig_atomic_t in_kernel = 0;
  volatile uint64_t job = 0;  // the generation of the job it runs: stale stop signals are ignored
  // The kernel's own code, where a stop may land: elsewhere (the C library,
  // libm) a lock may be held or a structure half updated, so the stop waits
  // until the kernel is back in its code, unless `forced`.
  code_range kernel_code;
  const std::atomic<bool>* forced = nullptr;
  fault_report fault;  // written by the signal handler before it jumps

  // A scratch buffer is pages followed by an inaccessible one; each use is placed
  // to end (to 16 bytes) where that page begins, so an access past the end of a
  // block's dynamic shared memory faults, as a GPU reports it, instead of
  // reaching whatever lies beyond.
  struct scratch_buffer {
    unsigned char* mapping = nullptr;  // `usable` bytes, then the guard page
    size_t usable = 0;
    unsigned char* start = nullptr;  // of the last use
    bool in_guard(uintptr_t address) const {
      const uintptr_t guard = reinterpret_cast<uintptr_t>(mapping) + usable;
      return mapping && address >= guard && address < guard + page_bytes();
    }
  } scratch[kScratchSlots];

  struct fiber_stack {
    unsigned char* mapping;  // guard page, then the stack
    size_t bytes;
  };
  std::vector<fiber_stack> stacks;
  void* signal_stack = nullptr;

  ~worker() {
    for (auto& s : scratch)
      if (s.mapping) munmap(s.mapping, s.usable + page_bytes());
    for (auto& s : stacks) munmap(s.mapping, s.bytes);
    free(signal_stack);
  }

  bool in_stack_guard(uintptr_t address) const {
    for (const auto& s : stacks) {
      uintptr_t guard = reinterpret_cast<uintptr_t>(s.mapping);
      if (address >= guard && address < guard + page_bytes()) return true;
    }
    return false;
  }

  static void* scratch_entry(fl_emu_worker* self, int slot, size_t bytes) {
    worker& w = *reinterpret_cast<worker*>(self);
    if (slot < 0 || slot >= kScratchSlots) return nullptr;
    scratch_buffer& s = w.scratch[slot];
    const size_t rounded = (bytes + 15) & ~size_t(15);
    if (!s.mapping || s.usable < rounded) {
      const size_t usable = std::max(page_bytes(), (rounded + page_bytes() - 1) & ~(page_bytes() - 1));
      void* mapping = mmap(nullptr, usable + page_bytes(), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (mapping == MAP_FAILED) return nullptr;
      mprotect(static_cast<unsigned char*>(mapping) + usable, page_bytes(), PROT_NONE);
      if (s.mapping) munmap(s.mapping, s.usable + page_bytes());
      s.mapping = static_cast<unsigned char*>(mapping);
      s.usable = usable;
    }
    s.start = s.mapping + s.usable - rounded;
    return s.start;
  }

  static void access_fault_entry(fl_emu_worker* self, uintptr_t address, int write) {
    worker& w = *reinterpret_cast<worker*>(self);
    w.fault = fault_report{};
    w.fault.signal = SIGSEGV;
    w.fault.code = SEGV_ACCERR;
    w.fault.address = address;
    w.fault.access = write ? fault_access::write : fault_access::read;
    // Past the end of the block's dynamic shared memory, in its last granule.
    const scratch_buffer& shared = w.scratch[kDynamicSharedSlot];
    w.fault.past_shared = shared.mapping && address >= reinterpret_cast<uintptr_t>(shared.start) &&
                          address < reinterpret_cast<uintptr_t>(shared.mapping) + shared.usable;
    w.fault.shared_offset = w.fault.past_shared ? address - reinterpret_cast<uintptr_t>(shared.start) : 0;
    const fl_emu_where* where = w.api.where;
    w.fault.located = where != nullptr;
    if (where) w.fault.where = *where;
    siglongjmp(w.escape, 1);
  }

  // The dynamic shared memory (scratch slot 1) whose end `address` lies past, if any.
  const scratch_buffer* shared_guard_holding(uintptr_t address) const {
    return scratch[kDynamicSharedSlot].in_guard(address) ? &scratch[kDynamicSharedSlot] : nullptr;
  }

  static void* fiber_stack_entry(fl_emu_worker* self, uint32_t index, size_t* bytes) {
    worker& w = *reinterpret_cast<worker*>(self);
    while (w.stacks.size() <= index) {
      size_t total = kFiberStackBytes + page_bytes();
      void* mapping = mmap(nullptr, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
      if (mapping == MAP_FAILED) return nullptr;
      // The lowest page stays inaccessible: an overflowing fiber faults there
      // instead of writing over its neighbour.
      mprotect(mapping, page_bytes(), PROT_NONE);
      w.stacks.push_back({static_cast<unsigned char*>(mapping), total});
    }
    *bytes = kFiberStackBytes;
    return w.stacks[index].mapping + page_bytes();
  }
};

namespace {

pthread_key_t current_worker_key;
struct sigaction previous_actions[NSIG];

void pass_on(int signal, siginfo_t* info, void* context) {
  const struct sigaction& previous = previous_actions[signal];
  if (previous.sa_flags & SA_SIGINFO) {
    if (previous.sa_sigaction) previous.sa_sigaction(signal, info, context);
  } else if (previous.sa_handler == SIG_DFL) {
    // Restore the default: a fault happens again on return and ends the
    // process as it would have without us; a sent signal is raised again.
    struct sigaction fallback = {};
    fallback.sa_handler = SIG_DFL;
    sigaction(signal, &fallback, nullptr);
    if (info->si_code <= 0) raise(signal);
  } else if (previous.sa_handler != SIG_IGN) {
    previous.sa_handler(signal);
  }
}

uintptr_t interrupted_at(void* context) {
  const ucontext_t* uc = static_cast<const ucontext_t*>(context);
#if defined(__x86_64__)
  return static_cast<uintptr_t>(uc->uc_mcontext.gregs[REG_RIP]);
#elif defined(__aarch64__)
  return static_cast<uintptr_t>(uc->uc_mcontext.pc);
#else
  (void)uc;
  return 0;  // unknown: only a forced stop lands
#endif
}

void on_signal(int signal, siginfo_t* info, void* context) {
  worker* w = static_cast<worker*>(pthread_getspecific(current_worker_key));
  if (signal == stop_signal()) {
    // Only while kernel code runs, and not while the run time holds stops off
    // (the supervisor tries again shortly).
    uint64_t job = reinterpret_cast<uintptr_t>(info->si_value.sival_ptr);
    if (w && w->in_kernel && w->job == job && w->api.hold == 0 &&
        (w->kernel_code.contains(interrupted_at(context)) || w->forced->load(std::memory_order_relaxed)))
      siglongjmp(w->escape, 2);
    if (!w) pass_on(signal, info, context);
    return;
  }
  // SIGABRT counts when the kernel aborted (raise), not when another process sent it.
  if (!w || !w->in_kernel || (signal == SIGABRT && info->si_code == SI_USER)) {
    pass_on(signal, info, context);
    return;
  }
  fault_report& f = w->fault;
  f.signal = signal;
  f.code = info->si_code;
  f.address = reinterpret_cast<uintptr_t>(info->si_addr);
#if defined(__x86_64__)
  // Bit 1 of the page fault's error code: the access was a write.
  if (signal == SIGSEGV)
    f.access = (static_cast<const ucontext_t*>(context)->uc_mcontext.gregs[REG_ERR] & 2) ? fault_access::write
                                                                                         : fault_access::read;
#endif
  f.stack_overflow = (signal == SIGSEGV || signal == SIGBUS) && w->in_stack_guard(f.address);
  const auto* shared = signal == SIGSEGV ? w->shared_guard_holding(f.address) : nullptr;
  f.past_shared = shared != nullptr;
  f.shared_offset = shared ? f.address - reinterpret_cast<uintptr_t>(shared->start) : 0;
  const fl_emu_where* where = w->api.where;
  f.located = where != nullptr;
  if (where) f.where = *where;
  siglongjmp(w->escape, 1);
}

void install_signal_handlers() {
  static std::once_flag once;
  std::call_once(once, [] {
    pthread_key_create(&current_worker_key, nullptr);
    for (int signal : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, stop_signal()}) {
      struct sigaction action = {};
      action.sa_sigaction = &on_signal;
      action.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART;
      sigemptyset(&action.sa_mask);
      sigaction(signal, &action, &previous_actions[signal]);
    }
  });
}

}  // namespace

loaded_object object_of(const void* symbol) {
  struct search {
    uintptr_t address;
    loaded_object found;
  } state{reinterpret_cast<uintptr_t>(symbol), {}};
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* data) {
        search& s = *static_cast<search*>(data);
        code_range code{UINTPTR_MAX, 0};
        size_t thread_local_bytes = 0;
        bool holds = false;
        for (int i = 0; i < info->dlpi_phnum; i++) {
          const ElfW(Phdr)& h = info->dlpi_phdr[i];
          if (h.p_type == PT_TLS) thread_local_bytes = h.p_memsz;
          if (h.p_type != PT_LOAD) continue;
          uintptr_t start = info->dlpi_addr + h.p_vaddr, end = start + h.p_memsz;
          if (s.address >= start && s.address < end) holds = true;
          if (h.p_flags & PF_X) code = {std::min(code.begin, start), std::max(code.end, end)};
        }
        if (!holds) return 0;
        s.found.code = code.end ? code : code_range{};
        s.found.thread_local_bytes = thread_local_bytes;
        return 1;
      },
      &state);
  return state.found;
}

size_t worker_pool::fiber_stack_bytes() { return kFiberStackBytes; }

worker_pool::worker_pool(int threads) {
  install_signal_handlers();
  api_.self = this;
  api_.parallel_for = &worker_pool::parallel_for_entry;
  api_.parallel_for_resident = &worker_pool::parallel_for_resident_entry;
  threads_ = std::max(threads, 1);
  for (int i = 0; i < threads_; i++) start_worker(0);
}

// A new worker, which takes part in the jobs after generation `seen`.
void worker_pool::start_worker(uint64_t seen) {
  auto w = std::make_unique<worker>();
  w->index = static_cast<int>(workers_.size());
  w->api.where = nullptr;
  w->api.hold = 0;
  w->api.scratch = &worker::scratch_entry;
  w->api.fiber_stack = &worker::fiber_stack_entry;
  w->api.stopping = &stopping_;
  w->api.access_fault = &worker::access_fault_entry;
  worker* raw = w.get();
  workers_.push_back(std::move(w));
  try {
    raw->thread = std::thread([this, raw, seen] { work(*raw, seen); });
  } catch (...) {
    workers_.pop_back();
    throw;
  }
}

bool worker_pool::reserve_resident(uint64_t blocks, std::string* error) {
  std::lock_guard<std::mutex> guard(lock_);
  try {
    while (workers_.size() < blocks) start_worker(generation_);
  } catch (const std::exception& e) {
    *error = "the system started " + std::to_string(workers_.size()) + " threads of the " + std::to_string(blocks) +
             " a block each needs: " + e.what();
    return false;
  }
  return true;
}

worker_pool::~worker_pool() {
  {
    std::lock_guard<std::mutex> guard(lock_);
    shutting_down_ = true;
  }
  job_ready_.notify_all();
  resident_job_ready_.notify_all();
  for (auto& w : workers_) w->thread.join();
}

void worker_pool::arm(int timeout_ms, code_range kernel_code) {
  timeout_ms_ = timeout_ms;
  kernel_code_ = kernel_code;
  forced_ = false;
  stop_ = stop_reason::none;
  stopping_ = 0;
  fault_taken_ = false;
  fault_ = fault_report{};
}

bool worker_pool::cancel() {
  std::lock_guard<std::mutex> guard(lock_);
  if (!running_) return false;
  request_stop(stop_reason::cancelled);
  job_done_.notify_all();
  return true;
}

void worker_pool::request_stop(stop_reason reason) {
  stop_reason none = stop_reason::none;
  stop_.compare_exchange_strong(none, reason);
  stopping_ = 1;
}

void worker_pool::parallel_for_entry(void* self, uint64_t n, fl_emu_body body, void* ctx) {
  auto* pool = static_cast<worker_pool*>(self);
  pool->parallel_for(n, body, ctx, pool->threads_);
}

// Every worker takes part: reserve_resident() started one for each block.
void worker_pool::parallel_for_resident_entry(void* self, uint64_t n, fl_emu_body body, void* ctx) {
  auto* pool = static_cast<worker_pool*>(self);
  pool->parallel_for(n, body, ctx, static_cast<int>(pool->workers_.size()));
}

// Runs on the device's stream thread, which supervises: it enforces the time
// limit and, once the job must stop, signals the workers still in kernel code
// until all have left it.
void worker_pool::parallel_for(uint64_t n, fl_emu_body body, void* ctx, int workers) {
  using clock = std::chrono::steady_clock;
  std::unique_lock<std::mutex> guard(lock_);
  job_size_ = n;
  job_body_ = body;
  job_ctx_ = ctx;
  next_index_ = 0;
  job_workers_ = workers;
  active_ = workers;
  running_ = true;
  generation_++;
  job_ready_.notify_all();
  if (workers > threads_) resident_job_ready_.notify_all();
  const bool limited = timeout_ms_ > 0;
  const clock::time_point deadline = clock::now() + std::chrono::milliseconds(timeout_ms_);
  std::optional<clock::time_point> stop_requested_at;
  while (active_ > 0) {
    if (stop_ == stop_reason::none) {
      if (limited) {
        if (job_done_.wait_until(guard, deadline) == std::cv_status::timeout && active_ > 0)
          request_stop(stop_reason::time_limit);
      } else {
        job_done_.wait(guard);
      }
      continue;
    }
    // A worker outside the kernel's code ignores the signal: it is sent again
    // every millisecond, and forced once the kernel has stayed out that long.
    if (!stop_requested_at) stop_requested_at = clock::now();
    if (!forced_ && clock::now() - *stop_requested_at > kForceStopAfter) forced_ = true;
    union sigval job;
    job.sival_ptr = reinterpret_cast<void*>(static_cast<uintptr_t>(generation_));
    for (auto& w : workers_)
      if (w->in_kernel) pthread_sigqueue(w->thread.native_handle(), stop_signal(), job);
    job_done_.wait_for(guard, std::chrono::milliseconds(1));
  }
  running_ = false;
}

void worker_pool::work(worker& w, uint64_t seen) {
  pthread_setspecific(current_worker_key, &w);
  w.signal_stack = malloc(kSignalStackBytes);
  stack_t alternate = {};
  alternate.ss_sp = w.signal_stack;
  alternate.ss_size = kSignalStackBytes;
  sigaltstack(&alternate, nullptr);

  for (;;) {
    {
      std::unique_lock<std::mutex> guard(lock_);
      // A thread past the pool's own wakes only for the cooperative launches it takes part in.
      const bool own = w.index < threads_;
      (own ? job_ready_ : resident_job_ready_).wait(guard, [&] {
        return shutting_down_ || (generation_ != seen && (own || w.index < job_workers_));
      });
      if (shutting_down_) break;
      seen = generation_;
    }
    w.job = seen;
    w.kernel_code = kernel_code_;
    w.forced = &forced_;
    run_job(w);
    std::lock_guard<std::mutex> guard(lock_);
    active_--;
    job_done_.notify_all();  // the supervisor looks again: all done, or a stop to pass on
  }

  stack_t off = {};
  off.ss_flags = SS_DISABLE;
  sigaltstack(&off, nullptr);
  pthread_setspecific(current_worker_key, nullptr);
}

void worker_pool::run_job(worker& w) {
  // A fault or a stop signal jumps back here from wherever the kernel was,
  // fiber stacks included. Nothing below keeps state across the jump but w.
  int jumped = sigsetjmp(w.escape, 1);
  if (jumped == 0) {
    w.in_kernel = 1;
    while (stop_.load(std::memory_order_relaxed) == stop_reason::none) {
      uint64_t i = next_index_.fetch_add(1, std::memory_order_relaxed);
      if (i >= job_size_) break;
      job_body_(job_ctx_, i, &w.api);
    }
    w.in_kernel = 0;
    return;
  }
  w.in_kernel = 0;
  w.api.hold = 0;
  // A stop may land inside an operation a kernel rounds its own way (__fadd_rz ...).
  fesetround(FE_TONEAREST);
  if (jumped == 1) {
    if (!fault_taken_.exchange(true)) fault_ = w.fault;
    request_stop(stop_reason::fault);
    job_done_.notify_all();
  }
}

}  // namespace fl::cpu
