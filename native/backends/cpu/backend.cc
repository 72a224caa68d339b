// The cpu backend: one device, the machine's CPU, running kernels on the
// emulator (kernels/fuselab/emulator). Implements native/include/fuselab/backend.h.
//
// Each opened device has a stream thread that runs the queued work in order
// (launches, copies, fills, event records, frees) and a pool of worker threads
// for the blocks of a launch. Errors of queued work are kept and returned by
// the next call that waits (download, synchronize, event_elapsed), then
// cleared: a CPU device is never lost. While an error waits to be returned,
// later launches are skipped (their inputs may be garbage). The buffers a
// failed or skipped launch could write stay unreadable until written again.
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "compiler.h"
#include "fuselab/backend.h"
#include "fuselab/emulator/abi.h"
#include "fuselab/emulator/half.h"
#include "fuselab/kernel_name.h"
#include "fuselab/registry.h"
#include "pool.h"

namespace fl::cpu {
namespace {

// ---------------------------------------------------------------- errors

pthread_key_t error_key;
std::once_flag error_key_once;

std::string& error_text() {
  std::call_once(error_key_once, [] { pthread_key_create(&error_key, [](void* p) { delete static_cast<std::string*>(p); }); });
  auto* text = static_cast<std::string*>(pthread_getspecific(error_key));
  if (!text) {
    text = new std::string;
    pthread_setspecific(error_key, text);
  }
  return *text;
}

int fail(const std::string& message) {
  error_text() = message;
  return 1;
}

__attribute__((format(printf, 1, 2))) std::string format(const char* f, ...) {
  char text[1024];
  va_list args;
  va_start(args, f);
  vsnprintf(text, sizeof text, f, args);
  va_end(args);
  return text;
}

// ---------------------------------------------------------------- kernels and modules

constexpr int kMaxThreadsPerBlock = 1024;
// A cooperative launch (grid.sync()) runs every block at once, each on an OS
// thread of its own: at most this many blocks, and threads in all, as a GPU
// holds at most so many resident. Each thread's fiber stack and its guard page
// are two of the 65530 mappings Linux allows a process by default.
constexpr uint64_t kResidentBlocks = 256;
constexpr uint64_t kResidentThreads = 16 * 1024;
constexpr uint32_t kMaxBlockDim[3] = {1024, 1024, 64};
constexpr uint32_t kMaxGridDim[3] = {2147483647u, 65535, 65535};
constexpr size_t kSharedPerBlock = 64 * 1024;
// The dynamic shared memory a launch may ask for: what a kernel opts in to on an H100 or
// H200 (227 KiB; GEMM and attention kernels with large tiles ask for more than 64 KiB);
// a 64-lane device keeps AMD's 64 KiB of LDS.
constexpr size_t kSharedOptIn = 227 * 1024;
size_t shared_limit(int warp_size) { return warp_size == 64 ? kSharedPerBlock : kSharedOptIn; }
// All the static __shared__ memory of a module's kernels, which each worker thread holds.
constexpr size_t kModuleStaticShared = 16 * 1024 * 1024;
constexpr size_t kAlignment = 256;
// Guard bands before and after every allocation (checked in check mode).
constexpr size_t kFrontGuard = kAlignment;
// A buffer ends (in check mode to a 16-byte granule, else to its alignment) where
// a reserve of address space that may not be accessed begins, so a read or write
// past the end, near or far, faults at once. Another lies before the guard band,
// so an access far before the start (`a[-5000]`) faults in the buffer's own reserve,
// whatever the process mapped below it.
constexpr size_t kGranule = 16;
constexpr unsigned kFrontPageBits = FL_EMU_FRONT_PAGE_BITS;
constexpr size_t kFarReserve = 16u << 20;
constexpr unsigned char kGuardByte = 0xA5;
constexpr unsigned char kPoisonByte = 0xFF;

struct argument {
  std::string type;        // as in the signature: "const f32*"
  size_t bytes = 0;        // of the value passed; 0: a type the emulator cannot pass
  bool pointer = false;
  bool writable = false;   // a pointer to non-const elements
  size_t element_bytes = 1;
};

size_t type_bytes(const std::string& name) {
  static const std::map<std::string, size_t> sizes = {
      {"f32", 4}, {"f64", 8}, {"f16", 2}, {"bf16", 2}, {"i8", 1},  {"u8", 1},  {"i16", 2},
      {"u16", 2}, {"i32", 4}, {"u32", 4}, {"i64", 8},  {"u64", 8}, {"bool", 1}, {"void", 1}};
  auto it = sizes.find(name);
  return it == sizes.end() ? 0 : it->second;
}

std::vector<argument> parse_signature(const std::string& signature) {
  std::vector<argument> args;
  size_t start = 0;
  while (start < signature.size()) {
    size_t end = signature.find(',', start);
    if (end == std::string::npos) end = signature.size();
    argument a;
    a.type = signature.substr(start, end - start);
    std::string base = a.type;
    if (base.rfind("const ", 0) == 0) base = base.substr(6);
    if (!base.empty() && base.back() == '*') {
      a.pointer = true;
      a.writable = base == a.type;
      a.bytes = sizeof(void*);
      a.element_bytes = type_bytes(base.substr(0, base.size() - 1));
      if (a.element_bytes == 0) a.element_bytes = 1;
    } else if (base.rfind("struct:", 0) == 0) {  // "struct:<size>:<alignment>", passed by value
      a.bytes = static_cast<size_t>(strtoull(base.c_str() + 7, nullptr, 10));
    } else {
      a.bytes = type_bytes(base);
    }
    args.push_back(a);
    start = end + 1;
  }
  return args;
}

struct kernel {
  std::string name;
  std::string signature;
  std::string params;  // names and extents; empty when the export gives none
  fl_emu_launch_fn launch;
  std::vector<argument> args;
  code_range code;  // its module's code: where a stop may land
  bool cooperative = false;  // it syncs its grid: every block runs at once

