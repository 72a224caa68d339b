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
//  - A thread that waits switches straight to the next ready thread: the one
//    ready longest, but for the lanes of a warp whose operation completed,
//    which run next while their stacks are still in the cache. When none
//    is ready and some have not exited, they can never go on: a deadlock,
//    reported with what each group of threads waits at.
//  - A warp operation waits for the lanes its mask names that have not exited
//    (HIP's unmasked forms pass kLiveLanes: every lane not exited), so a part
//    of a warp can shuffle or sync on its own, as on the GPU.
// Check mode fills shared memory with 0xFF (NaN) and scrambles the order in which
// threads take turns: loop mode runs the threads in a shuffled order; fiber mode
// gives each thread of a block a random rank and always runs the ready thread
// that ranks first (found in O(1) in a bitmap of ranks), so some threads run far
// ahead of others (a whole warp through several shuffles before thread 0 reads
// what it was owed). A missing barrier then gives a wrong answer instead of
// passing by luck. Check mode also reports a lane that a warp operation's mask
// names and that exits without reaching it, as compute-sanitizer's synccheck does.
//
// The kernel language (vendors/cpu.h and the intrinsics) reaches the scheduler
// through these calls only:
//   syncthreads(line)                                   __syncthreads()
//   warp_exchange(op, line, value, param, width, mask)  every warp operation;
//       mask: bit i names lane i, kLiveLanes the unmasked forms; returns this
//       lane's result (a shuffled value, a vote, a ballot, __activemask's mask)
//   shuffle_op<T>(op, line, v, param, width, mask)      the same, typed
//   syncwarp_mask(...)                                  __syncwarp's optional mask
//   current_block(), tls()                              where a thread is
#ifndef FUSELAB_EMULATOR_RUNTIME_H
#define FUSELAB_EMULATOR_RUNTIME_H

#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <memory>
#include <tuple>
#include <type_traits>
#include <utility>

#include "abi.h"
#include "context.h"
#include "instrumented.h"
#include "types.h"

