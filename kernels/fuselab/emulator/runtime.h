// The CPU emulator's run time: how the GPU threads of a launch run on a pool of
// OS threads, with GPU semantics.
//
// Blocks are independent, so the plugin's thread pool takes them one at a time
// (run_block). Inside a block:
//  - A kernel without barriers or warp operations runs its threads as a plain
//    loop: thread 0 to the end, then thread 1, ... (loop mode).
//  - A kernel that reaches __syncthreads(), __syncwarp(), a shuffle or a vote
//    needs its threads to stop there and wait for the others, so each thread
//    gets its own stack (a fiber) and the threads take turns on the OS thread
//    (fiber mode). A block that meets its first barrier in loop mode changes
//    over on the spot: the threads that already finished count as exited, the
//    one running keeps the OS stack, the rest start as fibers. The kernel is
//    then marked, and its later blocks start as fibers.
//  - A thread that waits switches straight to the next ready thread. When none
//    is ready and some have not exited, they can never go on: a deadlock,
//    reported with what each group of threads waits at.
// Check mode fills shared memory with 0xFF (NaN) and scrambles the order in which
// threads take turns: loop mode runs the threads in a shuffled order; fiber mode
// gives each thread of a block a random priority and always runs the ready thread
// that ranks first, so some threads run far ahead of others (a whole warp through
// several shuffles before thread 0 reads what it was owed). A missing barrier then
// gives a wrong answer instead of passing by luck.
#ifndef FUSELAB_EMULATOR_RUNTIME_H
#define FUSELAB_EMULATOR_RUNTIME_H

#include <dlfcn.h>
#include <link.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <atomic>
#include <tuple>
#include <type_traits>
#include <utility>

#include "abi.h"
#include "context.h"
#include "types.h"