  void describe(fl_kernel_info* out) const {
    out->name = name.c_str();
    out->signature = signature.c_str();
    out->params = params.empty() ? nullptr : params.c_str();
  }
};

struct module {
  std::vector<std::unique_ptr<kernel>> kernels;
  void* library = nullptr;  // dlopen handle; null for the built-in kernels
  int code_fd = -1;         // the file the library was loaded from, open while it is loaded
  ~module() {
    if (library) dlclose(library);
    if (code_fd >= 0) close(code_fd);
  }
  void add(const char* name, const char* signature, const char* params, fl_emu_launch_fn launch) {
    auto k = std::make_unique<kernel>();
    k->name = name;
    k->signature = signature;
    k->params = params;
    k->launch = launch;
    k->args = parse_signature(k->signature);
    k->code = object_of(reinterpret_cast<const void*>(launch)).code;
    kernels.push_back(std::move(k));
  }
};

// ---------------------------------------------------------------- the device

struct allocation {
  unsigned char* block;    // the accessible part's start (past the guarded buffers' limit, in plain mode, what malloc returned)
  unsigned char* user;     // the buffer handed out
  size_t bytes;            // what was asked for
  size_t readable;         // from block: the bytes that may be accessed
  size_t total;            // from block: those and the no-access reserve after them (a mapping has kFarReserve more before block)
  bool mapped = false;     // mmap()ed, with the reserve
  bool released = false;   // a free is queued
  bool view = false;       // check mode: a launch's copy of the part of a buffer its views reach
  bool guards_front = true;  // check mode: an access before `user` is one before its buffer's start (not so
                             // for a view's copy that begins past it, where another view's part lies before)
  std::string unwritten;   // why the contents are not what a launch it was given would have written; empty: they are
};

struct event {
  std::chrono::steady_clock::time_point time;
  uint64_t ticket = 0;     // the queue position of its last record; 0: never recorded
};

struct device {
  fl_device_options options{};
  std::unique_ptr<worker_pool> pool;
  std::atomic<uint64_t> compile_stops{0};  // cancel() adds one: compiles that saw another value stop
  std::atomic<int> compiles_running{0};
  uint64_t launches = 0;   // seeds check mode's shuffles

  std::mutex lock;
  std::condition_variable work_ready;
  std::condition_variable work_done;
  std::deque<std::function<void()>> queue;
  uint64_t enqueued = 0, completed = 0;
  bool closing = false;
  std::string pending_error;  // the first error of queued work since the last wait
  std::thread stream;

  std::mutex allocations_lock;
  std::map<uintptr_t, allocation> allocations;  // by the address handed out

  void run_stream() {
    std::unique_lock<std::mutex> guard(lock);
    for (;;) {
      work_ready.wait(guard, [&] { return closing || !queue.empty(); });
      if (queue.empty()) return;
      std::function<void()> work = std::move(queue.front());
      queue.pop_front();
      guard.unlock();
      work();
      guard.lock();
      completed++;
      work_done.notify_all();
    }
  }

  uint64_t enqueue(std::function<void()> work) {
    std::lock_guard<std::mutex> guard(lock);
    queue.push_back(std::move(work));
    uint64_t ticket = ++enqueued;
    work_ready.notify_one();
    return ticket;
  }

  void record_error(const std::string& message) {
    std::lock_guard<std::mutex> guard(lock);
    if (pending_error.empty()) pending_error = message;
  }

  std::string pending() {
    std::lock_guard<std::mutex> guard(lock);
    return pending_error;
  }

