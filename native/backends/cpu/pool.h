// The cpu backend's thread pool: OS threads that run the blocks of a launch
// (fl_emu_pool's parallel_for), and the signal handling that keeps a kernel
// that crashes or runs away from taking the process with it.
#ifndef FUSELAB_CPU_POOL_H
#define FUSELAB_CPU_POOL_H

#include <stddef.h>
#include <stdint.h>

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "fuselab/emulator/abi.h"

namespace fl::cpu {

enum class stop_reason { none, fault, time_limit, cancelled };

enum class fault_access { unknown, read, write };

// Where and how a kernel crashed.
struct fault_report {
  int signal = 0;
  int code = 0;
  uintptr_t address = 0;
  fault_access access = fault_access::unknown;  // a memory fault's, where the machine says
  bool stack_overflow = false;
  bool past_shared = false;  // past the end of the block's dynamic shared memory,
  size_t shared_offset = 0;  // at this byte from its start
  bool located = false;  // `where` is known
  fl_emu_where where{};
};

// A span of machine code: [begin, end).
struct code_range {
  uintptr_t begin = 0, end = 0;
  bool contains(uintptr_t address) const { return address >= begin && address < end; }
};

// The shared object (module or plugin) holding `symbol`: its executable code,
// and the size of its thread-local block (a module's static __shared__ arrays).
struct loaded_object {
  code_range code;
  size_t thread_local_bytes = 0;
};
loaded_object object_of(const void* symbol);

struct worker;

class worker_pool {
 public:
  explicit worker_pool(int threads);
  ~worker_pool();
  worker_pool(const worker_pool&) = delete;
  worker_pool& operator=(const worker_pool&) = delete;

  // Its own threads, one a core (what the device reports as multiprocessors).
  int size() const { return threads_; }
  // What a module's launch function receives; its parallel_for runs on the
  // calling thread's behalf and returns when the job is done or stopped.
  const fl_emu_pool* api() const { return &api_; }

  // Before each launch: the time limit for its parallel_for (0: none), the
  // code of the kernel's module (where a stop may land), and a clean slate for
  // what stopped it.
  void arm(int timeout_ms, code_range kernel_code);
  stop_reason stopped() const { return stop_.load(); }
  const fault_report& fault() const { return fault_; }
  // Stops the running job; false when none runs.
  bool cancel();
  // Before a cooperative launch of `blocks` blocks: threads enough to run them
  // all at once (parallel_for_resident); false, with *error saying why, when the
  // system gives no more. They stay for later cooperative launches (starting
  // them and their fiber stacks costs more than the launch), asleep otherwise.
  bool reserve_resident(uint64_t blocks, std::string* error);

  static size_t fiber_stack_bytes();
  // fl_emu_launch.thread_offset: where each thread's fl_emu_thread lies.
  static ptrdiff_t thread_offset();

 private:
  static void parallel_for_entry(void* self, uint64_t n, fl_emu_body body, void* ctx);
  static void parallel_for_resident_entry(void* self, uint64_t n, fl_emu_body body, void* ctx);
  void parallel_for(uint64_t n, fl_emu_body body, void* ctx, int workers);
  void start_worker(uint64_t seen);
  void work(worker& w, uint64_t seen);
  void run_job(worker& w);
  void request_stop(stop_reason reason);

  fl_emu_pool api_;
  std::vector<std::unique_ptr<worker>> workers_;

  std::mutex lock_;
  std::condition_variable job_ready_;
  std::condition_variable resident_job_ready_;  // wakes the threads past threads_
  std::condition_variable job_done_;
  uint64_t generation_ = 0;
  bool shutting_down_ = false;
  bool running_ = false;
  int active_ = 0;
  int threads_ = 0;      // the pool's own; workers_ past them are a cooperative launch's
  int job_workers_ = 0;  // the first this many workers take part in the job

  // The job: written before generation_ changes, read by the workers after.
  uint64_t job_size_ = 0;
  fl_emu_body job_body_ = nullptr;
  void* job_ctx_ = nullptr;
  std::atomic<uint64_t> next_index_{0};

  int timeout_ms_ = 0;
  code_range kernel_code_;
  std::atomic<bool> forced_{false};
  std::atomic<stop_reason> stop_{stop_reason::none};
  volatile int stopping_ = 0;  // stop_ is set (fl_emu_worker.stopping)
  std::atomic<bool> fault_taken_{false};
  fault_report fault_;

};

}  // namespace fl::cpu

#endif