namespace fl {
namespace emu {

struct block_state;

// Everything the run time keeps per OS thread: the one thread_local of a
// module besides its __shared__ variables (check mode poisons all the others).
// Plain data, so it needs no guard variable that poisoning would overwrite.
struct thread_state {
  fl_emu_where where;        // the GPU thread running now: blockIdx, threadIdx
  fl_emu_dim3 block_dim;
  fl_emu_dim3 grid_dim;
  int warp_size;
  block_state* block;
  unsigned char* module_tls; // this module's thread-local block in this thread
  size_t module_tls_bytes;
  bool module_tls_known;
};

inline thread_state& tls() {
  static thread_local thread_state state;
  return state;
}

enum class thread_status : uint8_t { ready, running, at_barrier, at_warp_op, exited };

enum class warp_op : uint8_t { shfl, shfl_xor, shfl_down, shfl_up, any, all, ballot, syncwarp, activemask };

inline const char* warp_op_name(warp_op op) {
  switch (op) {
    case warp_op::shfl: return "__shfl";
    case warp_op::shfl_xor: return "__shfl_xor";
    case warp_op::shfl_down: return "__shfl_down";
    case warp_op::shfl_up: return "__shfl_up";
    case warp_op::any: return "__any";
    case warp_op::all: return "__all";
    case warp_op::ballot: return "__ballot";
    case warp_op::syncwarp: return "__syncwarp";
    case warp_op::activemask: return "__activemask";
  }
  return "?";
}

struct gpu_thread {
  context registers;         // saved here while a fiber is switched out
  context* home;             // &registers, or the block's main context for the
                             // thread that was running when the block changed over
  block_state* block;
  fl_emu_dim3 idx;
  uint32_t linear;
  thread_status status;
  // What it waits at (deadlock reports), and its part in a warp operation.
  int line;
  warp_op op;
  uint32_t param;            // source lane, lane mask or delta
  uint32_t width;
  uint64_t mask;             // the lanes taking part, as the _sync forms name them
  uint64_t value;
  uint64_t result;
};

struct warp_state {
  uint32_t live;             // lanes not exited
  uint64_t present;          // lanes inside the block
  uint64_t gone;             // lanes exited
  uint64_t waiting;          // lanes waiting at a warp operation other than __activemask()
  uint64_t at_activemask;    // lanes waiting at __activemask()
};

struct launch_state {
  const fl_emu_launch* desc;
  void (*invoke)(const void* args);                    // one GPU thread
  void (*run_in_order)(const void* args, block_state& b);  // loop mode: all, in order
  const void* args;
  std::atomic<bool>* needs_fibers;
  std::atomic<bool> failed{false};
  uint32_t threads_per_block;
};

struct block_state {
  const launch_state* launch;
  fl_emu_worker* worker;
  uint32_t size;
  int warp_size;
  bool check;
  bool fibers;
  context main;              // the worker's own stack
  gpu_thread* threads;       // fiber mode only
  gpu_thread* current;
  uint32_t* ready;           // ring of threads ready to run
  uint32_t ready_head, ready_count;
  uint32_t* released;        // scratch: threads released together
  warp_state* warps;
  uint32_t at_barrier;
  int barrier_line;
  bool barrier_mismatch;
  uint32_t exited;
  const uint32_t* order;     // check mode: the loop order, else null (in order)
  uint32_t loop_position;    // loop mode: position in the order of the running thread
  unsigned char* dynamic_shared;
  uint64_t rng;
  uint64_t priority_salt;    // check mode: see priority()
  bool failed;
  char message[FL_EMU_ERROR_BYTES];
  void* escape[5];           // __builtin_setjmp buffer: where abandon_block() lands
};

// Library work (allocating, formatting) must not be cut short by a stop signal.
struct hold_stops {
  fl_emu_worker* worker;
  explicit hold_stops(fl_emu_worker* w) : worker(w) { worker->hold = worker->hold + 1; }
  ~hold_stops() { worker->hold = worker->hold - 1; }
};

inline uint64_t next_random(uint64_t& state) {  // splitmix64
  uint64_t z = (state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

inline void shuffle(uint32_t* items, uint32_t n, uint64_t& rng) {
  for (uint32_t i = n; i > 1; i--) {
    uint32_t j = static_cast<uint32_t>(next_random(rng) % i);
    uint32_t t = items[i - 1];
    items[i - 1] = items[j];
    items[j] = t;
  }
}

inline fl_emu_dim3 thread_index(uint32_t linear, const fl_emu_dim3& d) {
  return {linear % d.x, (linear / d.x) % d.y, linear / (d.x * d.y)};
}

// Records the block's failure (the first one counts) in its message.
__attribute__((format(printf, 2, 3))) inline void fail(block_state& b, const char* format, ...) {
  if (b.failed) return;
  b.failed = true;
  hold_stops hold(b.worker);
  va_list args;
  va_start(args, format);
  vsnprintf(b.message, sizeof b.message, format, args);
  va_end(args);
}

// Leaves the block at once, from whichever stack the running GPU thread is on,
// back to run_block (which reports b.message). Nothing is unwound: the block's
// fibers are dropped and their stacks reused by the next block.
[[noreturn]] inline void abandon_block(block_state& b) { __builtin_longjmp(b.escape, 1); }

// Device-side assert() and __trap(): the launch ends with an error saying where,
// as CUDA reports a device-side assert, and the device goes on.
[[noreturn]] inline void device_stop(const char* what, const char* file, unsigned line) {
  thread_state& t = tls();
  if (!t.block) {  // not in a kernel: what the C library's assert does
    fprintf(stderr, "%s:%u: %s\n", file, line, what);
    abort();
  }
  block_state& b = *t.block;
  const fl_emu_where& w = t.where;
  fail(b, "kernel '%s': %s at %s:%u (block (%u,%u,%u), thread (%u,%u,%u))", b.launch->desc->kernel, what, file, line,
       w.block.x, w.block.y, w.block.z, w.thread.x, w.thread.y, w.thread.z);
  abandon_block(b);
}

[[noreturn]] inline void assertion_failed(const char* expression, const char* file, unsigned line) {
  char what[FL_EMU_ERROR_BYTES / 2];
  snprintf(what, sizeof what, "device-side assertion `%s' failed", expression);
  device_stop(what, file, line);
}

inline void describe_deadlock(block_state& b) {
  hold_stops hold(b.worker);
  const fl_emu_where& w = tls().where;
  char text[FL_EMU_ERROR_BYTES];
  int used = snprintf(text, sizeof text, "kernel '%s' deadlocked in block (%u,%u,%u):", b.launch->desc->kernel,
                      w.block.x, w.block.y, w.block.z);
  // Group the threads by what they wait at, in order of their first thread.
  auto same_wait = [](const gpu_thread& t, const gpu_thread& u) {
    return u.status == t.status && (t.status == thread_status::exited || (u.line == t.line && u.op == t.op));
  };
  const char* separator = " ";
  for (uint32_t first = 0; first < b.size && used < int(sizeof text); first++) {
    gpu_thread& t = b.threads[first];
    bool seen = false;
    for (uint32_t j = 0; j < first && !seen; j++) seen = same_wait(t, b.threads[j]);
    if (seen) continue;
    uint32_t others = 0;
    for (uint32_t j = first + 1; j < b.size; j++) others += same_wait(t, b.threads[j]);
    char what[96];
    if (t.status == thread_status::exited)
      snprintf(what, sizeof what, "exited");
    else
      snprintf(what, sizeof what, "wait%s at %s on line %d", others ? "" : "s",
               t.status == thread_status::at_barrier ? "__syncthreads()" : warp_op_name(t.op), t.line);
    char who[64];
    if (others)
      snprintf(who, sizeof who, "threads (%u,%u,%u) and %u more", t.idx.x, t.idx.y, t.idx.z, others);
    else
      snprintf(who, sizeof who, "thread (%u,%u,%u)", t.idx.x, t.idx.y, t.idx.z);
    used += snprintf(text + used, sizeof text - used, "%s%s %s", separator, who, what);
    separator = "; ";
  }
  fail(b, "%s", text);
}

inline void push_ready(block_state& b, uint32_t linear) {
  uint32_t slot = b.ready_head + b.ready_count;
  if (slot >= b.size) slot -= b.size;
  b.ready[slot] = linear;
  b.ready_count++;
  b.threads[linear].status = thread_status::ready;
}

// Check mode: a thread's rank in its block, fixed for the block, random across blocks.
inline uint64_t priority(const block_state& b, uint32_t linear) {
  uint64_t state = b.priority_salt ^ linear;
  return next_random(state);
}

inline gpu_thread* pop_ready(block_state& b) {
  if (b.ready_count == 0) return nullptr;
  if (b.check) {  // bring the first-ranked ready thread to the head
    uint32_t best = b.ready_head;
    uint64_t best_rank = priority(b, b.ready[best]);
    for (uint32_t k = 1; k < b.ready_count; k++) {
      uint32_t slot = b.ready_head + k >= b.size ? b.ready_head + k - b.size : b.ready_head + k;
      uint64_t rank = priority(b, b.ready[slot]);
      if (rank < best_rank) best = slot, best_rank = rank;
    }
    uint32_t head = b.ready[b.ready_head];
    b.ready[b.ready_head] = b.ready[best];
    b.ready[best] = head;
  }
  uint32_t linear = b.ready[b.ready_head];
  b.ready_head = b.ready_head + 1 == b.size ? 0 : b.ready_head + 1;
  b.ready_count--;
  return &b.threads[linear];
}

// Makes b.released[0..n) ready (check mode then runs them by priority()).
inline void release(block_state& b, uint32_t n) {
  for (uint32_t i = 0; i < n; i++) push_ready(b, b.released[i]);
}

// Switches from the context `save` to thread `next`, or to the block's main
// context when next is null.
inline void switch_to(block_state& b, context* save, gpu_thread* next) {
  context* target = next ? next->home : &b.main;
  if (next) {
    b.current = next;
    next->status = thread_status::running;
    tls().where.thread = next->idx;
  }
  if (target != save) context_switch(save, target);
}

// The thread to run next; null once the block has failed or no thread is
// ready. None ready while some have not exited is a deadlock: the block fails.
inline gpu_thread* next_ready(block_state& b) {
  gpu_thread* next = b.failed ? nullptr : pop_ready(b);
  if (!next && !b.failed && b.exited != b.size) describe_deadlock(b);
  return next;
}

// The current thread cannot go on (it waits, or has exited): run the next
// ready one. Returns when this thread is ready again.
inline void yield(block_state& b, gpu_thread& self) {
  switch_to(b, self.home, next_ready(b));
  if (b.failed) abandon_block(b);
}

inline uint32_t lowest_lane(uint64_t lanes) { return static_cast<uint32_t>(__builtin_ctzll(lanes)); }

// The lanes of `mask` that must arrive before a warp operation completes: those
// inside the block and not exited. The others take no part, as on the GPU.
inline uint64_t lanes_needed(const warp_state& w, uint64_t mask) { return mask & w.present & ~w.gone; }

// Completes the warp operation of the lanes named by `mask` once each of them
// waits at it; false while some have not arrived.
inline bool try_complete(block_state& b, uint32_t warp, uint64_t mask) {
  warp_state& w = b.warps[warp];
  uint64_t group = lanes_needed(w, mask);
  if (group == 0 || (w.waiting & group) != group) return false;
  uint32_t base = warp * b.warp_size;
  gpu_thread& first = b.threads[base + lowest_lane(group)];
  for (uint64_t rest = group; rest; rest &= rest - 1) {
    gpu_thread& t = b.threads[base + lowest_lane(rest)];
    if (t.line == first.line && t.op == first.op && t.mask == first.mask) continue;
    fail(b, "kernel '%s': the lanes of warp %u in block (%u,%u,%u) wait at different warp operations: "
            "thread (%u,%u,%u) at %s on line %d (lanes 0x%llx), thread (%u,%u,%u) at %s on line %d (lanes 0x%llx)",
         b.launch->desc->kernel, warp, tls().where.block.x, tls().where.block.y, tls().where.block.z, first.idx.x,
         first.idx.y, first.idx.z, warp_op_name(first.op), first.line, static_cast<unsigned long long>(first.mask),
         t.idx.x, t.idx.y, t.idx.z, warp_op_name(t.op), t.line, static_cast<unsigned long long>(t.mask));
    return true;
  }
  // A lane outside the group gives a lane its own value (the GPU's is undefined).
  auto lane_value = [&](uint32_t self, uint32_t source_lane) {
    return source_lane < 64 && ((group >> source_lane) & 1) ? b.threads[base + source_lane].value : b.threads[self].value;
  };
  uint64_t ballot = 0;
  for (uint64_t rest = group; rest; rest &= rest - 1)
    if (b.threads[base + lowest_lane(rest)].value) ballot |= 1ull << lowest_lane(rest);
  uint32_t n = 0;
  for (uint64_t rest = group; rest; rest &= rest - 1) {
    uint32_t lane = lowest_lane(rest), i = base + lane;
    gpu_thread& t = b.threads[i];
    uint32_t width = t.width, segment = lane & ~(width - 1);
    switch (t.op) {
      case warp_op::shfl: t.result = lane_value(i, segment + (t.param & (width - 1))); break;
      case warp_op::shfl_xor: {
        uint32_t source = lane ^ t.param;
        t.result = source < segment + width ? lane_value(i, source) : t.value;  // later groups: own value
        break;
      }
      case warp_op::shfl_down:
        t.result = (lane & (width - 1)) + t.param < width ? lane_value(i, lane + t.param) : t.value;
        break;
      case warp_op::shfl_up: t.result = (lane & (width - 1)) >= t.param ? lane_value(i, lane - t.param) : t.value; break;
      case warp_op::any: t.result = ballot != 0; break;
      case warp_op::all: t.result = ballot == group; break;
      case warp_op::ballot: t.result = ballot; break;
      case warp_op::syncwarp: t.result = 0; break;
      case warp_op::activemask: t.result = group; break;
    }
    b.released[n++] = i;
  }
  w.waiting &= ~group;
  release(b, n);
  return true;
}

// __activemask(): the lanes that reach it together. Its callers wait until no
// lane of the warp can run on (each waits somewhere or has exited); then the
// callers at one line get the mask of those callers.
inline void settle_activemask(block_state& b, uint32_t warp) {
  warp_state& w = b.warps[warp];
  if (w.at_activemask == 0) return;
  uint32_t base = warp * b.warp_size;
  for (uint64_t rest = w.present & ~w.gone; rest; rest &= rest - 1) {
    gpu_thread& t = b.threads[base + lowest_lane(rest)];
    if (t.status != thread_status::at_barrier && t.status != thread_status::at_warp_op) return;  // still running
  }
  uint64_t callers = w.at_activemask;
  w.at_activemask = 0;
  while (callers) {
    int line = b.threads[base + lowest_lane(callers)].line;
    uint64_t same = 0;
    for (uint64_t rest = callers; rest; rest &= rest - 1)
      if (b.threads[base + lowest_lane(rest)].line == line) same |= 1ull << lowest_lane(rest);
    for (uint64_t rest = same; rest; rest &= rest - 1) b.threads[base + lowest_lane(rest)].mask = same;
    w.waiting |= same;
    try_complete(b, warp, same);
    callers &= ~same;
  }
}

// Re-examines the warp's waiting groups after a lane left (exited): a group may
// now have every lane it needs.
inline void recheck_warp(block_state& b, uint32_t warp) {
  warp_state& w = b.warps[warp];
  uint32_t base = warp * b.warp_size;
  uint64_t pending = w.waiting;
  while (pending && !b.failed) {
    gpu_thread& t = b.threads[base + lowest_lane(pending)];
    uint64_t mask = t.mask;
    try_complete(b, warp, mask);
    pending &= ~(lanes_needed(w, mask) | (1ull << lowest_lane(pending)));
  }
  settle_activemask(b, warp);
}

inline void mark_exited(block_state& b, gpu_thread& t) {
  t.status = thread_status::exited;
  b.exited++;
  uint32_t warp = t.linear / b.warp_size;
  warp_state& w = b.warps[warp];
  w.live--;
  w.gone |= 1ull << (t.linear % b.warp_size);
  if (w.waiting || w.at_activemask) recheck_warp(b, warp);
}

inline void fiber_main(void* arg) {
  gpu_thread& self = *static_cast<gpu_thread*>(arg);
  block_state& b = *self.block;
  try {
    b.launch->invoke(b.launch->args);
  } catch (...) {
    fail(b, "kernel '%s' threw a C++ exception", b.launch->desc->kernel);
  }
  mark_exited(b, self);
  switch_to(b, &self.registers, next_ready(b));
  __builtin_trap();  // an exited fiber is never resumed
}

// Sets up the block's threads as fibers. `running`: the position in the loop
// order of the thread running on the OS stack when a loop-mode block changes
// over (those before it have exited); b.size when starting as fibers.
inline void make_fibers(block_state& b, uint32_t running) {
  b.launch->needs_fibers->store(true, std::memory_order_relaxed);
  hold_stops hold(b.worker);
  uint32_t warps = (b.size + b.warp_size - 1) / b.warp_size;
  size_t bytes = sizeof(gpu_thread) * b.size + sizeof(warp_state) * warps + sizeof(uint32_t) * 2 * b.size;
  unsigned char* memory = static_cast<unsigned char*>(b.worker->scratch(b.worker, 0, bytes));
  if (!memory) {
    fail(b, "kernel '%s': out of memory for the threads of a block", b.launch->desc->kernel);
    abandon_block(b);
  }
  b.threads = reinterpret_cast<gpu_thread*>(memory);
  b.warps = reinterpret_cast<warp_state*>(b.threads + b.size);
  b.ready = reinterpret_cast<uint32_t*>(b.warps + warps);
  b.released = b.ready + b.size;
  b.ready_head = b.ready_count = 0;
  b.at_barrier = 0;
  b.barrier_mismatch = false;
  b.exited = 0;
  for (uint32_t w = 0; w < warps; w++) {
    uint32_t lanes = b.size - w * b.warp_size < uint32_t(b.warp_size) ? b.size - w * b.warp_size : b.warp_size;
    b.warps[w] = warp_state{0, lanes == 64 ? ~0ull : (1ull << lanes) - 1, 0, 0, 0};
  }
  const fl_emu_dim3& dim = tls().block_dim;
  for (uint32_t i = 0; i < b.size; i++) {
    gpu_thread& t = b.threads[i];
    t.home = &t.registers;
    t.block = &b;
    t.idx = thread_index(i, dim);
    t.linear = i;
    t.status = thread_status::exited;
    t.line = 0;
  }
  uint32_t n = 0;
  for (uint32_t k = 0; k < b.size; k++) {
    uint32_t i = b.order ? b.order[k] : k;
    gpu_thread& t = b.threads[i];
    if (k < running && running != b.size) {
      b.exited++;
      b.warps[i / b.warp_size].gone |= 1ull << (i % b.warp_size);
      continue;
    }
    b.warps[i / b.warp_size].live++;
    if (k == running) {  // keeps the OS stack
      t.home = &b.main;
      t.status = thread_status::running;
      b.current = &t;
      continue;
    }
    size_t stack_bytes = 0;
    void* stack = b.worker->fiber_stack(b.worker, i, &stack_bytes);
    if (!stack) {
      fail(b, "kernel '%s': out of memory for fiber stacks", b.launch->desc->kernel);
      abandon_block(b);
    }
    context_prepare(&t.registers, stack, stack_bytes, &fiber_main, &t);
    b.released[n++] = i;
  }
  // The threads already run in loop mode are gone: their warps do not wait for them.
  release(b, n);
  b.fibers = true;
}

// On the main context: runs fibers until all have exited or the block failed.
inline void run_fibers(block_state& b) {
  while (gpu_thread* next = next_ready(b)) switch_to(b, &b.main, next);
}

inline block_state& current_block() { return *tls().block; }

// Called by every barrier and warp operation: a loop-mode block changes over.
inline gpu_thread& fiber_self(block_state& b) {
  if (!b.fibers) make_fibers(b, b.loop_position);
  return *b.current;
}

inline void syncthreads(int line) {
  block_state& b = current_block();
  gpu_thread& self = fiber_self(b);
  self.status = thread_status::at_barrier;
  self.line = line;
  if (b.at_barrier == 0) {
    b.barrier_line = line;
  } else if (line != b.barrier_line) {
    b.barrier_mismatch = true;
  }
  if (b.warps[self.linear / b.warp_size].at_activemask) settle_activemask(b, self.linear / b.warp_size);
  if (++b.at_barrier == b.size) {
    if (b.barrier_mismatch) {
      describe_deadlock(b);
    } else {
      b.at_barrier = 0;
      for (uint32_t i = 0; i < b.size; i++) b.released[i] = i;
      release(b, b.size);
    }
  }
  yield(b, self);
}

// One lane's part in a warp operation over the lanes of `mask` (all of the warp
// for the forms without _sync); returns once every lane of the mask has come.
inline uint64_t warp_exchange(warp_op op, int line, uint64_t value, uint32_t param, int width, uint64_t mask = ~0ull) {
  block_state& b = current_block();
  int lanes = b.warp_size;
  const fl_emu_where& where = tls().where;
  if (width <= 0 || width > lanes || (width & (width - 1)) != 0) {
    fail(b, "kernel '%s': %s on line %d: width must be a power of two from 1 to warpSize (%d), got %d "
            "(block (%u,%u,%u), thread (%u,%u,%u))",
         b.launch->desc->kernel, warp_op_name(op), line, lanes, width, where.block.x, where.block.y, where.block.z,
         where.thread.x, where.thread.y, where.thread.z);
    abandon_block(b);
  }
  gpu_thread& self = fiber_self(b);
  uint32_t warp = self.linear / lanes, lane = self.linear % lanes;
  if (lanes < 64) mask &= (1ull << lanes) - 1;
  if (!((mask >> lane) & 1)) {
    fail(b, "kernel '%s': %s on line %d: the mask 0x%llx must include the calling lane %u "
            "(block (%u,%u,%u), thread (%u,%u,%u))",
         b.launch->desc->kernel, warp_op_name(op), line, static_cast<unsigned long long>(mask), lane, where.block.x,
         where.block.y, where.block.z, where.thread.x, where.thread.y, where.thread.z);
    abandon_block(b);
  }
  self.status = thread_status::at_warp_op;
  self.op = op;
  self.line = line;
  self.param = param;
  self.width = static_cast<uint32_t>(width);
  self.value = value;
  self.mask = mask;
  warp_state& w = b.warps[warp];
  if (op == warp_op::activemask) {
    w.at_activemask |= 1ull << lane;
    settle_activemask(b, warp);
  } else {
    w.waiting |= 1ull << lane;
    if (!try_complete(b, warp, mask) && w.at_activemask) settle_activemask(b, warp);
  }
  yield(b, self);
  return self.result;
}

template <typename T>
inline uint64_t to_lane_bits(T v) {
  static_assert(sizeof(T) <= 8 && std::is_trivially_copyable<T>::value, "warp operations move values of up to 8 bytes");
  uint64_t bits = 0;
  memcpy(&bits, &v, sizeof v);
  return bits;
}
template <typename T>
inline T from_lane_bits(uint64_t bits) {
  T v;
  memcpy(&v, &bits, sizeof v);
  return v;
}

template <typename T>
inline T shuffle_op(warp_op op, int line, T v, uint32_t param, int width, uint64_t mask = ~0ull) {
  if (width < 0) width = tls().warp_size;
  return from_lane_bits<T>(warp_exchange(op, line, to_lane_bits(v), param, width, mask));
}

inline void* dynamic_shared() { return current_block().dynamic_shared; }

// Check mode: static __shared__ arrays are thread_local variables of the
// module, so they live in the module's thread-local block. Fill that block with
// 0xFF, all but the run time's own state.
struct tls_search {
  uintptr_t code;
  unsigned char* begin;
  size_t bytes;
};

inline int find_module_tls(dl_phdr_info* info, size_t, void* data) {
  tls_search& search = *static_cast<tls_search*>(data);
  bool mine = false;
  const ElfW(Phdr)* tls_header = nullptr;
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr)& h = info->dlpi_phdr[i];
    uintptr_t start = info->dlpi_addr + h.p_vaddr;
    if (h.p_type == PT_LOAD && search.code >= start && search.code < start + h.p_memsz) mine = true;
    if (h.p_type == PT_TLS) tls_header = &h;
  }
  if (!mine) return 0;
  if (tls_header && info->dlpi_tls_data) {
    search.begin = static_cast<unsigned char*>(info->dlpi_tls_data);
    search.bytes = tls_header->p_memsz;
  }
  return 1;
}

inline void poison_static_shared(thread_state& t, fl_emu_worker* worker) {
  if (!t.module_tls_known) {
    hold_stops hold(worker);  // dl_iterate_phdr takes the loader's lock
    tls_search search{reinterpret_cast<uintptr_t>(&find_module_tls), nullptr, 0};
    dl_iterate_phdr(&find_module_tls, &search);
    t.module_tls = search.begin;
    t.module_tls_bytes = search.bytes;
    t.module_tls_known = true;
  }
  unsigned char* begin = t.module_tls;
  unsigned char* end = begin + t.module_tls_bytes;
  unsigned char* own = reinterpret_cast<unsigned char*>(&t);
  if (!begin || own < begin || own + sizeof t > end) return;
  memset(begin, 0xFF, own - begin);
  memset(own + sizeof t, 0xFF, end - (own + sizeof t));
}

// Loop mode, in order: thread (0,0,0), (1,0,0), ... Instantiated per kernel
// with the kernel inlined into the loop, which keeps it fast. Stops early when
// a barrier changed the block over to fibers.
template <typename Call>
inline void loop_in_order(block_state& b, Call&& call) {
  const fl_emu_dim3 dim = tls().block_dim;
  fl_emu_dim3& thread = tls().where.thread;
  uint32_t k = 0;
  for (uint32_t z = 0; z < dim.z; z++)
    for (uint32_t y = 0; y < dim.y; y++)
      for (uint32_t x = 0; x < dim.x; x++) {
        b.loop_position = k++;
        thread = {x, y, z};
        call();
        if (b.fibers) return;
      }
}

// Loop mode in check mode: in the block's shuffled order.
inline void loop_shuffled(block_state& b) {
  const launch_state& L = *b.launch;
  const fl_emu_dim3 dim = tls().block_dim;
  fl_emu_dim3& thread = tls().where.thread;
  for (uint32_t k = 0; k < b.size; k++) {
    b.loop_position = k;
    thread = thread_index(b.order[k], dim);
    L.invoke(L.args);
    if (b.fibers) return;
  }
}

inline void run_threads_from_start(block_state& b) {
  const launch_state& L = *b.launch;
  try {
    if (L.needs_fibers->load(std::memory_order_relaxed)) {
      make_fibers(b, b.size);
      run_fibers(b);
    } else {
      if (b.order) loop_shuffled(b);
      else L.run_in_order(L.args, b);
      if (b.fibers) {  // changed over: the thread on the OS stack has finished
        mark_exited(b, *b.current);
        run_fibers(b);
      }
    }
  } catch (...) {
    fail(b, "kernel '%s' threw a C++ exception", L.desc->kernel);
  }
}

// Runs the block's GPU threads to the end, or until abandon_block() returns here.
__attribute__((noinline)) inline void run_threads(block_state& b) {
  if (__builtin_setjmp(b.escape) == 0) run_threads_from_start(b);
}

// The pool's body: runs one block of the launch.
inline void run_block(void* context, uint64_t index, fl_emu_worker* worker) {
  launch_state& L = *static_cast<launch_state*>(context);
  if (L.failed.load(std::memory_order_relaxed)) return;
  const fl_emu_launch& desc = *L.desc;
  thread_state& t = tls();
  t.block_dim = desc.block;
  t.grid_dim = desc.grid;
  t.warp_size = desc.warp_size;
  t.where.block = {static_cast<uint32_t>(index % desc.grid.x), static_cast<uint32_t>(index / desc.grid.x % desc.grid.y),
                   static_cast<uint32_t>(index / (uint64_t(desc.grid.x) * desc.grid.y))};
  t.where.thread = {0, 0, 0};
  worker->where = &t.where;

  block_state b;
  b.launch = &L;
  b.worker = worker;
  b.size = L.threads_per_block;
  b.warp_size = desc.warp_size;
  b.check = desc.check != 0;
  b.fibers = false;
  b.threads = nullptr;
  b.current = nullptr;
  b.order = nullptr;
  b.loop_position = 0;
  b.dynamic_shared = nullptr;
  b.rng = desc.seed ^ (index * 0xd1b54a32d192ed03ull);
  b.priority_salt = next_random(b.rng);
  b.failed = false;
  b.message[0] = 0;
  t.block = &b;

  {
    hold_stops hold(worker);
    if (desc.shared_bytes) b.dynamic_shared = static_cast<unsigned char*>(worker->scratch(worker, 1, desc.shared_bytes));
    if (b.check) {
      uint32_t* order = static_cast<uint32_t*>(worker->scratch(worker, 2, sizeof(uint32_t) * b.size));
      if (order) {
        for (uint32_t i = 0; i < b.size; i++) order[i] = i;
        shuffle(order, b.size, b.rng);
      }
      b.order = order;
    }
  }
  if ((desc.shared_bytes && !b.dynamic_shared) || (b.check && !b.order)) {
    fail(b, "kernel '%s': out of memory for a block's shared memory", desc.kernel);
  } else {
    if (b.check) {
      poison_static_shared(t, worker);
      if (b.dynamic_shared) memset(b.dynamic_shared, 0xFF, desc.shared_bytes);
    }
    run_threads(b);
  }
  t.block = nullptr;
  if (b.failed && !L.failed.exchange(true)) {
    memcpy(const_cast<fl_emu_launch&>(desc).error, b.message, sizeof b.message);
  }
}

inline int run_launch(fl_emu_launch* desc, void (*invoke)(const void*),
                      void (*run_in_order)(const void*, block_state&), const void* args,
                      std::atomic<bool>* needs_fibers) {
  launch_state L;
  L.desc = desc;
  L.invoke = invoke;
  L.run_in_order = run_in_order;
  L.args = args;
  L.needs_fibers = needs_fibers;
  L.threads_per_block = desc->block.x * desc->block.y * desc->block.z;
  desc->error[0] = 0;
  uint64_t blocks = uint64_t(desc->grid.x) * desc->grid.y * desc->grid.z;
  desc->pool->parallel_for(desc->pool->self, blocks, &run_block, &L);
  return L.failed.load() ? 1 : 0;
}

// The typed trampoline of kernel F: unpacks args[i] into F's parameter types
// once per launch, then calls F for every GPU thread.
template <auto F, typename... A, size_t... I>
inline int launch_with(fl_emu_launch* desc, void (*)(A...), std::index_sequence<I...>) {
  using packed = std::tuple<std::decay_t<A>...>;
  packed args{*static_cast<std::decay_t<A>*>(desc->args[I])...};
  static std::atomic<bool> needs_fibers{false};
  auto invoke = [](const void* p) { std::apply(F, *static_cast<const packed*>(p)); };
  auto run_in_order = [](const void* p, block_state& b) {
    const packed& a = *static_cast<const packed*>(p);
    loop_in_order(b, [&] { std::apply(F, a); });
  };
  return run_launch(desc, invoke, run_in_order, &args, &needs_fibers);
}

template <typename... A>
constexpr size_t parameter_count(void (*)(A...)) {
  return sizeof...(A);
}

template <auto F>
inline int launch(fl_emu_launch* desc) {
  return launch_with<F>(desc, F, std::make_index_sequence<parameter_count(F)>{});
}

}  // namespace emu
}  // namespace fl

#endif