  // Waits until the work up to `ticket` (all of it when 0) is done; returns
  // nonzero with the pending error, which is then cleared.
  int wait(uint64_t ticket = 0) {
    std::unique_lock<std::mutex> guard(lock);
    if (ticket == 0) ticket = enqueued;
    work_done.wait(guard, [&] { return completed >= ticket; });
    if (pending_error.empty()) return 0;
    std::string message;
    message.swap(pending_error);
    return fail(message);
  }
};

// ---------------------------------------------------------------- check mode: guard bands

// A buffer's memory: [no-access reserve][guard band][`bytes` bytes, ending where the granule
// ends][no-access reserve], the bytes starting `shift` (< granule) bytes past a
// granule's start, as the memory they stand for does. Guard bands not yet filled.
// Check mode's granule is 16 bytes; plain mode's is the buffers' 256-byte
// alignment: an overrun past it faults there too, reported as an invalid
// address, where it would otherwise write into the process's heap.
// Each such buffer takes three of the process's memory mappings (two where its
// reserve meets the one of the buffer mapped next to it, which Linux merges), of
// which it allows vm.max_map_count (65530 by default) and the rest of the process
// needs some: an eighth of that count is the most buffers at once, across every
// device (3/8 of the mappings at worst). Past it,
// plain mode's buffers come from the heap (unguarded) and check mode's fail.
std::atomic<long> guarded_buffers{0};

long guarded_buffer_limit() {
  static const long limit = [] {
    long maps = 65530;
    if (FILE* f = fopen("/proc/sys/vm/max_map_count", "r")) {
      if (fscanf(f, "%ld", &maps) != 1) maps = 65530;
      fclose(f);
    }
    return maps / 8;
  }();
  return limit;
}

bool map_guarded(size_t bytes, size_t shift, allocation* a, size_t granule = kGranule) {
  if (guarded_buffers.fetch_add(1) >= guarded_buffer_limit()) {
    guarded_buffers.fetch_sub(1);
    return false;
  }
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  const size_t span = (shift + bytes + granule - 1) / granule * granule;
  a->bytes = bytes;
  a->readable = (kFrontGuard + span + page - 1) / page * page;
  a->total = a->readable + kFarReserve;
  void* mapping = mmap(nullptr, kFarReserve + a->total, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  unsigned char* block = static_cast<unsigned char*>(mapping) + kFarReserve;
  if (mapping == MAP_FAILED || mprotect(block, a->readable, PROT_READ | PROT_WRITE) != 0) {
    if (mapping != MAP_FAILED) munmap(mapping, kFarReserve + a->total);
    guarded_buffers.fetch_sub(1);
    return false;
  }
  a->mapped = true;
  a->block = block;
  a->user = a->block + a->readable - span + shift;
  return true;
}

void release_memory(const allocation& a) {
  if (!a.mapped) {
    free(a.block);
  } else {
    munmap(a.block - kFarReserve, kFarReserve + a.total);
    guarded_buffers.fetch_sub(1);
  }
}

void fill_guards(const allocation& a) {
  memset(a.block, kGuardByte, a.user - a.block);
  memset(a.user + a.bytes, kGuardByte, a.readable - (a.user - a.block) - a.bytes);
}

// The address of the overwritten guard byte nearest the buffer, or 0.
uintptr_t damaged_guard(const allocation& a) {
  for (const unsigned char* p = a.user; p > a.block; p--)
    if (p[-1] != kGuardByte) return reinterpret_cast<uintptr_t>(p - 1);
  const unsigned char* end = a.block + a.readable;
  for (const unsigned char* p = a.user + a.bytes; p < end; p++)
    if (*p != kGuardByte) return reinterpret_cast<uintptr_t>(p);
  return 0;
}

// "3 past the end" or "2 before the start", for an index outside [0, count).
std::string outside(long long index, long long count) {
  return index >= count ? format("%lld past the end", index - count + 1) : format("%lld before the start", -index);
}

// `verb`: "wrote", "read", or "read or wrote".
std::string describe_overrun(const kernel& k, const std::vector<uintptr_t>& pointers, const allocation& a,
                             uintptr_t damaged, const char* verb = "wrote") {
  uintptr_t start = reinterpret_cast<uintptr_t>(a.user), end = start + a.bytes;
  for (size_t i = 0; i < k.args.size(); i++) {
    const argument& arg = k.args[i];
    if (!arg.pointer || pointers[i] < start || pointers[i] > end) continue;
    long long element_bytes = static_cast<long long>(arg.element_bytes);
    long long offset = static_cast<long long>(damaged) - static_cast<long long>(pointers[i]);
    long long element = offset >= 0 ? offset / element_bytes : -((-offset + element_bytes - 1) / element_bytes);
    long long count = static_cast<long long>(end - pointers[i]) / element_bytes;
    // A pointee with no dtype (float4, a struct) reads as void* in the signature: counted in bytes.
    const bool named = arg.type.find("void") == std::string::npos;
    const std::string which = named ? format("argument %zu (%s)", i, arg.type.c_str()) : format("argument %zu", i);
    return format("kernel '%s' %s out of bounds: %s, %s %lld, %s of a %lld-%s %s", k.name.c_str(), verb, which.c_str(),
                  named ? "element" : "byte", element, outside(element, count).c_str(), count, named ? "element" : "byte",
                  a.view ? "view" : "buffer");
  }
  long long offset = static_cast<long long>(damaged) - static_cast<long long>(start);
  long long size = static_cast<long long>(a.bytes);
  return format("kernel '%s' %s out of bounds of a buffer no pointer argument points into (one a struct or accessor holds, or one it was not given): byte %lld, %s of a %lld-byte buffer",
                k.name.c_str(), verb, offset, outside(offset, size).c_str(), size);
}

// The buffer a faulting address belongs to: the one whose no-access reserve,
// before or after it, holds the address, or the rest of whose last granule does
// (check mode's hooks fault an access there).
const allocation* overrun_owner(device& d, uintptr_t address) {
  std::lock_guard<std::mutex> guard(d.allocations_lock);
  auto next = d.allocations.upper_bound(address);
  if (next != d.allocations.end() && next->second.mapped &&
      address >= reinterpret_cast<uintptr_t>(next->second.block) - kFarReserve)
    return &next->second;
  if (next == d.allocations.begin()) return nullptr;
  const allocation& a = std::prev(next)->second;
  uintptr_t past = reinterpret_cast<uintptr_t>(a.user + a.bytes), end = reinterpret_cast<uintptr_t>(a.block + a.total);
  return a.mapped && address >= past && address < end ? &a : nullptr;
}

// The allocation `pointer` points into (or one past); the caller holds allocations_lock.
allocation* find_allocation(device& d, uintptr_t pointer) {
  auto it = d.allocations.upper_bound(pointer);
  if (it == d.allocations.begin()) return nullptr;
  --it;
  return pointer <= it->first + it->second.bytes ? &it->second : nullptr;
}

// A launch that failed, or was skipped after one that failed, leaves the
// buffers it could write holding what they held before, or part of its work:
// a read of one fails with `why` (also when a `synchronize()` already returned
// the error) until something writes the whole buffer or a launch given it completes.
void set_unwritten(device& d, const kernel& k, const std::vector<uintptr_t>& pointers, const std::string& why) {
  std::lock_guard<std::mutex> guard(d.allocations_lock);
  for (size_t i = 0; i < pointers.size(); i++)
    if (k.args[i].writable && pointers[i])
      if (allocation* a = find_allocation(d, pointers[i])) a->unwritten = why;
}

// After a write of `bytes` at `dst`: a buffer written whole holds what was
// written, unless it was copied from a buffer that did not (`from`: why not).
void set_written(device& d, uintptr_t dst, size_t bytes, const std::string& from = std::string()) {
  std::lock_guard<std::mutex> guard(d.allocations_lock);
  allocation* a = find_allocation(d, dst);
  if (a && (!from.empty() || (reinterpret_cast<uintptr_t>(a->user) == dst && bytes >= a->bytes))) a->unwritten = from;
}

std::string unwritten_reason(device& d, uintptr_t pointer) {
  std::lock_guard<std::mutex> guard(d.allocations_lock);
  const allocation* a = find_allocation(d, pointer);
  return a ? a->unwritten : std::string();
}

// Check mode: where the device's buffers (views' copies included) begin and
// end, for the module's checks before its loads and stores (fl_emu_launch).
struct buffer_bounds {
  std::vector<uintptr_t> ends;    // of those whose last granule holds bytes past them, ascending
  std::vector<uintptr_t> fronts;  // a hash table of the 4 KiB pages of their guard bands before them
  uint32_t front_bits = 0;
};

buffer_bounds check_mode_bounds(device& d) {
  std::lock_guard<std::mutex> guard(d.allocations_lock);
  buffer_bounds bounds;
  std::vector<std::pair<uintptr_t, uintptr_t>> pages;  // page number, where the buffer starts
  for (const auto& entry : d.allocations) {
    const allocation& a = entry.second;
    if (!a.mapped) continue;
    const uintptr_t start = reinterpret_cast<uintptr_t>(a.user), end = start + a.bytes;
    if (end % kGranule) bounds.ends.push_back(end);
    if (!a.guards_front) continue;
    for (uintptr_t page = reinterpret_cast<uintptr_t>(a.block) >> kFrontPageBits; page <= (start - 1) >> kFrontPageBits; page++)
      pages.push_back({page, start});
  }
  std::sort(bounds.ends.begin(), bounds.ends.end());
  while ((size_t(1) << bounds.front_bits) < 4 * pages.size()) bounds.front_bits++;
  bounds.fronts.assign(size_t(2) << bounds.front_bits, 0);
  const size_t mask = (size_t(1) << bounds.front_bits) - 1;
  for (const auto& [page, start] : pages) {
    size_t slot = fl_emu_front_slot(page, bounds.front_bits);
    while (bounds.fronts[2 * slot]) slot = (slot + 1) & mask;
    bounds.fronts[2 * slot] = page;
    bounds.fronts[2 * slot + 1] = start;
  }
  return bounds;
}

// After a launch in check mode: the first overwritten guard band, reported
// against the kernel's arguments; every band is then restored.
std::string check_guards(device& d, const kernel& k, const std::vector<uintptr_t>& pointers) {
  std::lock_guard<std::mutex> guard(d.allocations_lock);
  std::string report;
  auto inspect = [&](const allocation& a) {
    uintptr_t damaged = report.empty() ? damaged_guard(a) : 0;
    if (damaged) report = describe_overrun(k, pointers, a, damaged);
  };
  // The buffers passed as arguments first, in argument order; then the others.
  for (size_t i = 0; i < k.args.size(); i++)
    if (k.args[i].pointer)
      if (const allocation* a = find_allocation(d, pointers[i])) inspect(*a);
  for (auto& entry : d.allocations) inspect(entry.second);
  if (!report.empty())
    for (auto& entry : d.allocations) fill_guards(entry.second);
  return report;
}

// ---------------------------------------------------------------- check mode: views

// Pointer arguments that reach only a part of their buffer (views) run, in
// check mode, on a guarded copy of that part, so that an access past a view's
// end faults or shows as a check mode's access past a buffer does. Arguments
// whose reaches overlap share one copy, so that a write through one is seen
// through the other, as in the buffer itself. A copy begins where the copy
// before it in the buffer ends (the first at the buffer's start): before a
// view's start the buffer's elements are there, as a GPU reads them through
// `d_in + RADIUS` (a stencil's halo), up to another view's part.
struct view_copy {
  uintptr_t original = 0;   // where the part starts in its buffer
  size_t bytes = 0;
  unsigned char* copy = nullptr;
  std::vector<size_t> args; // the arguments pointing into it
};

// Makes the copies and points the arguments (`pointers`, and their values in
// `args`) at them; returns the copies for restore_views().
std::vector<view_copy> stage_views(device& d, const kernel& k, const std::vector<size_t>& reach,
                                   std::vector<uintptr_t>& pointers, std::vector<void*>& args, std::string* error) {
  struct reach_of { uintptr_t start, end; size_t arg; };
  std::map<const allocation*, std::vector<reach_of>> by_buffer;
  {
    std::lock_guard<std::mutex> guard(d.allocations_lock);
    for (size_t i = 0; i < k.args.size(); i++) {
      if (!k.args[i].pointer || pointers[i] == 0) continue;
      if (const allocation* a = find_allocation(d, pointers[i])) by_buffer[a].push_back({pointers[i], pointers[i] + reach[i], i});
    }
  }
  std::vector<view_copy> copies;
  for (auto& [a, reaches] : by_buffer) {
    std::sort(reaches.begin(), reaches.end(), [](const reach_of& x, const reach_of& y) { return x.start < y.start; });
    const uintptr_t buffer = reinterpret_cast<uintptr_t>(a->user);
    uintptr_t free_from = buffer;  // the copy of a group of views starts here: after the group before it
    for (size_t first = 0; first < reaches.size();) {
      view_copy v;
      uintptr_t end = reaches[first].end;
      size_t next = first;
      for (; next < reaches.size() && (next == first || reaches[next].start < end); next++) {
        end = std::max(end, reaches[next].end);
        v.args.push_back(reaches[next].arg);
      }
      const bool whole = reaches[first].start == buffer && end == buffer + a->bytes;
      first = next;
      if (whole) break;  // the whole buffer: its own guards hold it
      v.original = free_from;
      v.bytes = end - v.original;
      free_from = end;
      allocation copy;
      if (!map_guarded(v.bytes, v.original % kGranule, &copy)) {
        *error = format("kernel '%s': out of memory for check mode's copy of a %zu-byte view", k.name.c_str(), v.bytes);
        return copies;
      }
      copy.view = true;
      copy.guards_front = v.original == buffer;
      memcpy(copy.user, reinterpret_cast<const void*>(v.original), v.bytes);
      fill_guards(copy);
      v.copy = copy.user;
      for (size_t i : v.args) {
        pointers[i] = reinterpret_cast<uintptr_t>(v.copy) + (pointers[i] - v.original);
        memcpy(args[i], &pointers[i], sizeof(void*));
      }
      std::lock_guard<std::mutex> guard(d.allocations_lock);
      d.allocations[reinterpret_cast<uintptr_t>(copy.user)] = copy;
      copies.push_back(std::move(v));
    }
  }
  return copies;
}

// Writes the copies back into their buffers (what the kernel wrote there, also
// when it failed partway, as a GPU's memory keeps it) and frees them.
void restore_views(device& d, const std::vector<view_copy>& copies) {
  std::lock_guard<std::mutex> guard(d.allocations_lock);
  for (const view_copy& v : copies) {
    memcpy(reinterpret_cast<void*>(v.original), v.copy, v.bytes);
    auto it = d.allocations.find(reinterpret_cast<uintptr_t>(v.copy));
    release_memory(it->second);
    d.allocations.erase(it);
  }
}

// ---------------------------------------------------------------- launches

std::string describe_stop(device& d, const worker_pool& pool, const kernel& k, int timeout_ms, size_t shared_bytes,
                          const std::vector<uintptr_t>& pointers) {
  switch (pool.stopped()) {
    case stop_reason::none: return "";
    case stop_reason::time_limit: return format("kernel '%s' ran past the %d ms limit", k.name.c_str(), timeout_ms);
    case stop_reason::cancelled: return format("kernel '%s' was cancelled", k.name.c_str());
    case stop_reason::fault: break;
  }
  const fault_report& f = pool.fault();
  std::string where = f.located ? format(" (block (%u,%u,%u), thread (%u,%u,%u))", f.where.block.x, f.where.block.y,
                                         f.where.block.z, f.where.thread.x, f.where.thread.y, f.where.thread.z)
                                : "";
  if (f.stack_overflow)
    return format("kernel '%s' overflowed its %zu KiB fiber stack%s", k.name.c_str(),
                  worker_pool::fiber_stack_bytes() / 1024, where.c_str());
  if (f.past_shared)
    return format("kernel '%s' %s past the end of its dynamic shared memory (%zu bytes, the launch's sharedBytes): at byte %zu%s",
                  k.name.c_str(), f.access == fault_access::write ? "wrote" : f.access == fault_access::read ? "read" : "reached",
                  shared_bytes, f.shared_offset, where.c_str());
  if (f.signal == SIGFPE)
    return format("kernel '%s' %s%s", k.name.c_str(),
                  f.code == FPE_INTDIV ? "divided an integer by zero" : "raised an arithmetic fault", where.c_str());
  if (f.signal == SIGILL) return format("kernel '%s' executed an illegal instruction%s", k.name.c_str(), where.c_str());
  if (f.signal == SIGSEGV)
    if (const allocation* a = overrun_owner(d, f.address))
      return describe_overrun(k, pointers, *a, f.address, f.access == fault_access::write  ? "wrote"
                                                          : f.access == fault_access::read ? "read"
                                                                                           : "read or wrote") +
             where;
  if (f.signal == SIGABRT) return format("kernel '%s' called abort()%s", k.name.c_str(), where.c_str());
  // x86 raises a general-protection fault, with no address, for a 16-byte vector
  // access at an address not a multiple of 16, as for an address no pointer can hold.
  if (f.signal == SIGSEGV && f.code == SI_KERNEL)
    return format("kernel '%s' made an invalid memory access: most likely a misaligned vector access (a float4, int4 or "
                  "uint4 at an address not a multiple of 16, as a GPU reports misaligned address; check mode names "
                  "the line), else an address no pointer can hold%s", k.name.c_str(), where.c_str());
  return format("kernel '%s' made an invalid memory access at 0x%llx%s", k.name.c_str(),
                static_cast<unsigned long long>(f.address), where.c_str());
}

uint64_t mix(uint64_t x) {
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

void run_launch(device& d, const kernel& k, fl_dim3 grid, fl_dim3 block, size_t shared_bytes,
                std::vector<unsigned char>& values, const std::vector<size_t>& offsets, const std::vector<size_t>& reach) {
  std::vector<void*> args(offsets.size());
  std::vector<uintptr_t> pointers(offsets.size(), 0);
  for (size_t i = 0; i < offsets.size(); i++) {
    args[i] = values.data() + offsets[i];
    if (k.args[i].pointer) memcpy(&pointers[i], args[i], sizeof(void*));
  }
  const std::vector<uintptr_t> given = pointers;  // check mode points `pointers` at copies
  std::string earlier = d.pending();
  if (!earlier.empty()) {
    set_unwritten(d, k, given, "kernel '" + k.name + "', given this buffer, did not run, as an earlier launch failed: " + earlier);
    return;
  }
  std::vector<view_copy> views;
  if (d.options.check) {
    std::string error;
    views = stage_views(d, k, reach, pointers, args, &error);
    if (!error.empty()) {
      restore_views(d, views);
      d.record_error(error);
      set_unwritten(d, k, given, "kernel '" + k.name + "', given this buffer, did not run: " + error);
      return;
    }
  }
  buffer_bounds bounds;
  if (d.options.check) bounds = check_mode_bounds(d);
  fl_emu_launch desc;
  desc.kernel = k.name.c_str();
  desc.grid = {grid.x, grid.y, grid.z};
  desc.block = {block.x, block.y, block.z};
  desc.shared_bytes = shared_bytes;
  desc.args = args.data();
  desc.warp_size = d.options.warp_size;
  desc.check = d.options.check;
  desc.cooperative = k.cooperative;
  desc.seed = mix(++d.launches);
  desc.pool = d.pool->api();
  desc.thread_offset = worker_pool::thread_offset();
  desc.buffer_ends = bounds.ends.data();
  desc.buffer_end_count = bounds.ends.size();
  desc.buffer_fronts = bounds.fronts.empty() ? nullptr : bounds.fronts.data();
  desc.buffer_front_bits = bounds.front_bits;
  desc.error[0] = 0;
  d.pool->arm(d.options.timeout_ms, k.code);
  std::string error;
  int failed = 0;
  if (!k.cooperative || d.pool->reserve_resident(uint64_t(grid.x) * grid.y * grid.z, &error)) failed = k.launch(&desc);
  if (!error.empty()) error = "kernel '" + k.name + "' could not run every block of its grid at once: " + error;
  if (error.empty()) error = describe_stop(d, *d.pool, k, d.options.timeout_ms, shared_bytes, pointers);
  if (error.empty() && failed) error = desc.error[0] ? desc.error : "kernel '" + k.name + "' failed";
  if (d.options.check) {
    std::string overrun = check_guards(d, k, pointers);
    if (error.empty()) error = overrun;
    restore_views(d, views);
  }
  if (error.empty()) {
    set_unwritten(d, k, given, std::string());
    return;
  }
  d.record_error(error);
  set_unwritten(d, k, given, "kernel '" + k.name + "', given this buffer, failed, so it holds what it held before or part of the kernel's work: " + error);
}

// ---------------------------------------------------------------- the plugin's functions

const char* cpu_last_error() { return error_text().c_str(); }

int cpu_probe() { return 0; }

const char* cpu_notes() {
  static std::mutex lock;
  static std::string notes;
  std::lock_guard<std::mutex> guard(lock);
  notes = compiler_note() + "\n" + format("kernels built in: %zu", fl::registry().size());
  return notes.c_str();
}

int cpu_device_count(int* count) {
  *count = 1;
  return 0;
}

// The cores this process may run on (its affinity), as os.availableParallelism() counts them.
int available_cores() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0) return CPU_COUNT(&set);
  return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

int cpu_open(int index, const fl_device_options* options, void** out) {
  if (index != 0) return fail(format("open: the cpu backend has one device (index 0), got index %d", index));
  fl_device_options o = options ? *options : fl_device_options{};
  if (o.warp_size == 0) o.warp_size = 32;
  if (o.warp_size != 32 && o.warp_size != 64)
    return fail(format("open: warp size must be 32 or 64, got %d", o.warp_size));
  const int cores = available_cores();
  if (o.threads < 0 || o.threads > cores)
    return fail(format("open: threads must be from 0 (all cores) to %d (the cores this process may use), got %d", cores,
                       o.threads));
  if (o.timeout_ms < 0) return fail(format("open: timeout_ms must be 0 (none) or more, got %d", o.timeout_ms));
  if (o.threads == 0) o.threads = cores;
  auto d = std::make_unique<device>();
  d->options = o;
  d->pool = std::make_unique<worker_pool>(o.threads);
  device* raw = d.get();
  d->stream = std::thread([raw] { raw->run_stream(); });
  *out = d.release();
  return 0;
}

void cpu_close(void* handle) {
  auto* d = static_cast<device*>(handle);
  if (!d) return;
  {
    std::lock_guard<std::mutex> guard(d->lock);
    d->closing = true;
  }
  d->work_ready.notify_all();
  d->stream.join();
  for (auto& entry : d->allocations) release_memory(entry.second);
  delete d;
}

std::string cpu_name() {
  std::ifstream info("/proc/cpuinfo");
  std::string line;
  while (std::getline(info, line)) {
    if (line.rfind("model name", 0) != 0) continue;
    size_t colon = line.find(':');
    if (colon == std::string::npos) break;
    size_t start = line.find_first_not_of(" \t", colon + 1);
    if (start != std::string::npos) return "CPU emulator (" + line.substr(start) + ")";
  }
  return "CPU emulator";
}

int cpu_props(void* handle, fl_device_props* out) {
  auto* d = static_cast<device*>(handle);
  *out = fl_device_props{};
  snprintf(out->name, sizeof out->name, "%s", cpu_name().c_str());
  utsname machine{};
  uname(&machine);
  snprintf(out->arch, sizeof out->arch, "cpu-%s", machine.machine);
  out->warp_size = d->options.warp_size;
  out->multiprocessors = d->pool->size();
  out->max_threads_per_block = kMaxThreadsPerBlock;
  for (int i = 0; i < 3; i++) {
    out->max_block_dim[i] = static_cast<int>(kMaxBlockDim[i]);
    out->max_grid_dim[i] = static_cast<int>(kMaxGridDim[i]);
  }
  out->shared_per_block = kSharedPerBlock;
  out->shared_per_block_optin = shared_limit(d->options.warp_size);
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  out->total_memory = pages > 0 && page > 0 ? static_cast<size_t>(pages) * static_cast<size_t>(page) : 0;
  long l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
  out->l2_bytes = l2 > 0 ? static_cast<size_t>(l2) : 0;
  out->peak_bandwidth_gbs = 0;
  return 0;
}

int cpu_alloc(void* handle, size_t bytes, void** ptr) {
  auto* d = static_cast<device*>(handle);
  bool check = d->options.check != 0;
  allocation a;
  a.bytes = bytes;
  if (check) {
    if (!map_guarded(bytes, 0, &a)) {
      return fail(format("alloc: out of memory for %zu bytes (check mode maps each buffer with its guards, %ld at once at most: "
                         "release tensors, or use plain mode)", bytes, guarded_buffer_limit()));
    }
    memset(a.user, kPoisonByte, bytes);  // NaN in every float type: unwritten outputs show
    fill_guards(a);
  } else if (!map_guarded(bytes, 0, &a, kAlignment)) {
    a.total = a.readable = (std::max(bytes, kAlignment) + kAlignment - 1) / kAlignment * kAlignment;
    a.block = a.user = static_cast<unsigned char*>(aligned_alloc(kAlignment, a.total));
    if (!a.block) return fail(format("alloc: out of memory for %zu bytes", bytes));
  }
  unsigned char* user = a.user;
  std::lock_guard<std::mutex> guard(d->allocations_lock);
  d->allocations[reinterpret_cast<uintptr_t>(user)] = a;
  *ptr = user;
  return 0;
}

int cpu_release(void* handle, void* ptr) {
  auto* d = static_cast<device*>(handle);
  uintptr_t address = reinterpret_cast<uintptr_t>(ptr);
  {
    std::lock_guard<std::mutex> guard(d->allocations_lock);
    auto it = d->allocations.find(address);
    if (it == d->allocations.end() || it->second.released)
      return fail(format("release: %p is not a live allocation of this device", ptr));
    it->second.released = true;
  }
  // Queued: launches before it may still use the memory.
  d->enqueue([d, address] {
    std::lock_guard<std::mutex> guard(d->allocations_lock);
    auto it = d->allocations.find(address);
    release_memory(it->second);
    d->allocations.erase(it);
  });
  return 0;
}

int cpu_upload(void* handle, void* dst, const void* src, size_t bytes) {
  auto* d = static_cast<device*>(handle);
  {
    // Nothing queued: copy now, holding the queue so nothing starts meanwhile.
    std::lock_guard<std::mutex> guard(d->lock);
    if (d->completed == d->enqueued) {
      memcpy(dst, src, bytes);
      set_written(*d, reinterpret_cast<uintptr_t>(dst), bytes);
      return 0;
    }
  }
  auto staged = std::make_shared<std::vector<unsigned char>>(static_cast<const unsigned char*>(src),
                                                             static_cast<const unsigned char*>(src) + bytes);
  d->enqueue([d, dst, staged] {
    memcpy(dst, staged->data(), staged->size());
    set_written(*d, reinterpret_cast<uintptr_t>(dst), staged->size());
  });
  return 0;
}

int cpu_download(void* handle, void* dst, const void* src, size_t bytes) {
  auto* d = static_cast<device*>(handle);
  if (d->wait()) return 1;
  std::string why = unwritten_reason(*d, reinterpret_cast<uintptr_t>(src));
  if (!why.empty()) return fail("cannot read this tensor: " + why);
  memcpy(dst, src, bytes);
  return 0;
}

int cpu_copy(void* handle, void* dst, const void* src, size_t bytes) {
  auto* d = static_cast<device*>(handle);
  d->enqueue([d, dst, src, bytes] {
    memmove(dst, src, bytes);
    set_written(*d, reinterpret_cast<uintptr_t>(dst), bytes, unwritten_reason(*d, reinterpret_cast<uintptr_t>(src)));
  });
  return 0;
}

int cpu_fill(void* handle, void* ptr, int byte, size_t bytes) {
  auto* d = static_cast<device*>(handle);
  d->enqueue([d, ptr, byte, bytes] {
    memset(ptr, byte, bytes);
    set_written(*d, reinterpret_cast<uintptr_t>(ptr), bytes);
  });
  return 0;
}

module* builtin_module() {
  auto* m = new module;
  for (const kernel_entry& e : fl::registry())
    m->add(e.name.c_str(), e.signature.c_str(), e.params.c_str(), reinterpret_cast<fl_emu_launch_fn>(e.launcher));
  return m;
}

int cpu_module_builtin(void*, void** out) {
  *out = builtin_module();
  return 0;
}

int cpu_module_compile(void* handle, const char* source, const char* kernel_names, const char* options, int timeout_ms,
                       void** out, char** log) {
  if (log) *log = nullptr;
  auto* d = static_cast<device*>(handle);
  const uint64_t stops = d->compile_stops.load();
  d->compiles_running++;
  // cancel() stops it: from device.cancel(), or from the addon when a notebook's cell is interrupted.
  process_limits limits;
  limits.timeout_ms = timeout_ms;
  limits.should_stop = [d, stops] { return d->compile_stops.load() != stops; };
  // A kernel marked cooperative syncs its grid: it is launched with every block at once.
  std::string names;
  std::set<std::string> cooperative;
  std::istringstream lines(kernel_names ? kernel_names : "");
  for (std::string line, error; std::getline(lines, line);) {
    fl::kernel_line kernel;  // the cpu backend finds every kernel by its address, whatever its linkage
    if (!fl::read_kernel_line(line, &kernel, &error)) return fail(error);
    names += kernel.name + "\n";
    if (kernel.cooperative) cooperative.insert(kernel.name);
  }
  compile_result built = compile_module(source ? source : "", names, options ? options : "", d->options.check != 0, limits);
  d->compiles_running--;
  if (!built.ok) {
    if (log && !built.log.empty()) *log = strdup(built.log.c_str());
    return fail(built.error);
  }
  int code_fd = -1;
  std::string load_error;
  void* library = load_shared_object(built.code, &code_fd, &load_error);
  if (!library) return fail("run-time compilation: cannot load the compiled module: " + load_error);
  auto entry = reinterpret_cast<fl_emu_module_fn>(dlsym(library, FL_EMU_MODULE_SYMBOL));
  const fl_emu_module* table = entry ? entry() : nullptr;
  if (!table || table->abi != FL_EMU_ABI) {
    dlclose(library);
    close(code_fd);
    return fail(format("run-time compilation: the compiled module is not a fuselab CPU module of this version (ABI %d)",
                       FL_EMU_ABI));
  }
  // Static __shared__ arrays are the module's thread-local variables, held by
  // each worker thread: each kernel's were checked against a block's limit when
  // compiled; all of them together are bounded here, as memory.
  const size_t static_shared = object_of(reinterpret_cast<const void*>(entry)).thread_local_bytes;
  if (static_shared > kModuleStaticShared) {
    dlclose(library);
    close(code_fd);
    return fail(format("run-time compilation: the module's kernels have %zu bytes of static __shared__ memory in all, "
                       "more than the %zu bytes a module may have on the CPU emulator",
                       static_shared, kModuleStaticShared));
  }
  auto* m = new module;
  m->library = library;
  m->code_fd = code_fd;
  // Compiled kernels name no parameters: their launches are checked by kind only.
  for (int i = 0; i < table->count; i++) {
    m->add(table->kernels[i].name, table->kernels[i].signature, "", table->kernels[i].launch);
    m->kernels.back()->cooperative = cooperative.count(table->kernels[i].name) > 0;
  }
  *out = m;
  return 0;
}

void cpu_module_unload(void* handle, void* mod) {
  auto* d = static_cast<device*>(handle);
  // Queued: launches of its kernels may be waiting to run.
  d->enqueue([mod] { delete static_cast<module*>(mod); });
}

int cpu_kernel_count(void* mod, int* count) {
  *count = static_cast<int>(static_cast<module*>(mod)->kernels.size());
  return 0;
}

int cpu_kernel_info(void* mod, int index, fl_kernel_info* out) {
  auto* m = static_cast<module*>(mod);
  if (index < 0 || index >= static_cast<int>(m->kernels.size()))
    return fail(format("kernel_info: index must be from 0 to %d, got %d", static_cast<int>(m->kernels.size()) - 1, index));
  m->kernels[index]->describe(out);
  return 0;
}

int cpu_kernel_get(void* mod, const char* name, void** out, fl_kernel_info* info) {
  auto* m = static_cast<module*>(mod);
  std::string names;
  for (auto& k : m->kernels) {
    if (k->name == name) {
      *out = k.get();
      if (info) k->describe(info);
      return 0;
    }
    names += (names.empty() ? "" : ", ") + k->name;
  }
  return fail(format("kernel_get: no kernel '%s' in this module (it has: %s)", name, names.empty() ? "none" : names.c_str()));
}

int cpu_launch(void* handle, void* kernel_handle, fl_dim3 grid, fl_dim3 block, size_t shared_bytes, void** args,
               const size_t* reach, int nargs) {
  auto* d = static_cast<device*>(handle);
  const kernel& k = *static_cast<kernel*>(kernel_handle);
  const char* name = k.name.c_str();
  if (nargs != static_cast<int>(k.args.size()))
    return fail(format("launch of kernel '%s': it takes %zu arguments (%s), got %d", name, k.args.size(),
                       k.signature.c_str(), nargs));
  uint64_t threads = uint64_t(block.x) * block.y * block.z;
  auto within = [](fl_dim3 d, const uint32_t (&most)[3]) {
    return d.x >= 1 && d.y >= 1 && d.z >= 1 && d.x <= most[0] && d.y <= most[1] && d.z <= most[2];
  };
  if (!within(block, kMaxBlockDim) || threads > kMaxThreadsPerBlock)
    return fail(format("launch of kernel '%s': block must have 1 to %d threads (at most %u, %u, %u), got (%u,%u,%u)",
                       name, kMaxThreadsPerBlock, kMaxBlockDim[0], kMaxBlockDim[1], kMaxBlockDim[2], block.x, block.y,
                       block.z));
  if (!within(grid, kMaxGridDim))
    return fail(format("launch of kernel '%s': grid must be at least 1 and at most (%u,%u,%u), got (%u,%u,%u)", name,
                       kMaxGridDim[0], kMaxGridDim[1], kMaxGridDim[2], grid.x, grid.y, grid.z));
  const uint64_t blocks = uint64_t(grid.x) * grid.y * grid.z;
  const uint64_t resident = std::min(kResidentBlocks, kResidentThreads / threads);
  if (k.cooperative && blocks > resident)
    return fail(format("launch of %s: grid must hold at most %llu blocks of %llu threads on the CPU emulator, as its "
                       "grid.sync() needs every block resident (a cooperative launch), got %llu",
                       name, static_cast<unsigned long long>(resident), static_cast<unsigned long long>(threads),
                       static_cast<unsigned long long>(blocks)));
  const size_t shared_most = shared_limit(d->options.warp_size);
  if (shared_bytes > shared_most)
    return fail(format("launch of kernel '%s': shared memory must be at most %zu bytes, got %zu", name, shared_most, shared_bytes));
  // The argument values are copied: the caller's may change once we return.
  std::vector<unsigned char> values;
  std::vector<size_t> offsets;
  for (int i = 0; i < nargs; i++) {
    const argument& a = k.args[i];
    if (a.bytes == 0)
      return fail(format("launch of kernel '%s': argument %d has a type the emulator cannot pass (%s)", name, i,
                         a.type.c_str()));
    if (!args || !args[i]) return fail(format("launch of kernel '%s': argument %d is missing", name, i));
    size_t offset = (values.size() + 7) & ~size_t(7);
    values.resize(offset + a.bytes);
    memcpy(values.data() + offset, args[i], a.bytes);
    offsets.push_back(offset);
  }
  std::vector<size_t> reaches(nargs, 0);
  if (reach) reaches.assign(reach, reach + nargs);
  d->enqueue([d, &k, grid, block, shared_bytes, values = std::move(values), offsets = std::move(offsets),
              reaches = std::move(reaches)]() mutable { run_launch(*d, k, grid, block, shared_bytes, values, offsets, reaches); });
  return 0;
}

int cpu_synchronize(void* handle) { return static_cast<device*>(handle)->wait(); }

int cpu_cancel(void* handle) {
  auto* d = static_cast<device*>(handle);
  const bool compiling = d->compiles_running.load() > 0;
  d->compile_stops++;
  const bool launch_stopped = d->pool->cancel();
  return launch_stopped || compiling ? 1 : 0;
}

int cpu_event_create(void*, void** out) {
  *out = new event;
  return 0;
}

int cpu_event_record(void* handle, void* ev) {
  auto* e = static_cast<event*>(ev);
  e->ticket = static_cast<device*>(handle)->enqueue([e] { e->time = std::chrono::steady_clock::now(); });
  return 0;
}

int cpu_event_elapsed(void* handle, void* start, void* end, float* ms) {
  auto* d = static_cast<device*>(handle);
  auto* a = static_cast<event*>(start);
  auto* b = static_cast<event*>(end);
  if (!a->ticket || !b->ticket)
    return fail(format("event_elapsed: the %s event was never recorded", a->ticket ? "end" : "start"));
  if (d->wait(std::max(a->ticket, b->ticket))) return 1;
  *ms = std::chrono::duration<float, std::milli>(b->time - a->time).count();
  return 0;
}

void cpu_event_destroy(void* handle, void* ev) {
  // Queued: a record of it may be waiting to run.
  static_cast<device*>(handle)->enqueue([ev] { delete static_cast<event*>(ev); });
}

void cpu_free_string(char* s) { free(s); }

int cpu_module_symbol(void* mod, const char* name, void** address, size_t* bytes) {
  auto* m = static_cast<module*>(mod);
  if (!m || !name || !address || !bytes) return fail("module_symbol: module, name, address and bytes must be pointers, got null");
  if (!m->library) return fail(format("module_symbol: the built-in kernels have no variable '%s'", name));
  // __constant__ variables are exported by name (vendors/cpu.h); the symbol table gives their size.
  void* found = dlsym(m->library, name);
  Dl_info info;
  void* entry = nullptr;
  const bool described = found && dladdr1(found, &info, &entry, RTLD_DL_SYMENT) && entry;
  const auto* symbol = static_cast<const ElfW(Sym)*>(entry);
  if (!described || ELF64_ST_TYPE(symbol->st_info) != STT_OBJECT)
    return fail(format("module_symbol: the module has no __constant__ or __device__ variable '%s' at namespace scope", name));
  *address = found;
  *bytes = symbol->st_size;
  return 0;
}

// Filled by field name: a reordered fl_backend cannot wire a function into the wrong slot.
fl_backend make_backend() {
  fl_backend b{};
  b.abi = FL_BACKEND_ABI;
  b.name = "cpu";
  b.last_error = &cpu_last_error;
  b.probe = &cpu_probe;
  b.notes = &cpu_notes;
  b.device_count = &cpu_device_count;
  b.open = &cpu_open;
  b.close = &cpu_close;
  b.props = &cpu_props;
  b.alloc = &cpu_alloc;
  b.release = &cpu_release;
  b.upload = &cpu_upload;
  b.download = &cpu_download;
  b.copy = &cpu_copy;
  b.fill = &cpu_fill;
  b.module_builtin = &cpu_module_builtin;
  b.module_compile = &cpu_module_compile;
  b.module_unload = &cpu_module_unload;
  b.kernel_count = &cpu_kernel_count;
  b.kernel_info = &cpu_kernel_info;
  b.kernel_get = &cpu_kernel_get;
  b.launch = &cpu_launch;
  b.synchronize = &cpu_synchronize;
  b.cancel = &cpu_cancel;
  b.event_create = &cpu_event_create;
  b.event_record = &cpu_event_record;
  b.event_elapsed = &cpu_event_elapsed;
  b.event_destroy = &cpu_event_destroy;
  b.free_string = &cpu_free_string;
  b.kernel_stats = nullptr;  // kernels run as host code, with no registers or occupancy to report
  b.module_symbol = &cpu_module_symbol;
  return b;
}

}  // namespace
}  // namespace fl::cpu

extern "C" __attribute__((visibility("default"))) const fl_backend* fuselab_backend(void) {
  static const fl_backend backend = fl::cpu::make_backend();
  return &backend;
}