namespace fl::emu {

struct block_state;

// Everything the run time keeps per OS thread: where it is in a launch
// (abi.h). Plain data, so it needs no guard variable that check mode's
// poisoning of the module's thread-local storage would overwrite.
using thread_state = fl_emu_thread;

// The module's own per-thread data, which check mode does not poison: the
// thread_state used where the plugin's is out of reach, and where this
// module's thread-local block lies.
struct module_thread {
  thread_state own;
  unsigned char* tls_begin;
  size_t tls_bytes;
  bool tls_known;
};

// Always inlined, also tls(): lock step's hooks (lockstep.h) call them, and must call nothing the sanitizer instruments.
__attribute__((always_inline)) inline module_thread& module_thread_data() {
  static thread_local module_thread data;
  return data;
}

// The plugin's offset of the thread_state from the thread pointer (0: none),
// from the last launch; the same for every launch and thread.
inline std::atomic<ptrdiff_t> thread_state_offset{0};


__attribute__((always_inline)) inline thread_state& tls() {
  const ptrdiff_t offset = thread_state_offset.load(std::memory_order_relaxed);
  if (__builtin_expect(offset != 0, 1))
    return *reinterpret_cast<thread_state*>(static_cast<char*>(fl_emu_thread_pointer()) + offset);
  return module_thread_data().own;
}

enum class thread_status : uint8_t { ready, running, at_barrier, at_warp_op, exited };

enum class warp_op : uint8_t {
  shfl, shfl_xor, shfl_down, shfl_up, any, all, ballot, syncwarp, activemask,
  reduce_add, reduce_min, reduce_max, reduce_and, reduce_or, reduce_xor, match_any, match_all,
  permute  // AMD's ds_permute: each lane sends its value to the lane it names
};

// Lanes of a warp as a mask: bit i is lane i.
using lane_mask = uint64_t;
// The mask HIP's unmasked warp operations (__shfl, __any, ...) pass: every lane
// not exited takes part.
constexpr lane_mask kLiveLanes = ~lane_mask(0);
// The width of a warp operation over the whole warp, whatever its size.
constexpr int kWholeWarp = -1;

FL_EMU_UNINSTRUMENTED inline const char* warp_op_name(warp_op op, bool masked) {
  switch (op) {
    case warp_op::shfl: return masked ? "__shfl_sync" : "__shfl";
    case warp_op::shfl_xor: return masked ? "__shfl_xor_sync" : "__shfl_xor";
    case warp_op::shfl_down: return masked ? "__shfl_down_sync" : "__shfl_down";
    case warp_op::shfl_up: return masked ? "__shfl_up_sync" : "__shfl_up";
    case warp_op::any: return masked ? "__any_sync" : "__any";
    case warp_op::all: return masked ? "__all_sync" : "__all";
    case warp_op::ballot: return masked ? "__ballot_sync" : "__ballot";
    case warp_op::syncwarp: return "__syncwarp";
    case warp_op::activemask: return "__activemask";
    case warp_op::reduce_add: return "__reduce_add_sync";
    case warp_op::reduce_min: return "__reduce_min_sync";
    case warp_op::reduce_max: return "__reduce_max_sync";
    case warp_op::reduce_and: return "__reduce_and_sync";
    case warp_op::reduce_or: return "__reduce_or_sync";
    case warp_op::reduce_xor: return "__reduce_xor_sync";
    case warp_op::match_any: return "__match_any_sync";
    case warp_op::match_all: return "__match_all_sync";
    case warp_op::permute: return "__builtin_amdgcn_ds_permute";
  }
  return "?";
}

// Lock step: how many calls deep the place where a lane waits is told apart.
constexpr int kStepDepth = 8;

struct gpu_thread {
  context registers;         // saved here while a fiber is switched out
  context* home;             // &registers, or the block's main context for the
                             // thread that was running when the block changed over
  fl_emu_dim3 idx;
  uint32_t warp, lane;       // its index / warpSize, its index % warpSize
  thread_status status;
  // What it waits at (deadlock reports), and its part in a warp operation.
  warp_op op;
  int line;
  lane_mask mask;            // the lanes taking part: kLiveLanes, or as the kernel named them
  uint32_t param;            // source lane, lane mask or delta
  uint32_t width;
  uint64_t value;
  uint64_t result;
  // Lock step: where it waits to access shared memory, as the return addresses
  // from there out to the kernel, innermost first (none at a volatile access).
  uintptr_t step_path[kStepDepth];
  uint32_t step_depth;
  // Lock step: the times it went back to the place of an earlier step (a loop's
  // next turn) since its warp last went on together, or met at a barrier or warp operation.
  uint32_t step_turns;
  uintptr_t base_frame;      // its fiber's first frame, where the walk out ends
};

struct warp_state {
  lane_mask live;            // lanes not exited
  lane_mask arrived;         // lanes waiting at a warp operation (but __activemask)
  lane_mask at_activemask;   // lanes waiting at __activemask
  lane_mask partial;         // lanes whose last warp operation's group left out live lanes
  uint32_t first_held;       // lock step: the held lane that waits at the first place in the code
  uint32_t held_rank;        // lock step: where its lanes go among the warps released together
  uint32_t passed_over;      // lock step: rounds in a row some of its held lanes were kept back
  uint32_t meetings;         // how many warp operations its lanes met at (racecheck.h)
};

// A cooperative launch's grid barrier (grid.sync()), its blocks each on an OS thread.
struct grid_barrier {
  uint32_t blocks;
  std::atomic<uint32_t> arrived{0};
  std::atomic<uint32_t> generation{0};  // how many grid syncs completed: waiters sleep on it
  std::atomic<uint32_t> finished{0};    // blocks that ran to their end (or failed)
  std::atomic<uint64_t> first_finished{~0ull};  // the lowest such block's index
};

// What a kernel's launches learn about it, for the next ones.
struct kernel_history {
  std::atomic<bool> needs_fibers{false};
  std::atomic<bool> needs_lockstep{false};  // lockstep.h: a block of it changed with lock step (start_lockstep)
};

// A kernel's code as a block runs it.
struct thread_code {
  void (*invoke)(const void* args);                        // one GPU thread
  void (*run_in_order)(const void* args, block_state& b);  // loop mode: all, in order
};

// Runs one block of a launch in lock step: the kernel's code in the module's
// instrumented twin (lockstep.h), called by the plain module's launch.
using lockstep_block_fn = void (*)(void* launch, uint64_t index, fl_emu_worker* worker);

struct launch_state {
  const fl_emu_launch* desc;
  thread_code code;
  lockstep_block_fn lockstep_block;  // null where the module has no twin
  const void* args;
  kernel_history* kernel;
  std::atomic<bool> failed{false};
  std::atomic<bool> lockstep_unneeded{false};  // a block of this launch ran the same without it (start_lockstep)
  uint32_t threads_per_block;
  grid_barrier grid;
};

// Check mode keeps the ready threads as a two-level bitmap over their ranks:
// the first-ranked ready thread is two count-trailing-zeros away. Up to:
constexpr uint32_t kMaxThreads = 4096;
constexpr uint32_t kMaxWarps = kMaxThreads / 32;

struct access_site;

// Lock step's watch of one 4-byte word of shared memory: the stretch between
// barriers it was last touched in, and how.
struct shared_word {
  uint32_t epoch;
  uint16_t thread;           // the first thread to touch it in that stretch
  bool written;              // by that thread
  bool read_by_others;
};

// Check mode's race check (racecheck.h): a thread that touched a byte of shared
// memory in the current stretch between barriers (rank + 1; 0: none), where
// (race_site), how many warp operations its warp had met at by then, and
// whether through a volatile object.
// A volatile object's accesses (stepped.h) take their turns in lock step, as the
// lanes of a warp do on a GPU: two of them by one warp's lanes do not race.
struct race_toucher {
  uint32_t thread, site, warp_meetings;
  bool stepped;
};
// Its shadow of one byte: the stretch, the byte before the stretch's first
// write, the last writer and two readers (a write after them races with one
// that is not the writer).
struct race_byte {
  uint64_t stretch;
  race_toucher writer, reader, other_reader;
  unsigned char before;
};
// A write that may race, settled once its store is done: up to 16 of its bytes
// (`racing`, a bit each) with their values before it, and whom it may race with.
struct race_pending {
  uintptr_t address, first_byte;
  uint32_t bytes, racing, rank, site, access_bytes;
  race_toucher earlier;
  bool earlier_wrote;
  unsigned char before[16];
};

struct block_state {
  const launch_state* launch;
  const thread_code* code;  // the plain module's, or its twin's in lock step
  fl_emu_worker* worker;
  thread_state* state;       // tls(), looked up once
  uint32_t size;
  int warp_size;
  bool check;
  bool fibers;
  context main;              // the worker's own stack
  gpu_thread* threads;       // fiber mode only
  gpu_thread* current;
  uint32_t* ready;           // plain mode: ring of threads ready to run
  uint32_t ready_head, ready_count;
  uint32_t* deferred;        // ready threads held back until no other is ready (volatile_step, lockstep_step)
  uint32_t deferred_count;
  // Lock step (plain mode, a module that uses shared memory): where its shared memory
  // lies, the module's thread-local block (static __shared__) but for the run
  // time's own part, and the dynamic shared memory.
  bool lockstep;
  uintptr_t static_shared, static_shared_bytes, runtime_tls, runtime_tls_bytes, dynamic_shared_bytes;
  // Lock step in a launch's first blocks: whether two threads touch one word of
  // shared memory between barriers, one of them writing (start_lockstep).
  shared_word* shadow;       // a word of the static shared memory, then of the dynamic
  uint32_t shared_epoch;     // which stretch between barriers the block is in (from 1)
  bool watching, conflict;
  // Check mode's race check (racecheck.h), in a module that uses shared memory.
  bool racecheck;
  race_byte* race_shadow;    // a byte of the static shared memory, then of the dynamic
  uint64_t* race_stretches;  // the worker's count of stretches between barriers, for good
  uint64_t race_stretch;     // the current one's number
  race_pending pending_write;
  uint32_t streak_warp, streak;  // plain mode: the warp whose lanes were last put first, how many times in a row
  uint64_t ready_words;      // check mode: bit w set when ready_bits[w] is not 0
  uint64_t ready_bits[kMaxThreads / 64];  // check mode: bit r set when the thread of rank r is ready
  uint32_t* rank;            // check mode: rank of each thread (its position in `order`)
  warp_state* warps;
  uint32_t at_barrier;
  uint32_t barrier_votes;    // __syncthreads_count/and/or: arrivals whose predicate held
  uint32_t barrier_result;   // the votes of the barrier last released (read before the next can be)
  uint32_t barrier_arrivals; // how many threads it released
  int barrier_line;
  bool barrier_mismatch;
  uint32_t exited;
  bool grid_waited;          // between grid.sync()'s two block barriers: a thread waited for the grid
  const uint32_t* order;     // check mode: the threads by rank (also the loop order), else null
  uint32_t loop_position;    // loop mode: position in the order of the running thread
  unsigned char* dynamic_shared;
  const access_site* site;   // check mode: the caller's line of an access inside the emulator's functions, while it lasts
  uint64_t rng;
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

FL_EMU_UNINSTRUMENTED inline uint64_t next_random(uint64_t& state) {  // splitmix64
  uint64_t z = (state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

FL_EMU_UNINSTRUMENTED inline void shuffle(uint32_t* items, uint32_t n, uint64_t& rng) {
  for (uint32_t i = n; i > 1; i--) {
    uint32_t j = static_cast<uint32_t>((static_cast<unsigned __int128>(next_random(rng)) * i) >> 64);  // in [0, i)
    uint32_t t = items[i - 1];
    items[i - 1] = items[j];
    items[j] = t;
  }
}

// Check mode: the threads of a block by rank. Half the blocks rank them all at
// random; the other half rank whole warps (in a random order, their lanes
// shuffled), so that one warp runs through a stretch of the kernel before the
// next one starts it, which shows a reused buffer missing its barrier.
FL_EMU_UNINSTRUMENTED inline void rank_threads(uint32_t* order, uint32_t n, uint32_t warp_size, uint64_t& rng) {
  for (uint32_t i = 0; i < n; i++) order[i] = i;
  if (next_random(rng) & 1) {
    shuffle(order, n, rng);
    return;
  }
  uint32_t warps[kMaxThreads / 32];
  const uint32_t count = (n + warp_size - 1) / warp_size;
  for (uint32_t w = 0; w < count; w++) warps[w] = w;
  shuffle(warps, count, rng);
  uint32_t k = 0;
  for (uint32_t w = 0; w < count; w++) {
    const uint32_t first = k;
    for (uint32_t lane = warps[w] * warp_size; lane < n && lane < (warps[w] + 1) * warp_size; lane++) order[k++] = lane;
    shuffle(order + first, k - first, rng);
  }
}

FL_EMU_UNINSTRUMENTED inline fl_emu_dim3 thread_index(uint32_t linear, const fl_emu_dim3& d) {
  return {linear % d.x, (linear / d.x) % d.y, linear / (d.x * d.y)};
}

// Records the block's failure (the first one counts) in its message.
__attribute__((format(printf, 2, 3))) FL_EMU_UNINSTRUMENTED inline void fail(block_state& b, const char* format, ...) {
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
[[noreturn]] FL_EMU_UNINSTRUMENTED inline void abandon_block(block_state& b) { __builtin_longjmp(b.escape, 1); }

// Device-side assert() and __trap(): the launch ends with an error saying where,
// as CUDA reports a device-side assert, and the device goes on.
[[noreturn]] FL_EMU_UNINSTRUMENTED inline void device_stop(const char* what, const char* file, unsigned line) {
  thread_state& t = tls();
  if (!t.block) {  // not in a kernel: what the C library's assert does
    fprintf(stderr, "%s:%u: %s\n", file, line, what);
    abort();
  }
  block_state& b = *static_cast<block_state*>(t.block);
  const fl_emu_where& w = t.where;
  fail(b, "kernel '%s': %s at %s:%u (block (%u,%u,%u), thread (%u,%u,%u))", b.launch->desc->kernel, what, file, line,
       w.block.x, w.block.y, w.block.z, w.thread.x, w.thread.y, w.thread.z);
  abandon_block(b);
}

[[noreturn]] FL_EMU_UNINSTRUMENTED inline void assertion_failed(const char* expression, const char* file, unsigned line) {
  char what[FL_EMU_ERROR_BYTES / 2];
  snprintf(what, sizeof what, "device-side assertion `%s' failed", expression);
  device_stop(what, file, line);
}

}  // namespace fl::emu
#include "racecheck.h"
namespace fl::emu {

FL_EMU_UNINSTRUMENTED inline const char* wait_name(const gpu_thread& t) {
  return t.status == thread_status::at_barrier ? "__syncthreads()" : warp_op_name(t.op, t.mask != kLiveLanes);
}

// Fails the block with `lead` (a format taking the kernel's name and the block's
// index) and what each group of its threads waits at.
FL_EMU_UNINSTRUMENTED inline void describe_waits(block_state& b, const char* lead) {
  hold_stops hold(b.worker);
  const fl_emu_where& w = b.state->where;
  char text[FL_EMU_ERROR_BYTES];
  int used = snprintf(text, sizeof text, lead, b.launch->desc->kernel, w.block.x, w.block.y, w.block.z);
  // Group the threads by what they wait at, in order of their first thread.
  auto same_wait = [](const gpu_thread& t, const gpu_thread& u) FL_EMU_UNINSTRUMENTED {
    // A thread's op and mask are its last warp operation's: a barrier's waiters differ by line only.
    return u.status == t.status &&
           (t.status == thread_status::exited ||
            (u.line == t.line && (t.status == thread_status::at_barrier || (u.op == t.op && u.mask == t.mask))));
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
      snprintf(what, sizeof what, "wait%s at %s on line %d", others ? "" : "s", wait_name(t), t.line);
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

FL_EMU_UNINSTRUMENTED inline void describe_deadlock(block_state& b) { describe_waits(b, "kernel '%s' deadlocked in block (%u,%u,%u):"); }

FL_EMU_UNINSTRUMENTED inline uint32_t lowest_lane(lane_mask m) { return static_cast<uint32_t>(__builtin_ctzll(m)); }
FL_EMU_UNINSTRUMENTED inline uint32_t highest_lane(lane_mask m) { return 63 - static_cast<uint32_t>(__builtin_clzll(m)); }

// Calls f(lane) for each lane of `group`, lowest first (highest first when
// `down`), in a plain counted loop when the group is a whole warp of `lanes`,
// the common case.
FL_EMU_UNINSTRUMENTED inline lane_mask whole_warp(uint32_t lanes) { return lanes >= 64 ? ~lane_mask(0) : (lane_mask(1) << lanes) - 1; }

template <bool down = false, typename F>
FL_EMU_UNINSTRUMENTED inline void for_each_lane(lane_mask group, uint32_t lanes, F&& f) {
  if (group == whole_warp(lanes)) {
    if (down)
      for (uint32_t lane = lanes; lane-- > 0;) f(lane);
    else
      for (uint32_t lane = 0; lane < lanes; lane++) f(lane);
  } else if (down) {
    for (lane_mask m = group; m; m &= ~(lane_mask(1) << highest_lane(m))) f(highest_lane(m));
  } else {
    for (lane_mask m = group; m; m &= m - 1) f(lowest_lane(m));
  }
}

FL_EMU_UNINSTRUMENTED inline void push_ready(block_state& b, uint32_t linear) {
  b.threads[linear].status = thread_status::ready;
  b.ready_count++;
  if (b.check) {
    uint32_t r = b.rank[linear];
    b.ready_bits[r >> 6] |= uint64_t(1) << (r & 63);
    b.ready_words |= uint64_t(1) << (r >> 6);
    return;
  }
  uint32_t slot = b.ready_head + b.ready_count - 1;
  if (slot >= b.size) slot -= b.size;
  b.ready[slot] = linear;
}

// Plain mode: the lanes of a warp whose operation completed run next, lane 0
// first, so that a warp goes through a run of shuffles while its lanes' stacks
// are still in the cache, instead of waiting behind every other thread of the
// block. After kWarpStreak operations of one warp in a row its lanes queue at
// the back: the warps of a block go on nearly in step, as a GPU schedules them
// (a warp spinning on __syncwarp() lets the others run, and one reduction's
// write to a shared array does not overtake the other warps' reads of the
// last: exllamav2's layer norm reuses one without a barrier between, which
// check mode's order reports).
constexpr uint32_t kWarpStreak = 4;
// Past a block's dynamic shared memory, what plain mode lets a kernel reach (see run_block).
constexpr size_t kSharedWindowSlack = 1024;

FL_EMU_UNINSTRUMENTED inline void push_warp_ready(block_state& b, uint32_t warp, lane_mask group) {
  const uint32_t base = warp * b.warp_size;
  if (b.check || (b.streak_warp == warp && ++b.streak > kWarpStreak)) {
    b.streak = 0;
    for (lane_mask m = group; m; m &= m - 1) push_ready(b, base + lowest_lane(m));
    return;
  }
  if (b.streak_warp != warp) b.streak_warp = warp, b.streak = 1;
  // Pushed at the front from the highest lane down: the lowest lane runs first.
  gpu_thread* threads = b.threads;
  uint32_t* ring = b.ready;
  const uint32_t size = b.size;
  uint32_t head = b.ready_head, count = 0;
  for_each_lane<true>(group, b.warp_size, [&](uint32_t lane) FL_EMU_UNINSTRUMENTED {
    threads[base + lane].status = thread_status::ready;
    head = head == 0 ? size - 1 : head - 1;
    ring[head] = base + lane;
    count++;
  });
  b.ready_head = head;
  b.ready_count += count;
}

// Plain mode: the thread that has been ready longest. Check mode: the
// first-ranked ready thread, so some threads run far ahead of others.
FL_EMU_UNINSTRUMENTED inline gpu_thread* pop_ready(block_state& b) {
  if (b.ready_count == 0) return nullptr;
  b.ready_count--;
  if (b.check) {
    uint32_t word = static_cast<uint32_t>(__builtin_ctzll(b.ready_words));
    uint64_t& bits = b.ready_bits[word];
    uint32_t r = word * 64 + static_cast<uint32_t>(__builtin_ctzll(bits));
    bits &= bits - 1;
    if (!bits) b.ready_words &= ~(uint64_t(1) << word);
    return &b.threads[b.order[r]];
  }
  uint32_t linear = b.ready[b.ready_head];
  b.ready_head = b.ready_head + 1 == b.size ? 0 : b.ready_head + 1;
  // The stack top of the thread after it: the next switch loads its registers
  // from there, and its frames lie just above.
  if (b.ready_count) {
    const char* top = static_cast<const char*>(context_memory(b.threads[b.ready[b.ready_head]].registers));
    for (int line = 0; line < 4; line++) __builtin_prefetch(top + 64 * line);
  }
  return &b.threads[linear];
}

// Switches from the context `save` to thread `next`, or to the block's main
// context when next is null.
FL_EMU_UNINSTRUMENTED inline void switch_to(block_state& b, context* save, gpu_thread* next) {
  context* target = next ? next->home : &b.main;
  if (next) {
    b.current = next;
    next->status = thread_status::running;
    b.state->where.thread = next->idx;
  }
  if (target != save) context_switch(save, target);
}

// Lock step: where paths x and y (return addresses, innermost first) part,
// compared from the kernel in: their addresses there in *a and *c; false where
// one path holds the other.
FL_EMU_UNINSTRUMENTED inline bool paths_part(const uintptr_t* x, uint32_t x_depth, const uintptr_t* y, uint32_t y_depth,
                                             uintptr_t* a, uintptr_t* c) {
  for (uint32_t i = 1; i <= x_depth && i <= y_depth; i++) {
    *a = x[x_depth - i], *c = y[y_depth - i];
    if (*a != *c) return true;
  }
  return false;
}

// Whether the place of path x is before that of path y in the code: where they
// part, the one at the lower address.
FL_EMU_UNINSTRUMENTED inline bool path_before(const uintptr_t* x, uint32_t x_depth, const uintptr_t* y, uint32_t y_depth) {
  uintptr_t a, c;
  return paths_part(x, x_depth, y, y_depth, &a, &c) ? a < c : x_depth > y_depth;
}

FL_EMU_UNINSTRUMENTED inline bool waits_before(const gpu_thread& x, const gpu_thread& y) {
  return path_before(x.step_path, x.step_depth, y.step_path, y.step_depth);
}

#if defined(FL_EMU_LOCKSTEP)
// The module's loops, each {its first instruction, past its jump back}: a table
// the compile adds to the module's assembly (native/backends/cpu/loops.cc).
extern "C" const uintptr_t fl_emu_loops[][2] __attribute__((visibility("hidden")));
extern "C" const uint32_t fl_emu_loop_count __attribute__((visibility("hidden")));

FL_EMU_UNINSTRUMENTED inline bool in_one_loop(uintptr_t a, uintptr_t c) {
  const uintptr_t low = a < c ? a : c, high = a < c ? c : a;
  for (uint32_t i = 0; i < fl_emu_loop_count; i++)
    if (fl_emu_loops[i][0] <= low && high < fl_emu_loops[i][1]) return true;
  return false;
}
#else
FL_EMU_UNINSTRUMENTED inline bool in_one_loop(uintptr_t, uintptr_t) { return false; }
#endif

// Lock step: whether held lane x goes before lane y of its warp. Where the two
// are inside one loop and x is in an earlier turn, x: a GPU's warp finishes a
// turn's code, lanes that skip part of it waiting, before its lanes begin the
// next. Otherwise the one at the earlier place: lanes that left the loop wait
// for those still in it.
FL_EMU_UNINSTRUMENTED inline bool goes_before(const gpu_thread& x, const gpu_thread& y) {
  uintptr_t a, c;
  if (!paths_part(x.step_path, x.step_depth, y.step_path, y.step_depth, &a, &c)) return x.step_depth > y.step_depth;
  return x.step_turns != y.step_turns && in_one_loop(a, c) ? x.step_turns < y.step_turns : a < c;
}

// Lock step: a thread at a barrier or warp operation its warp meets at; its next step
// counts turns from there.
FL_EMU_UNINSTRUMENTED inline void meet(gpu_thread& t) {
  t.step_depth = 0;
  t.step_turns = 0;
}

FL_EMU_UNINSTRUMENTED inline bool waits_at_same_place(const gpu_thread& x, const gpu_thread& y) {
  if (x.step_depth != y.step_depth) return false;
  for (uint32_t i = 0; i < x.step_depth; i++)
    if (x.step_path[i] != y.step_path[i]) return false;
  return true;
}

// No thread is ready: those held back go on. Of each warp, the lanes that wait
// at the first place in the code go on, in the order they were held, and the
// others wait again: lanes that took different paths of a branch meet again
// where the paths join, as a GPU's warp does, whose compiler lays a branch's
// code out before the join and a loop's body before the code after it. A warp
// with a lane at a volatile access (no path; also a lane spinning on a lock)
// goes on whole, and so does one whose lanes were kept back kLockstepPatience
// rounds in a row: a lane spinning on a volatile flag that another lane of its
// warp sets further on lets that lane go in the end, as NVIDIA GPUs since Volta
// schedule a warp's paths in turn (a loop that many turns long, run by part of
// a warp, lets the rest go on early). The warps go in the order of their places, the one
// furthest behind first, as a GPU's warps go on nearly in step.
constexpr uint32_t kLockstepPatience = 1u << 20;

FL_EMU_UNINSTRUMENTED inline void release_held(block_state& b) {
  const uint32_t held = b.deferred_count;
  constexpr uint32_t kNone = ~0u;
  for (uint32_t k = 0; k < held; k++) b.warps[b.threads[b.deferred[k]].warp].first_held = kNone;
  uint32_t waiting[kMaxWarps];  // the warps with held lanes, then sorted by their first place
  uint32_t warps = 0;
  for (uint32_t k = 0; k < held; k++) {
    const uint32_t linear = b.deferred[k];
    const gpu_thread& t = b.threads[linear];
    uint32_t& first = b.warps[t.warp].first_held;
    if (first == kNone) waiting[warps++] = t.warp;
    if (first == kNone || (b.threads[first].step_depth && (!t.step_depth || goes_before(t, b.threads[first])))) first = linear;
  }
  for (uint32_t i = 1; i < warps; i++) {
    const uint32_t w = waiting[i];
    uint32_t j = i;
    for (; j > 0 && waits_before(b.threads[b.warps[w].first_held], b.threads[b.warps[waiting[j - 1]].first_held]); j--)
      waiting[j] = waiting[j - 1];
    waiting[j] = w;
  }
  // Counted out by rank into the ring of ready threads, which is empty.
  uint32_t start[kMaxWarps + 1] = {};
  for (uint32_t i = 0; i < warps; i++) b.warps[waiting[i]].held_rank = i;
  auto goes_on = [&b](const gpu_thread& t) FL_EMU_UNINSTRUMENTED {
    const warp_state& w = b.warps[t.warp];
    const gpu_thread& first = b.threads[w.first_held];
    return !first.step_depth || w.passed_over >= kLockstepPatience || waits_at_same_place(t, first);
  };
  bool going[kMaxThreads];
  for (uint32_t k = 0; k < held; k++) {
    const gpu_thread& t = b.threads[b.deferred[k]];
    going[k] = goes_on(t);
    if (going[k]) start[b.warps[t.warp].held_rank + 1]++;
  }
  // A warp whose every lane goes on goes on together: its count of turns starts again.
  bool together[kMaxWarps];
  for (uint32_t i = 0; i < warps; i++)
    together[i] = start[i + 1] == static_cast<uint32_t>(__builtin_popcountll(b.warps[waiting[i]].live));
  for (uint32_t i = 0; i < warps; i++) start[i + 1] += start[i];
  const uint32_t released = start[warps];
  uint32_t kept = 0;
  for (uint32_t k = 0; k < held; k++) {
    const uint32_t linear = b.deferred[k];
    gpu_thread& t = b.threads[linear];
    if (!going[k]) {
      b.deferred[kept++] = linear;
    } else if (b.check) {
      push_ready(b, linear);  // check mode's order is its own
    } else {
      t.status = thread_status::ready;
      if (together[b.warps[t.warp].held_rank]) t.step_turns = 0;
      uint32_t slot = b.ready_head + start[b.warps[t.warp].held_rank]++;
      if (slot >= b.size) slot -= b.size;
      b.ready[slot] = linear;
    }
  }
  if (!b.check) b.ready_count += released;
  bool kept_back[kMaxWarps] = {};
  for (uint32_t k = 0; k < kept; k++) kept_back[b.threads[b.deferred[k]].warp] = true;
  for (uint32_t i = 0; i < warps; i++) {
    uint32_t& passed = b.warps[waiting[i]].passed_over;
    passed = kept_back[waiting[i]] ? passed + 1 : 0;
  }
  b.deferred_count = kept;
}

// The thread to run next; null once the block has failed or no thread is
// ready. When none is, the threads held back by volatile_step go on, in the
// order they were held. None ready while some have not exited is a deadlock: the block fails.
FL_EMU_UNINSTRUMENTED inline gpu_thread* next_ready(block_state& b) {
  if (b.failed) return nullptr;
  gpu_thread* next = pop_ready(b);
  if (!next && b.deferred_count) {
    release_held(b);
    next = pop_ready(b);
  }
  if (!next && b.exited != b.size) describe_deadlock(b);
  return next;
}

// The current thread cannot go on (it waits, or has exited): run the next
// ready one. Returns when this thread is ready again.
FL_EMU_UNINSTRUMENTED inline void yield(block_state& b, gpu_thread& self) {
  switch_to(b, self.home, next_ready(b));
  if (b.failed) abandon_block(b);
}

FL_EMU_UNINSTRUMENTED inline void describe_mismatch(block_state& b, uint32_t warp, const gpu_thread& x, const gpu_thread& y) {
  const fl_emu_where& w = b.state->where;
  fail(b, "kernel '%s': the lanes of warp %u in block (%u,%u,%u) wait at different warp operations: "
          "thread (%u,%u,%u) at %s on line %d (mask 0x%llx), thread (%u,%u,%u) at %s on line %d (mask 0x%llx)",
       b.launch->desc->kernel, warp, w.block.x, w.block.y, w.block.z, x.idx.x, x.idx.y, x.idx.z,
       warp_op_name(x.op, x.mask != kLiveLanes), x.line, static_cast<unsigned long long>(x.mask), y.idx.x, y.idx.y,
       y.idx.z, warp_op_name(y.op, y.mask != kLiveLanes), y.line, static_cast<unsigned long long>(y.mask));
}

// Check mode: a shuffle read a lane its mask leaves out, one it names past the
// block's last thread (a partial last warp), or one it names that exited, whose
// value a GPU leaves undefined. (CUDA asks only the lanes of a mask that have not
// exited to reach the operation: `if (row >= rows) return;` before a shuffle
// among the lanes of each row is valid.)
enum class unread_lane { unnamed, past_end, exited };
FL_EMU_UNINSTRUMENTED inline void describe_undefined_read(block_state& b, const gpu_thread& reader, uint32_t source, unread_lane why) {
  const fl_emu_where& w = b.state->where;
  const char* because =
      why == unread_lane::unnamed ? "leaves out (a GPU gives an undefined value there: name every lane read in the mask)"
      : why == unread_lane::past_end ? "names, but no thread of the block runs there (a GPU gives an undefined value: a block whose size "
                                       "is not a multiple of the warp's reads only the lanes it has)"
                                     : "names, but whose thread exited before it (a GPU gives an undefined value: read only lanes "
                                       "that reach the operation)";
  fail(b, "kernel '%s': %s on line %d in block (%u,%u,%u): thread (%u,%u,%u) reads lane %u%s, which its mask 0x%llx %s",
       b.launch->desc->kernel, warp_op_name(reader.op, true), reader.line, w.block.x, w.block.y, w.block.z,
       reader.idx.x, reader.idx.y, reader.idx.z, source, why == unread_lane::past_end ? " (past the block's last thread)" : "",
       static_cast<unsigned long long>(reader.mask), because);
}

// The group of lanes a lane's warp operation waits for: those of its mask that have not exited,
// and the lane itself (one outside its own mask, in plain mode: see complete_arrived_groups).
FL_EMU_UNINSTRUMENTED inline lane_mask group_of(const gpu_thread& t, const warp_state& w) {
  return (t.mask | lane_mask(1) << t.lane) & w.live;
}

// Whether lane t waits at the warp operation lane a waits at (__syncwarp()s on different lines meet).
FL_EMU_UNINSTRUMENTED inline bool at_same_operation(const gpu_thread& a, const gpu_thread& t) {
  return t.op == a.op && t.mask == a.mask && (a.op == warp_op::syncwarp || t.line == a.line);
}

// The 32-bit reduction of the group's values (__reduce_*_sync), signed or not.
FL_EMU_UNINSTRUMENTED inline uint64_t reduce_lanes(warp_op op, bool is_signed, const uint64_t* values, lane_mask group) {
  uint32_t total = static_cast<uint32_t>(values[lowest_lane(group)]);
  for (lane_mask m = group & (group - 1); m; m &= m - 1) {
    const uint32_t v = static_cast<uint32_t>(values[lowest_lane(m)]);
    const bool less = is_signed ? static_cast<int32_t>(v) < static_cast<int32_t>(total) : v < total;
    switch (op) {
      case warp_op::reduce_add: total += v; break;
      case warp_op::reduce_min: total = less ? v : total; break;
      case warp_op::reduce_max: total = less || v == total ? total : v; break;
      case warp_op::reduce_and: total &= v; break;
      case warp_op::reduce_or: total |= v; break;
      default: total ^= v; break;
    }
  }
  return total;
}

// Computes and hands out the results of one warp operation whose group of
// lanes has all arrived, and makes them ready.
FL_EMU_UNINSTRUMENTED inline void complete_group(block_state& b, uint32_t warp, lane_mask group) {
  warp_state& w = b.warps[warp];
  const uint32_t base = warp * b.warp_size;
  gpu_thread* lanes = b.threads + base;
  const gpu_thread& first = lanes[lowest_lane(group)];
  const warp_op op = first.op;
  const lane_mask mask = first.mask;
  // Plain mode: the lanes outside the mask that wait at the same operation take part (complete_arrived_groups).
  if (!b.check && mask != kLiveLanes)
    for (lane_mask m = w.arrived & w.live & ~group; m; m &= m - 1) {
      const gpu_thread& t = lanes[lowest_lane(m)];
      if (at_same_operation(first, t) && !(mask >> lowest_lane(m) & 1)) group |= lane_mask(1) << lowest_lane(m);
    }
  settle_races(b);
  w.meetings++;
  // Every lane at the same operation, its value gathered.
  uint64_t values[64];
  const uint32_t warp_lanes = b.warp_size;
  bool same = true;
  for_each_lane(group, warp_lanes, [&](uint32_t lane) FL_EMU_UNINSTRUMENTED {
    gpu_thread& t = lanes[lane];
    same &= at_same_operation(first, t);
    values[lane] = t.value;
    meet(t);
  });
  if (!same) {
    lane_mask m = group;
    while (at_same_operation(first, lanes[lowest_lane(m)])) m &= m - 1;
    describe_mismatch(b, warp, first, lanes[lowest_lane(m)]);
    return;
  }
  // One loop an operation, each lane's result from `result(lane, thread)`.
  auto each_lane = [&](auto result) FL_EMU_UNINSTRUMENTED {
    for_each_lane(group, warp_lanes, [&](uint32_t lane) FL_EMU_UNINSTRUMENTED { lanes[lane].result = result(lane, lanes[lane]); });
  };
  // A shuffle reads value_of(lane, source) for a source in the lane's segment or an earlier one.
  // NVIDIA's GPUs read the low 5 bits of a lane offset or xor mask (PTX's shfl.sync:
  // a delta of 33 moves by 1); AMD's 64-lane code compares the whole value.
  const uint32_t offset_bits = warp_lanes == 32 ? 31u : ~0u;
  auto shuffle = [&](auto value_of) FL_EMU_UNINSTRUMENTED {
    switch (op) {
      case warp_op::shfl:
        each_lane([&](uint32_t lane, const gpu_thread& t) FL_EMU_UNINSTRUMENTED {
          const uint32_t width = t.width;
          return value_of(lane, (lane & ~(width - 1)) + (t.param & (width - 1)));
        });
        break;
      case warp_op::shfl_xor:
        each_lane([&](uint32_t lane, const gpu_thread& t) FL_EMU_UNINSTRUMENTED {
          const uint32_t source = lane ^ (t.param & offset_bits);
          // A source past the lane's segment (later segments): its own value.
          return source < (lane & ~(t.width - 1)) + t.width ? value_of(lane, source) : values[lane];
        });
        break;
      case warp_op::shfl_down:
        each_lane([&](uint32_t lane, const gpu_thread& t) FL_EMU_UNINSTRUMENTED {
          const uint32_t delta = t.param & offset_bits;
          return (lane & (t.width - 1)) + delta < t.width ? value_of(lane, lane + delta) : values[lane];
        });
        break;
      default:  // shfl_up
        each_lane([&](uint32_t lane, const gpu_thread& t) FL_EMU_UNINSTRUMENTED {
          const uint32_t delta = t.param & offset_bits;
          return (lane & (t.width - 1)) >= delta ? value_of(lane, lane - delta) : values[lane];
        });
        break;
    }
  };
  lane_mask yes = 0;
  switch (op) {
    case warp_op::shfl:
    case warp_op::shfl_xor:
    case warp_op::shfl_down:
    case warp_op::shfl_up:
      if (group == whole_warp(warp_lanes)) {
        // Every lane of the warp takes part: each source is one of them.
        shuffle([&](uint32_t, uint32_t source) FL_EMU_UNINSTRUMENTED { return values[source]; });
      } else {
        // Lanes outside the group take no part: reading one gives 0, as NVIDIA's
        // GPUs give it (measured on an H200) and AMD's ds_bpermute gives it for a
        // disabled lane.
        int reader = -1, read = -1;
        shuffle([&](uint32_t self, uint32_t source) FL_EMU_UNINSTRUMENTED {
          if (source < 64 && (group >> source & 1)) return values[source];
          if (reader < 0 && mask != kLiveLanes) reader = self, read = source;
          return uint64_t(0);
        });
        // Check mode: a GPU gives an undefined value for a lane outside the group.
        if (b.check && reader >= 0) {
          const uint32_t source = static_cast<uint32_t>(read);
          const unread_lane why = !(source < 64 && (mask >> source & 1)) ? unread_lane::unnamed
                                  : base + source >= b.size               ? unread_lane::past_end
                                                                           : unread_lane::exited;
          describe_undefined_read(b, lanes[reader], source, why);
          return;
        }
      }
      break;
    case warp_op::any:
    case warp_op::all:
    case warp_op::ballot:
      for (lane_mask m = group; m; m &= m - 1)
        if (values[lowest_lane(m)]) yes |= lane_mask(1) << lowest_lane(m);
      each_lane([&](uint32_t, const gpu_thread&) FL_EMU_UNINSTRUMENTED {
        return op == warp_op::any ? uint64_t(yes != 0) : op == warp_op::all ? uint64_t(yes == group) : uint64_t(yes);
      });
      break;
    case warp_op::syncwarp:
      b.shared_epoch++;
      each_lane([&](uint32_t, const gpu_thread&) FL_EMU_UNINSTRUMENTED { return uint64_t(0); });
      break;
    case warp_op::activemask: each_lane([&](uint32_t, const gpu_thread&) FL_EMU_UNINSTRUMENTED { return uint64_t(0); }); break;
    case warp_op::reduce_add:
    case warp_op::reduce_min:
    case warp_op::reduce_max:
    case warp_op::reduce_and:
    case warp_op::reduce_or:
    case warp_op::reduce_xor: {
      const uint64_t total = reduce_lanes(op, first.param != 0, values, group);
      each_lane([&](uint32_t, const gpu_thread&) FL_EMU_UNINSTRUMENTED { return total; });
      break;
    }
    case warp_op::match_any:
      each_lane([&](uint32_t lane, const gpu_thread&) FL_EMU_UNINSTRUMENTED {
        lane_mask same = 0;
        for (lane_mask m = group; m; m &= m - 1)
          if (values[lowest_lane(m)] == values[lane]) same |= lane_mask(1) << lowest_lane(m);
        return same;
      });
      break;
    case warp_op::permute: {
      // Sent in lane order, so that of several senders to one lane the highest's stays.
      uint64_t sent[64] = {};
      for (lane_mask m = group; m; m &= m - 1) sent[lanes[lowest_lane(m)].param & (warp_lanes - 1)] = values[lowest_lane(m)];
      each_lane([&](uint32_t lane, const gpu_thread&) FL_EMU_UNINSTRUMENTED { return sent[lane]; });
      break;
    }
    case warp_op::match_all: {
      bool all = true;
      for (lane_mask m = group; m; m &= m - 1) all &= values[lowest_lane(m)] == values[lowest_lane(group)];
      each_lane([&](uint32_t, const gpu_thread&) FL_EMU_UNINSTRUMENTED { return all ? group : lane_mask(0); });
      break;
    }
  }
  push_warp_ready(b, warp, group);
  w.arrived &= ~group;
}


// __activemask(): the lanes of the warp that reached it together. Those that
// wait there are handed the mask once every other live lane of the warp waits
// too (at a barrier or another warp operation), or has exited; those at the
// earliest line first.
__attribute__((noinline)) FL_EMU_UNINSTRUMENTED inline void settle_waiting_activemask(block_state& b, uint32_t warp) {
  warp_state& w = b.warps[warp];
  const uint32_t base = warp * b.warp_size;
  for (lane_mask m = w.live & ~w.at_activemask & ~w.arrived; m; m &= m - 1)
    if (b.threads[base + lowest_lane(m)].status != thread_status::at_barrier) return;
  // Of lanes waiting at several calls, those at the earliest line go first: the
  // lanes a branch left out wait after it, where an AMD GPU's lanes reconverge
  // (an NVIDIA GPU may run either part first).
  int line = b.threads[base + lowest_lane(w.at_activemask)].line;
  for (lane_mask m = w.at_activemask; m; m &= m - 1) line = std::min(line, b.threads[base + lowest_lane(m)].line);
  lane_mask together = 0;
  for (lane_mask m = w.at_activemask; m; m &= m - 1)
    if (b.threads[base + lowest_lane(m)].line == line) together |= lane_mask(1) << lowest_lane(m);
  for (lane_mask m = together; m; m &= m - 1) {
    b.threads[base + lowest_lane(m)].result = together;
    push_ready(b, base + lowest_lane(m));
  }
  w.at_activemask &= ~together;
}

// Plain mode: whether every live lane of the warp outside `group` waits too (at a barrier or
// a warp operation) or has exited, as the lanes a GPU's converged warp runs together all reach
// the operation before it goes on.
FL_EMU_UNINSTRUMENTED inline bool warp_settled(block_state& b, uint32_t warp, lane_mask group) {
  const warp_state& w = b.warps[warp];
  const uint32_t base = warp * b.warp_size;
  for (lane_mask m = w.live & ~group & ~w.arrived & ~w.at_activemask; m; m &= m - 1)
    if (b.threads[base + lowest_lane(m)].status != thread_status::at_barrier) return false;
  return true;
}

// Completes the warp's operations whose lanes all wait there. In plain mode one whose mask
// leaves out live lanes waits until those wait too, and those of them at the same operation
// with the same mask take part (complete_group), as a GPU's converged warp runs a shuffle for
// every lane that reaches it: kaolin's __shfl_down_sync(0xfffffff, ...) from all 32 lanes
// sums all 32 on an H200. PTX leaves such a lane undefined; check mode reports it instead.
// Lanes of a group waiting at another operation go there first; once every lane of the warp
// waits and none can go on, complete_group reports the lanes at different operations.
FL_EMU_UNINSTRUMENTED inline void complete_arrived_groups(block_state& b, uint32_t warp) {
  warp_state& w = b.warps[warp];
  const gpu_thread* lanes = b.threads + warp * b.warp_size;
  for (bool progress = true; progress && w.arrived;) {
    progress = false;
    lane_mask mismatched = 0;
    for (lane_mask pending = w.arrived; pending;) {
      const uint32_t first = lowest_lane(pending);
      const lane_mask group = group_of(lanes[first], w);
      lane_mask same = lane_mask(1) << first;
      if ((w.arrived & group) == group)
        for (lane_mask m = group; m; m &= m - 1)
          if (at_same_operation(lanes[first], lanes[lowest_lane(m)])) same |= lane_mask(1) << lowest_lane(m);
      pending &= ~same;
      if ((w.arrived & group) != group) continue;
      if (same != group) {
        mismatched = group;
      } else if (b.check || group == w.live || warp_settled(b, warp, group)) {
        complete_group(b, warp, group);
        if (w.arrived & group) return;  // it reported a fault: the block stops
        progress = true;
        break;
      }
    }
    if (!progress && mismatched && warp_settled(b, warp, 0)) complete_group(b, warp, mismatched);
  }
}

// After a lane of the warp arrives at a wait or exits: the warp operations and __activemask calls that may go on.
FL_EMU_UNINSTRUMENTED inline void settle_warp(block_state& b, uint32_t warp) {
  if (b.warps[warp].arrived) complete_arrived_groups(b, warp);
  if (b.warps[warp].at_activemask) settle_waiting_activemask(b, warp);
}

// The barrier's waiting threads go on, once every thread of the block has
// arrived or exited (threads that returned early do not hold it up: a GPU's
// barrier counts only threads that have not exited).
FL_EMU_UNINSTRUMENTED inline bool release_barrier(block_state& b) {
  if (b.at_barrier == 0 || b.at_barrier + b.exited != b.size) return false;
  if (b.barrier_mismatch) {
    // Threads at different __syncthreads(): undefined in CUDA, yet a GPU's
    // barrier counts arrivals at any of them and lets all go on (a racy loop
    // exit some threads take a barrier early for). Check mode reports it, as
    // compute-sanitizer's synccheck does; plain mode goes on as the GPU.
    if (b.check) {
      describe_waits(b, "kernel '%s': the threads of block (%u,%u,%u) reached different __syncthreads() (a divergent "
                        "barrier, undefined in CUDA; a GPU lets them go on once all have arrived, as plain mode "
                        "does):");
      return true;
    }
    b.barrier_mismatch = false;
  }
  b.barrier_arrivals = b.at_barrier;
  b.at_barrier = 0;
  b.shared_epoch++;
  race_stretch_ends(b);
  b.barrier_result = b.barrier_votes;
  b.barrier_votes = 0;
  // Plain mode runs thread 0 last: past a barrier a GPU's warps go on
  // together, so the others read what thread 0, the leader that resets a
  // block's flag or count for the next round, has yet to write (SParry's SSSP
  // loop, PMPP's single-block BFS, which have no barrier between). The rest go
  // in order, their stacks in ascending addresses.
  for (uint32_t i = 0; i < b.size; i++) meet(b.threads[i]);
  for (uint32_t i = 1; i < b.size; i++)
    if (b.threads[i].status == thread_status::at_barrier) push_ready(b, i);
  if (b.threads[0].status == thread_status::at_barrier) push_ready(b, 0);
  return true;
}

FL_EMU_UNINSTRUMENTED inline void mark_exited(block_state& b, gpu_thread& t) {
  t.status = thread_status::exited;
  b.exited++;
  const uint32_t warp = t.warp, lane = t.lane;
  warp_state& w = b.warps[warp];
  const lane_mask bit = lane_mask(1) << lane;
  w.live &= ~bit;
  // The groups that waited for it may now be complete.
  settle_warp(b, warp);
  release_barrier(b);
}

FL_EMU_UNINSTRUMENTED inline block_state& current_block() { return *static_cast<block_state*>(tls().block); }

// The source line that an access made inside the emulator's own functions stands
// for (__ldg's caller), while it lasts; a fiber does not switch within it. Kept
// in the block, so that a launch stopped inside one leaves nothing behind.
struct access_site {
  const char* file;
  unsigned line;
  const access_site* outer;
  block_state* block;
  access_site(const char* f, unsigned l) : file(f), line(l), outer(nullptr), block(static_cast<block_state*>(tls().block)) {
    if (block) {
      outer = block->site;
      block->site = this;
    }
  }
  ~access_site() {
    if (block) block->site = outer;
  }
  access_site(const access_site&) = delete;
  access_site& operator=(const access_site&) = delete;
  static const access_site* current() { return tls().block ? current_block().site : nullptr; }
};
// Only check mode reports such accesses: plain mode's loads pay nothing.
#if defined(FL_EMU_CHECK_MODE)
#define FL_ACCESS_SITE(file, line) const ::fl::emu::access_site access_site_of_caller(file, line)
#else
#define FL_ACCESS_SITE(file, line) ((void)(file), (void)(line))
#endif

// The calling thread's rank in its block (x fastest), as CUDA numbers threads into warps.
FL_EMU_UNINSTRUMENTED inline unsigned linear_thread() {
  const fl_emu_dim3& t = tls().where.thread;
  const fl_emu_dim3& d = tls().block_dim;
  return t.x + d.x * (t.y + d.y * t.z);
}

// The calling thread's lane in its warp.
FL_EMU_UNINSTRUMENTED inline unsigned lane_in_warp() { return linear_thread() % static_cast<unsigned>(tls().warp_size); }

FL_EMU_UNINSTRUMENTED inline void fiber_main(void* arg) {
  gpu_thread& self = *static_cast<gpu_thread*>(arg);
  self.base_frame = reinterpret_cast<uintptr_t>(__builtin_frame_address(0));
  block_state& b = current_block();
  try {
    b.code->invoke(b.launch->args);
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
FL_EMU_UNINSTRUMENTED inline void make_fibers(block_state& b, uint32_t running) {
  b.launch->kernel->needs_fibers.store(true, std::memory_order_relaxed);
  hold_stops hold(b.worker);
  uint32_t warps = (b.size + b.warp_size - 1) / b.warp_size;
  size_t bytes = sizeof(gpu_thread) * b.size + sizeof(warp_state) * warps + sizeof(uint32_t) * 3 * b.size;
  unsigned char* memory = static_cast<unsigned char*>(b.worker->scratch(b.worker, 0, bytes));
  if (!memory) {
    fail(b, "kernel '%s': out of memory for the threads of a block", b.launch->desc->kernel);
    abandon_block(b);
  }
  b.threads = reinterpret_cast<gpu_thread*>(memory);
  b.warps = reinterpret_cast<warp_state*>(b.threads + b.size);
  b.ready = reinterpret_cast<uint32_t*>(b.warps + warps);
  b.rank = b.ready + b.size;
  b.deferred = b.rank + b.size;
  b.ready_head = b.ready_count = 0;
  b.deferred_count = 0;
  b.streak_warp = ~0u;
  b.streak = 0;
  b.ready_words = 0;
  if (b.check) {
    memset(b.ready_bits, 0, sizeof b.ready_bits);
    for (uint32_t r = 0; r < b.size; r++) b.rank[b.order[r]] = r;
  }
  b.at_barrier = 0;
  b.barrier_votes = 0;
  b.barrier_mismatch = false;
  b.exited = 0;
  for (uint32_t w = 0; w < warps; w++) b.warps[w] = warp_state{0, 0, 0};
  const fl_emu_dim3& dim = b.state->block_dim;
  fl_emu_dim3 idx{0, 0, 0};
  for (uint32_t i = 0; i < b.size; i++) {
    gpu_thread& t = b.threads[i];
    t.home = &t.registers;
    t.idx = idx;
    t.warp = i / b.warp_size;
    t.lane = i % b.warp_size;
    t.status = thread_status::exited;
    t.line = 0;
    t.mask = kLiveLanes;
    meet(t);
    if (++idx.x == dim.x) {  // the next index, without dividing
      idx.x = 0;
      if (++idx.y == dim.y) idx.y = 0, idx.z++;
    }
  }
  for (uint32_t k = 0; k < b.size; k++) {
    uint32_t i = b.order ? b.order[k] : k;
    gpu_thread& t = b.threads[i];
    if (k < running && running != b.size) {  // already run in loop mode: gone, its warp does not wait for it
      b.exited++;
      continue;
    }
    b.warps[t.warp].live |= lane_mask(1) << t.lane;
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
    // Stacks are a page multiple apart: starting each at another offset in its
    // page keeps the fibers' top frames from competing for the same cache sets.
    size_t stagger = (i * 64 * 7) % 4096;
    context_prepare(&t.registers, stack, stack_bytes - stagger, &fiber_main, &t);
    push_ready(b, i);
  }
  b.fibers = true;
}

// On the main context: runs fibers until all have exited or the block failed.
FL_EMU_UNINSTRUMENTED inline void run_fibers(block_state& b) {
  while (gpu_thread* next = next_ready(b)) switch_to(b, &b.main, next);
}

// Called by every barrier and warp operation: a loop-mode block changes over.
FL_EMU_UNINSTRUMENTED inline gpu_thread& fiber_self(block_state& b) {
  if (!b.fibers) make_fibers(b, b.loop_position);
  return *b.current;
}

// Before each access to a volatile object of the source (fl::emu::stepped): the
// thread waits until every other ready thread of the block has run to its next
// wait. The lanes of a warp then make each access of warp-synchronous code in
// step, as a GPU's warp executes it (the CUDA samples' `volatile T* vsmem`
// reduction over the last 32 threads, which has no __syncwarp), instead of
// lane 0 running through every step before lane 1 makes its first.
// Lock step's watch of an access to shared memory at `address`, `bytes` long.
FL_EMU_UNINSTRUMENTED inline void watch_shared_access(block_state& b, uint32_t thread, uintptr_t address, size_t bytes, bool write) {
  const uintptr_t static_words = (b.static_shared_bytes + 3) / 4;
  const bool in_static = address - b.static_shared < b.static_shared_bytes;
  const uintptr_t first = in_static ? (address - b.static_shared) / 4 : static_words + (address - reinterpret_cast<uintptr_t>(b.dynamic_shared)) / 4;
  const uintptr_t end = in_static ? static_words : static_words + (b.dynamic_shared_bytes + 3) / 4;
  const uintptr_t last = std::min<uintptr_t>(first + (bytes + 3) / 4, end);
  for (uintptr_t i = first; i < last; i++) {
    shared_word& w = b.shadow[i];
    if (w.epoch != b.shared_epoch) {
      w = shared_word{b.shared_epoch, static_cast<uint16_t>(thread), write, false};
    } else if (w.thread == thread) {
      w.written |= write;
      if (write && w.read_by_others) b.conflict = true;
    } else if (write || w.written) {
      b.conflict = true;
    } else {
      w.read_by_others = true;
    }
  }
  if (b.conflict) {
    b.watching = false;
    b.launch->kernel->needs_lockstep.store(true, std::memory_order_relaxed);
  }
}

FL_EMU_UNINSTRUMENTED inline gpu_thread& hold_back(block_state& b) {
  gpu_thread& self = fiber_self(b);
  self.status = thread_status::ready;
  b.deferred[b.deferred_count++] = static_cast<uint32_t>(&self - b.threads);
  return self;
}

FL_EMU_UNINSTRUMENTED inline void volatile_step() {
  block_state& b = current_block();
  gpu_thread& self = hold_back(b);
  self.step_depth = 0;
  yield(b, self);
}

// Lock step: before an access to shared memory (lockstep.h), from the frame
// `frame` of the function the compiler calls there. Lanes run one after
// another between waits, and without these a lane would make all its accesses
// before the next lane made its first: code that relies on a warp's lanes
// going in step (a tile shifted in place, lanes that zero part of a tile
// others fill, with no __syncwarp between) would read what a GPU's warp had
// not yet written, or had. The module keeps its frame pointers: the return
// addresses out to the fiber's first frame say where the lane is.
FL_EMU_UNINSTRUMENTED inline void step_from(block_state& b, void* const* frame) {
  gpu_thread& self = hold_back(b);
  // The outermost kStepDepth of them: lanes told apart only deeper in wait at one place.
  // Only words of the fiber's own stack are read, whatever a frame pointer holds.
  uintptr_t path[4 * kStepDepth];
  uint32_t depth = 0;
  while (depth < 4 * kStepDepth && reinterpret_cast<uintptr_t>(frame) < self.base_frame) {
    path[depth++] = reinterpret_cast<uintptr_t>(frame[1]);
    void* const* outer = static_cast<void* const*>(frame[0]);
    if (outer <= frame) break;  // not a frame of this stack
    frame = outer;
  }
  const uint32_t skipped = depth > kStepDepth ? depth - kStepDepth : 0;
  // Back at or before the place of its last step: the next turn of a loop.
  if (self.step_depth && !path_before(self.step_path, self.step_depth, path + skipped, depth - skipped)) self.step_turns++;
  for (uint32_t i = skipped; i < depth; i++) self.step_path[i - skipped] = path[i];
  self.step_depth = depth - skipped;
  yield(b, self);
}

FL_EMU_UNINSTRUMENTED inline void lockstep_step(void* const* frame, uintptr_t address, size_t bytes, bool write) {
  block_state& b = current_block();
  if (b.watching) watch_shared_access(b, linear_thread(), address, bytes, write);
  step_from(b, frame);
}

// A thread spinning on a lock (atomicCAS or atomicExch in a loop) lets the threads
// volatile_step holds back go on first: one of them may hold the lock, taken
// before a volatile access in its critical section.
FL_EMU_UNINSTRUMENTED inline void yield_to_held() {
  block_state& b = current_block();
  if (b.fibers && b.deferred_count) volatile_step();
}

// __syncthreads(): the block's threads go on once all have arrived (or exited).
FL_EMU_UNINSTRUMENTED inline void syncthreads(int line) {
  block_state& b = current_block();
  gpu_thread& self = fiber_self(b);
  self.status = thread_status::at_barrier;
  self.line = line;
  if (b.at_barrier == 0) {
    b.barrier_line = line;
  } else if (line != b.barrier_line) {
    b.barrier_mismatch = true;
  }
  ++b.at_barrier;
  if (!release_barrier(b)) settle_warp(b, self.warp);
  yield(b, self);
}

// __syncthreads_count(p): the barrier, returning how many threads arrived with p
// true (threads that exited count as false). __syncthreads_and and _or compare it.
// A thread reads the count before it can arrive at the next barrier, and that one
// cannot release before every thread has arrived, so one result slot serves.
FL_EMU_UNINSTRUMENTED inline int syncthreads_count(int line, int predicate) {
  block_state& b = current_block();
  fiber_self(b);
  if (predicate) b.barrier_votes++;
  syncthreads(line);
  return static_cast<int>(b.barrier_result);
}
FL_EMU_UNINSTRUMENTED inline int syncthreads_and(int line, int predicate) {
  block_state& b = current_block();
  return static_cast<uint32_t>(syncthreads_count(line, predicate)) == b.barrier_arrivals;
}
FL_EMU_UNINSTRUMENTED inline int syncthreads_or(int line, int predicate) { return syncthreads_count(line, predicate) != 0; }

// Sleeping until *word is no longer `seen`, or `ms` have passed; a wake_all() ends it.
// (Linux's futex: the emulator's pool is Linux's threads and signals.)
FL_EMU_UNINSTRUMENTED inline void sleep_while(std::atomic<uint32_t>& word, uint32_t seen, long ms) {
  timespec limit{0, ms * 1000000L};
  syscall(SYS_futex, reinterpret_cast<uint32_t*>(&word), FUTEX_WAIT_PRIVATE, seen, &limit, nullptr, 0);
}
FL_EMU_UNINSTRUMENTED inline void wake_all(std::atomic<uint32_t>& word) {
  syscall(SYS_futex, reinterpret_cast<uint32_t*>(&word), FUTEX_WAKE_PRIVATE, INT32_MAX, nullptr, nullptr, 0);
}

// A block of a cooperative launch ran to its end: a block waiting at grid.sync()
// for it would wait forever (a GPU hangs), so waiters look again and say so.
FL_EMU_UNINSTRUMENTED inline void note_block_finished(launch_state& L, uint64_t index) {
  uint64_t lowest = L.grid.first_finished.load();
  while (index < lowest && !L.grid.first_finished.compare_exchange_weak(lowest, index)) {
  }
  L.grid.finished.fetch_add(1);
  wake_all(L.grid.generation);
}

// The cross-block part of grid.sync(), by one thread of the block while the
// others wait at its block barriers: every block arrives, then all go on.
FL_EMU_UNINSTRUMENTED inline void wait_for_grid(block_state& b, int line) {
  launch_state& L = *const_cast<launch_state*>(b.launch);
  grid_barrier& g = L.grid;
  const uint32_t generation = g.generation.load();
  if (g.arrived.fetch_add(1) + 1 == g.blocks) {
    g.arrived.store(0);
    g.generation.fetch_add(1);
    wake_all(g.generation);
    return;
  }
  for (uint32_t spins = 0;; spins++) {
    if (g.generation.load() != generation) return;
    // A block that failed is counted finished after it marks the launch failed.
    if (g.finished.load() > 0 || L.failed.load()) {
      if (L.failed.load()) abandon_block(b);  // another block failed: the launch reports it
      if (g.generation.load() != generation) return;
      const uint64_t gone = g.first_finished.load();
      const fl_emu_dim3& d = L.desc->grid;
      fail(b, "kernel '%s' deadlocked at grid.sync() on line %d: block (%llu,%llu,%llu) ended without reaching it, and a GPU's other blocks would wait for it forever",
           L.desc->kernel, line, static_cast<unsigned long long>(gone % d.x), static_cast<unsigned long long>(gone / d.x % d.y),
           static_cast<unsigned long long>(gone / (uint64_t(d.x) * d.y)));
      abandon_block(b);
    }
    // Once the plugin stops the launch, this loop is where its signal lands.
    if (*b.worker->stopping) continue;
    if (spins < 64) {
#if defined(__x86_64__)
      __builtin_ia32_pause();
#endif
      continue;
    }
    sleep_while(g.generation, generation, 10);
  }
}

// cooperative_groups' grid.sync(): the block's threads meet, one waits for the
// other blocks, and then the block's threads go on together, as CUDA's does it.
FL_EMU_UNINSTRUMENTED inline void grid_sync(int line) {
  block_state& b = current_block();
  if (!b.launch->desc->cooperative) {
    fail(b, "kernel '%s': grid.sync() on line %d needs every block of the grid resident at once (a cooperative launch); fuselab launches a kernel so when its source syncs the grid in a way fuselab reads before the launch (grid.sync(), this_grid().sync(), cg::sync(grid) in the kernel or a function it calls by name)",
         b.launch->desc->kernel, line);
    abandon_block(b);
  }
  syncthreads(line);
  if (!b.grid_waited) {
    b.grid_waited = true;
    wait_for_grid(b, line);
  }
  syncthreads(line);
  b.grid_waited = false;
}

[[noreturn]] FL_EMU_UNINSTRUMENTED inline void refuse_warp_op(block_state& b, warp_op op, bool masked, int line, const char* why) {
  const fl_emu_where& w = b.state->where;
  fail(b, "kernel '%s': %s on line %d: %s (block (%u,%u,%u), thread (%u,%u,%u))", b.launch->desc->kernel,
       warp_op_name(op, masked), line, why, w.block.x, w.block.y, w.block.z, w.thread.x, w.thread.y, w.thread.z);
  abandon_block(b);
}

// The refusals of warp_exchange, out of its way (it runs at every warp operation).
[[noreturn]] __attribute__((noinline, cold)) FL_EMU_UNINSTRUMENTED inline void refuse_width(block_state& b, warp_op op, bool masked, int line, int width) {
  char why[96];
  snprintf(why, sizeof why, "width must be a power of two from 1 to warpSize (%d), got %d", b.warp_size, width);
  refuse_warp_op(b, op, masked, line, why);
}

constexpr lane_mask kFullMask32 = 0xffffffffu;

[[noreturn]] __attribute__((noinline, cold)) FL_EMU_UNINSTRUMENTED inline void refuse_lane(block_state& b, warp_op op, int line, uint32_t lane, lane_mask mask) {
  char why[320];
  // A mask of 0 most often comes from (1 << n) - 1 with n = 32: x86 shifts by the
  // count modulo 32, where a GPU's shift gives 0 and so a mask of every lane.
  snprintf(why, sizeof why, "the calling lane %u is not in its mask 0x%llx%s", lane, static_cast<unsigned long long>(mask),
           mask == 0 ? " (if it was computed as (1 << n) - 1: that is 0 on the CPU for n = 32, and every lane on a GPU; "
                       "check mode reports such a shift, with its line)"
           : mask == kFullMask32 ? " (a 32-lane warp's full mask, which names half of this device's 64-lane warp: pass "
                                   "__activemask() or a 64-bit mask, as HIP requires)" : "");
  refuse_warp_op(b, op, true, line, why);
}

// What a warp operation gives a lane that takes part alone: its own value, its own vote.
FL_EMU_UNINSTRUMENTED inline uint64_t lone_result(warp_op op, uint32_t lane, uint64_t value) {
  switch (op) {
    case warp_op::any:
    case warp_op::all: return value != 0;
    case warp_op::ballot: return value != 0 ? lane_mask(1) << lane : 0;
    case warp_op::match_any:
    case warp_op::match_all: return lane_mask(1) << lane;
    case warp_op::syncwarp: return 0;
    default: return value;
  }
}

FL_EMU_UNINSTRUMENTED inline lane_mask wait_at_activemask(block_state& b, gpu_thread& self, int line) {
  const uint32_t warp = self.warp;
  self.status = thread_status::at_warp_op;
  self.op = warp_op::activemask;
  self.line = line;
  self.mask = kLiveLanes;
  b.warps[warp].at_activemask |= lane_mask(1) << self.lane;
  settle_warp(b, warp);
  yield(b, self);
  return self.result;
}

// Every warp operation: the lanes of `mask` (bit i: lane i; kLiveLanes: every
// lane not exited) take part, each passing its `value`; `param` is the source
// lane, xor mask or delta of a shuffle, `width` its segment (kWholeWarp, or any
// negative width: the warp). Returns this lane's result once all of them have
// arrived. warp_op::activemask ignores all but `line`: see settle_activemask.
FL_EMU_UNINSTRUMENTED inline uint64_t warp_exchange(warp_op op, int line, uint64_t value, uint32_t param, int width,
                              lane_mask mask = kLiveLanes) {
  block_state& b = current_block();
  const int lanes = b.warp_size;
  const bool masked = mask != kLiveLanes;
  if (width < 0)
    width = lanes;
  else if (width == 0 || width > lanes || (width & (width - 1)) != 0)
    refuse_width(b, op, masked, line, width);
  gpu_thread& self = fiber_self(b);
  const uint32_t warp = self.warp, lane = self.lane;
  if (op == warp_op::activemask) return wait_at_activemask(b, self, line);
  if (masked && lanes < 64) mask &= (lane_mask(1) << lanes) - 1;
  if (masked && !(mask >> lane & 1)) {
    // A lane outside the mask it passes (TVM's block reductions, whose every lane computes
    // `__activemask() & ((1 << warps) - 1)` and shuffles with it; kaolin's 0xfffffff) takes
    // part with the lanes of the mask that wait at the same operation, as a GPU's converged warp
    // runs it (complete_arrived_groups), and alone where none of them is live. PTX leaves it
    // undefined: check mode reports it; a mask of no lane (most often (1 << 32) - 1 on x86) is
    // refused. On a 64-lane warp a CUDA source's 0xffffffff leaves lanes 32 to 63 out, which
    // hipcc refuses at compile time (its _sync masks are 64 bits): never what the source meant.
    if (b.check || mask == 0 || (lanes == 64 && mask == kFullMask32)) refuse_lane(b, op, line, lane, mask);
    if (!(mask & b.warps[warp].live)) return lone_result(op, lane, value);
  }
  warp_state& w = b.warps[warp];
  // A warp operation waits for the lanes of its mask that have not exited, as CUDA defines it.
  self.status = thread_status::at_warp_op;
  self.op = op;
  self.line = line;
  self.mask = mask;
  self.param = param;
  self.width = static_cast<uint32_t>(width);
  self.value = value;
  w.arrived |= lane_mask(1) << lane;
  // Where every waiting lane's group is the whole warp, only this lane's group may go on (the
  // common case, at a cheap cost); else complete_arrived_groups looks at them all.
  const lane_mask group = group_of(self, w);
  w.partial = (w.partial & ~(lane_mask(1) << lane)) | (group != w.live ? lane_mask(1) << lane : 0);
  if (!(w.partial & w.arrived)) {
    if ((w.arrived & group) == group) complete_group(b, warp, group);
    if (w.at_activemask) settle_waiting_activemask(b, warp);
  } else {
    settle_warp(b, warp);
  }
  yield(b, self);
  return self.result;
}


template <typename T>
FL_EMU_UNINSTRUMENTED inline uint64_t to_lane_bits(T v) {
  static_assert(sizeof(T) <= 8 && std::is_trivially_copyable<T>::value, "warp operations move values of up to 8 bytes");
  uint64_t bits = 0;
  memcpy(&bits, &v, sizeof v);
  return bits;
}
template <typename T>
FL_EMU_UNINSTRUMENTED inline T from_lane_bits(uint64_t bits) {
  T v;
  memcpy(&v, &bits, sizeof v);
  return v;
}

// A value as a GPU's register holds it, which is what a shuffle moves: half.h's
// 16-bit products overload it (found by argument-dependent lookup) to forget
// their factors (rounded, as the GPU rounds a product it moves, they fuse with
// no add after the move).
template <typename T> FL_EMU_UNINSTRUMENTED inline T fl_as_register(const T& v) { return v; }

// A shuffle of a value of type T; width < 0: the whole warp. A value wider than
// 8 bytes (a uint4, a struct) moves 8 bytes at a time, as a GPU shuffles it a
// register at a time.
template <typename T>
FL_EMU_UNINSTRUMENTED inline T shuffle_op(warp_op op, int line, T v, uint32_t param, int width, lane_mask mask = kLiveLanes) {
  v = fl_as_register(v);
  if constexpr (sizeof(T) <= 8) {
    return from_lane_bits<T>(warp_exchange(op, line, to_lane_bits(v), param, width, mask));
  } else {
    static_assert(std::is_trivially_copyable<T>::value, "warp shuffles move trivially copyable values");
    uint64_t words[(sizeof(T) + 7) / 8] = {};
    memcpy(words, &v, sizeof v);
    for (uint64_t& word : words) word = warp_exchange(op, line, word, param, width, mask);
    T result;
    memcpy(&result, words, sizeof result);
    return result;
  }
}

// __syncwarp() (every lane not exited) and __syncwarp(mask).
FL_EMU_UNINSTRUMENTED inline lane_mask syncwarp_mask() { return kLiveLanes; }
FL_EMU_UNINSTRUMENTED inline lane_mask syncwarp_mask(lane_mask mask) { return mask; }

FL_EMU_UNINSTRUMENTED inline void* dynamic_shared() { return current_block().dynamic_shared; }

// __isShared and __isLocal: whether an address lies in the block's shared memory
// (its static arrays, then its dynamic ones), or on the running thread's stack
// (its fiber's, or the worker's own for the thread that runs there).
FL_EMU_UNINSTRUMENTED inline bool is_shared_address(const void* p) {
  const block_state& b = current_block();
  const uintptr_t a = reinterpret_cast<uintptr_t>(p);
  return a - b.static_shared < b.static_shared_bytes || a - reinterpret_cast<uintptr_t>(b.dynamic_shared) < b.dynamic_shared_bytes;
}
FL_EMU_UNINSTRUMENTED inline bool is_local_address(const void* p) {
  block_state& b = current_block();
  const uintptr_t a = reinterpret_cast<uintptr_t>(p);
  if (b.fibers && b.current->home != &b.main) {
    size_t bytes = 0;
    const void* stack = b.worker->fiber_stack(b.worker, static_cast<uint32_t>(b.current - b.threads), &bytes);
    return a - reinterpret_cast<uintptr_t>(stack) < bytes;
  }
  pthread_attr_t attributes;
  void* stack = nullptr;
  size_t bytes = 0;
  if (pthread_getattr_np(pthread_self(), &attributes) != 0) return false;
  pthread_attr_getstack(&attributes, &stack, &bytes);
  pthread_attr_destroy(&attributes);
  return a - reinterpret_cast<uintptr_t>(stack) < bytes;
}

// Check mode: static __shared__ arrays are thread_local variables of the
// module, so they live in the module's thread-local block. Fill that block with
// 0xFF, all but the run time's own state.
struct tls_search {
  uintptr_t code;
  unsigned char* begin;
  size_t bytes;
};

FL_EMU_UNINSTRUMENTED inline int find_module_tls(dl_phdr_info* info, size_t, void* data) {
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

// The module's per-thread data, with where its thread-local block lies, looked up once per OS thread.
FL_EMU_UNINSTRUMENTED inline module_thread& module_tls(fl_emu_worker* worker) {
  module_thread& t = module_thread_data();
  if (!t.tls_known) {
    hold_stops hold(worker);  // dl_iterate_phdr takes the loader's lock
    tls_search search{reinterpret_cast<uintptr_t>(&find_module_tls), nullptr, 0};
    dl_iterate_phdr(&find_module_tls, &search);
    t.tls_begin = search.begin;
    t.tls_bytes = search.bytes;
    t.tls_known = true;
  }
  return t;
}

FL_EMU_UNINSTRUMENTED inline void poison_static_shared(fl_emu_worker* worker) {
  module_thread& t = module_tls(worker);
  unsigned char* begin = t.tls_begin;
  unsigned char* end = begin + t.tls_bytes;
  unsigned char* own = reinterpret_cast<unsigned char*>(&t);
  if (!begin || own < begin || own + sizeof t > end) return;
  memset(begin, 0xFF, own - begin);
  memset(own + sizeof t, 0xFF, end - (own + sizeof t));
}

// Lock step for the block (lockstep.h), where its kernel needs it or may: a
// launch's first blocks run in lock step and watch their shared memory. One in
// which no two threads touched a word between barriers with one of them
// writing it (all that a block whose barriers order its accesses does: a tiled
// GEMM, a reduction, a softmax) tells the launch's later blocks that lanes
// taking turns would change nothing: they run as without lock step, which
// costs a switch at every access to shared memory. Each launch asks again, as
// its arguments may make it loop where the last did not, and the grid's last
// block is watched as well (a partial block's lanes may take paths the full
// ones do not), and those at powers of two. The first block to find such a
// word says the kernel needs it, for good.
FL_EMU_UNINSTRUMENTED inline bool lockstep_wanted(const launch_state& L, uint64_t index) {
  const uint64_t blocks = uint64_t(L.desc->grid.x) * L.desc->grid.y * L.desc->grid.z;
  // Beside the first and the last, the blocks at powers of two are watched: a few of the
  // middle's, whose data may take paths the ends' do not.
  return L.kernel->needs_lockstep.load(std::memory_order_relaxed) || index + 1 == blocks || (index & (index - 1)) == 0 ||
         !L.lockstep_unneeded.load(std::memory_order_relaxed);
}

FL_EMU_UNINSTRUMENTED inline void start_lockstep(block_state& b, size_t dynamic_bytes, uint64_t index) {
  if (!lockstep_wanted(*b.launch, index)) return;
  const bool needed = b.launch->kernel->needs_lockstep.load(std::memory_order_relaxed);
  const module_thread& own = module_tls(b.worker);
  b.static_shared = reinterpret_cast<uintptr_t>(own.tls_begin);
  b.static_shared_bytes = own.tls_bytes;
  b.runtime_tls = reinterpret_cast<uintptr_t>(&own);
  b.runtime_tls_bytes = sizeof own;
  b.dynamic_shared_bytes = dynamic_bytes;
  b.lockstep = true;
  b.shared_epoch = 1;
  if (!needed) {
    const size_t words = (b.static_shared_bytes + 3) / 4 + (dynamic_bytes + 3) / 4;
    hold_stops hold(b.worker);
    // Scratch slot 2 holds check mode's order, and lock step runs in plain mode alone.
    b.shadow = static_cast<shared_word*>(b.worker->scratch(b.worker, 2, words * sizeof(shared_word)));
    if (b.shadow) {
      memset(b.shadow, 0, words * sizeof(shared_word));
      b.watching = true;
    }
  }
}

// Loop mode, in order: thread (0,0,0), (1,0,0), ... Instantiated per kernel
// with the kernel inlined into the loop, which keeps it fast. Stops early when
// a barrier changed the block over to fibers.
template <typename Call>
FL_EMU_UNINSTRUMENTED inline void loop_in_order(block_state& b, Call&& call) {
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
FL_EMU_UNINSTRUMENTED inline void loop_shuffled(block_state& b) {
  const launch_state& L = *b.launch;
  const fl_emu_dim3 dim = tls().block_dim;
  fl_emu_dim3& thread = tls().where.thread;
  for (uint32_t k = 0; k < b.size; k++) {
    b.loop_position = k;
    thread = thread_index(b.order[k], dim);
    b.code->invoke(L.args);
    if (b.fibers) return;
  }
}

FL_EMU_UNINSTRUMENTED inline void run_threads_from_start(block_state& b) {
  const launch_state& L = *b.launch;
  try {
    // In lock step every lane starts as a fiber, so that all walk out to the same first frame.
    if (b.lockstep || L.kernel->needs_fibers.load(std::memory_order_relaxed)) {
      make_fibers(b, b.size);
      run_fibers(b);
    } else {
      if (b.order) loop_shuffled(b);
      else b.code->run_in_order(L.args, b);
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
__attribute__((noinline)) FL_EMU_UNINSTRUMENTED inline void run_threads(block_state& b) {
  if (__builtin_setjmp(b.escape) == 0) run_threads_from_start(b);
}

// Runs one block of the launch with `code`.
FL_EMU_UNINSTRUMENTED inline void run_block_with(launch_state& L, const thread_code& code, uint64_t index, fl_emu_worker* worker) {
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
  b.code = &code;
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
  b.lockstep = false;
  b.watching = false;
  b.conflict = false;
  b.shadow = nullptr;
  b.racecheck = false;
  b.grid_waited = false;
  b.site = nullptr;
  b.state = &t;
  b.rng = desc.seed ^ (index * 0xd1b54a32d192ed03ull);
  b.failed = false;
  b.message[0] = 0;
  t.block = &b;

  {
    hold_stops hold(worker);
    // The scratch buffer ends where an inaccessible page begins: an access past the
    // end faults, naming it (also with no bytes asked for). A GPU faults only
    // outside the block's shared memory window, which holds more than the launch
    // asked for (NVIDIA GPUs reserve 1 KiB a block since Ampere), so plain mode
    // leaves that much after it, and check mode none, as compute-sanitizer does.
    const size_t slack = b.check ? 0 : kSharedWindowSlack;
    b.dynamic_shared = static_cast<unsigned char*>(worker->scratch(worker, 1, desc.shared_bytes + slack));
    if (b.check) {
      uint32_t* order = static_cast<uint32_t*>(worker->scratch(worker, 2, sizeof(uint32_t) * b.size));
      if (order) rank_threads(order, b.size, b.warp_size, b.rng);
      b.order = order;
    }
  }
  if ((desc.shared_bytes && !b.dynamic_shared) || (b.check && !b.order)) {
    fail(b, "kernel '%s': out of memory for a block's shared memory", desc.kernel);
  } else {
    if (b.check) {
      poison_static_shared(worker);
      if (b.dynamic_shared) memset(b.dynamic_shared, 0xFF, desc.shared_bytes);
    }
#if defined(FL_EMU_LOCKSTEP)
    start_lockstep(b, desc.shared_bytes, index);
#elif defined(FL_EMU_RACECHECK)
    start_racecheck(b, module_tls(worker), desc.shared_bytes);
#endif
    if (!b.failed) run_threads(b);
#if defined(FL_EMU_LOCKSTEP)
    if (b.watching && !b.failed) L.lockstep_unneeded.store(true, std::memory_order_relaxed);
#endif
    if (b.racecheck && !b.failed) settle_pending_write(b);
  }
  t.block = nullptr;
  if (b.failed && !L.failed.exchange(true)) {
    memcpy(const_cast<fl_emu_launch&>(desc).error, b.message, sizeof b.message);
  }
  if (desc.cooperative) note_block_finished(L, index);
}

// The pool's body: runs one block of the launch, in the module's twin where it
// is to run in lock step (start_lockstep).
FL_EMU_UNINSTRUMENTED inline void run_block(void* context, uint64_t index, fl_emu_worker* worker) {
  launch_state& L = *static_cast<launch_state*>(context);
  if (L.lockstep_block && lockstep_wanted(L, index)) return L.lockstep_block(context, index, worker);
  run_block_with(L, L.code, index, worker);
}

FL_EMU_UNINSTRUMENTED inline int run_launch(fl_emu_launch* desc, thread_code code, lockstep_block_fn lockstep_block,
                                            const void* args, kernel_history* kernel) {
  launch_state L;
  L.desc = desc;
  L.code = code;
  L.lockstep_block = lockstep_block;
  L.args = args;
  L.kernel = kernel;
  L.threads_per_block = desc->block.x * desc->block.y * desc->block.z;
  desc->error[0] = 0;
  thread_state_offset.store(desc->thread_offset, std::memory_order_relaxed);
  uint64_t blocks = uint64_t(desc->grid.x) * desc->grid.y * desc->grid.z;
  L.grid.blocks = static_cast<uint32_t>(blocks);
  if (desc->cooperative) desc->pool->parallel_for_resident(desc->pool->self, blocks, &run_block, &L);
  else desc->pool->parallel_for(desc->pool->self, blocks, &run_block, &L);
  return L.failed.load() ? 1 : 0;
}

// An argument's value from the bytes args[i] points to, which need not be
// aligned for its type (a struct may ask for more than the plugin aligns to).
template <typename T>
FL_EMU_UNINSTRUMENTED inline T argument_value(const void* bytes) {
  if constexpr (std::is_trivially_copyable_v<T>) {
    alignas(T) unsigned char aligned[sizeof(T)];
    memcpy(aligned, bytes, sizeof(T));
    return *reinterpret_cast<const T*>(aligned);
  } else {
    return *static_cast<const T*>(bytes);
  }
}

// An argument's bytes into its place in the launch's tuple. An empty struct (a
// functor, `{}`) has none to copy: the tuple gives it no bytes of its own (it
// shares its address with another element), and a copy of its one byte of
// padding would overwrite that element's first.
template <typename T>
FL_EMU_UNINSTRUMENTED inline void copy_argument(T* into, const void* bytes) {
  if constexpr (!std::is_empty_v<T>) memcpy(static_cast<void*>(into), bytes, sizeof(T));
}

// Kernel F's code for a block: each GPU thread calls F with the launch's
// arguments, unpacked once into F's parameter types.
template <auto F, typename... A>
constexpr thread_code code_of(void (*)(A...)) {
  using packed = std::tuple<std::decay_t<A>...>;
  return {[](const void* p) { std::apply(F, *static_cast<const packed*>(p)); },
          [](const void* p, block_state& b) {
            const packed& a = *static_cast<const packed*>(p);
            loop_in_order(b, [&] { std::apply(F, a); });
          }};
}

// The typed trampoline of kernel F: unpacks args[i] into F's parameter types
// once per launch, then runs its blocks; those in lock step with `lockstep_block`.
template <auto F, typename... A, size_t... I>
FL_EMU_UNINSTRUMENTED inline int launch_with(fl_emu_launch* desc, lockstep_block_fn lockstep_block, void (*)(A...),
                                             std::index_sequence<I...>) {
  using packed = std::tuple<std::decay_t<A>...>;
  static kernel_history kernel;
  constexpr thread_code code = code_of<F>(F);
  if constexpr ((std::is_default_constructible_v<std::decay_t<A>> && ...) && (std::is_trivially_copyable_v<std::decay_t<A>> && ...)) {
    // On the heap, copied in place: a kernel may take 32 KB of parameters (CUDA's
    // limit since 12.1), more than this frame may hold beside its copies.
    auto args = std::make_unique<packed>();
    (copy_argument<std::tuple_element_t<I, packed>>(&std::get<I>(*args), desc->args[I]), ...);
    return run_launch(desc, code, lockstep_block, args.get(), &kernel);
  } else {
    packed args{argument_value<std::decay_t<A>>(desc->args[I])...};
    return run_launch(desc, code, lockstep_block, &args, &kernel);
  }
}

template <typename... A>
constexpr size_t parameter_count(void (*)(A...)) {
  return sizeof...(A);
}

// The launch of kernel F; LockstepBlock, the module's twin's block of F in lock step, if it has one.
template <auto F, lockstep_block_fn LockstepBlock = nullptr>
FL_EMU_UNINSTRUMENTED inline int launch(fl_emu_launch* desc) {
  return launch_with<F>(desc, LockstepBlock, F, std::make_index_sequence<parameter_count(F)>{});
}

// In a module's twin (FL_EMU_TWIN): a block of kernel F in lock step, its launch the plain module's.
template <auto F>
FL_EMU_UNINSTRUMENTED inline void run_lockstep_block(void* launch, uint64_t index, fl_emu_worker* worker) {
  static constexpr thread_code code = code_of<F>(F);
  run_block_with(*static_cast<launch_state*>(launch), code, index, worker);
}

}  // namespace fl::emu

#endif
