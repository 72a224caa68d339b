// Check mode's race check: two threads of a block that touch one byte of its
// shared memory between barriers, one of them writing it and changing its value,
// are a race, as compute-sanitizer's racecheck reports a hazard. A GPU may run
// the two accesses in either order, so the kernel's result depends on timing. A
// module that uses shared memory is compiled in check mode with the same calls
// before every load and store as lock step's (lockstep.h), which here note each
// access to shared memory in a shadow of it: per byte, the stretch between
// barriers it was last touched in, its last writer and two of its readers. Two
// lanes of one warp are ordered by a warp operation they meet at in between
// (__syncwarp(), a shuffle, a vote), two threads of different warps only by a
// barrier. A write that leaves the byte as it was races with nothing (threads
// that all store the same flag), as racecheck counts it benign: a store's value
// is known only after it, so a write that may race is settled at the next
// access, barrier or warp operation of the block, or at its end.
#ifndef FUSELAB_EMULATOR_RACECHECK_H
#define FUSELAB_EMULATOR_RACECHECK_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#if defined(FL_EMU_RACECHECK)
// The module's calls, each with its source line: a table the compile adds to its
// assembly (native/backends/cpu/call_sites.cc).
struct fl_emu_call_site {
  uintptr_t returns_to;
  uint32_t line, file;
};
extern "C" const fl_emu_call_site fl_emu_call_sites[] __attribute__((visibility("hidden")));
extern "C" const uint32_t fl_emu_call_site_count __attribute__((visibility("hidden")));
extern "C" const char* const fl_emu_call_site_files[] __attribute__((visibility("hidden")));
#endif

namespace fl::emu {

#if defined(FL_EMU_RACECHECK)
// A place in the module's code as 32 bits: its distance from the call table (a module is far smaller than 4 GiB).
FL_EMU_UNINSTRUMENTED inline uint32_t race_site(const void* code) {
  return static_cast<uint32_t>(reinterpret_cast<uintptr_t>(code) - reinterpret_cast<uintptr_t>(fl_emu_call_sites));
}

// "line 14 of kernel.cu" for the call that returns to `site`.
FL_EMU_UNINSTRUMENTED inline void describe_site(uint32_t site, char* out, size_t size) {
  const uintptr_t code = reinterpret_cast<uintptr_t>(fl_emu_call_sites) + static_cast<uintptr_t>(static_cast<int32_t>(site));
  for (uint32_t i = 0; i < fl_emu_call_site_count; i++) {
    const fl_emu_call_site& s = fl_emu_call_sites[i];
    if (s.returns_to != code) continue;
    snprintf(out, size, "line %u of %s", static_cast<unsigned>(s.line), fl_emu_call_site_files[s.file]);
    return;
  }
  snprintf(out, size, "a line the module's line table does not name");
}
#endif

FL_EMU_UNINSTRUMENTED inline uint32_t warp_meetings(const block_state& b, uint32_t rank) {
  return b.fibers ? b.warps[rank / static_cast<uint32_t>(b.warp_size)].meetings : 0;
}

// Whether access `me` may run before or after the toucher's on a GPU: another
// thread's, of another warp, or of its own with no warp operation since (but
// for two accesses through volatile objects, which step in turn).
FL_EMU_UNINSTRUMENTED inline bool unordered(const block_state& b, const race_toucher& t, const race_toucher& me) {
  if (!t.thread || t.thread == me.thread) return false;
  const uint32_t warp = static_cast<uint32_t>(b.warp_size);
  if ((t.thread - 1) / warp != (me.thread - 1) / warp) return true;
  return t.warp_meetings == me.warp_meetings && !(t.stepped && me.stepped);
}

// "bytes 12 to 15 of the block's static __shared__ memory" for `bytes` from shadow index `byte`.
FL_EMU_UNINSTRUMENTED inline void describe_shared_bytes(const block_state& b, uintptr_t byte, uint32_t bytes, char* out, size_t size) {
  const bool in_static = byte < b.static_shared_bytes;
  const unsigned long long first = in_static ? byte : byte - b.static_shared_bytes, last = first + bytes - 1;
  const char* memory = in_static ? "the block's static __shared__ memory" : "its dynamic shared memory (extern __shared__)";
  if (bytes > 1) snprintf(out, size, "bytes %llu to %llu of %s", first, last, memory);
  else snprintf(out, size, "byte %llu of %s", first, memory);
}

// Fails the block with the race between `earlier` (as the emulator ran them) and
// thread `rank`'s access at `site` of `bytes` from shadow index `byte`.
FL_EMU_UNINSTRUMENTED inline void report_race(block_state& b, const race_toucher& earlier, bool earlier_wrote, uint32_t rank,
                                              uint32_t site, bool wrote, uintptr_t byte, uint32_t bytes) {
  hold_stops hold(b.worker);
  const fl_emu_dim3 dim = b.state->block_dim;
  const fl_emu_dim3 first = thread_index(earlier.thread - 1, dim), second = thread_index(rank, dim);
  const bool one_warp = (earlier.thread - 1) / static_cast<uint32_t>(b.warp_size) == rank / static_cast<uint32_t>(b.warp_size);
  char where_first[160] = "", where_second[160] = "", what[96];
#if defined(FL_EMU_RACECHECK)
  describe_site(earlier.site, where_first, sizeof where_first);
  describe_site(site, where_second, sizeof where_second);
#endif
  describe_shared_bytes(b, byte, bytes, what, sizeof what);
  const fl_emu_dim3& block = b.state->where.block;
  fail(b,
       "kernel '%s': a race on shared memory in block (%u,%u,%u): thread (%u,%u,%u) %s %s on %s, and thread "
       "(%u,%u,%u)%s %s %s on %s, with no %s between them: a GPU may run the two "
       "in either order, so what the kernel computes depends on timing (compute-sanitizer's racecheck reports such a "
       "hazard)",
       b.launch->desc->kernel, block.x, block.y, block.z, second.x, second.y, second.z, wrote ? "wrote" : "read", what,
       where_second, first.x, first.y, first.z, one_warp ? ", of the same warp," : "", earlier_wrote ? "wrote" : "read",
       bytes > 1 ? "them" : "it", where_first, one_warp ? "__syncwarp() or __syncthreads()" : "__syncthreads()");
}

// The write a race may hang on, once its store is done: it races if it changed a byte.
FL_EMU_UNINSTRUMENTED inline bool settle_pending_write(block_state& b) {
  race_pending& p = b.pending_write;
  if (!p.bytes) return true;
  const unsigned char* now = reinterpret_cast<const unsigned char*>(p.address);
  for (uint32_t i = 0; i < p.bytes; i++)
    if ((p.racing >> i & 1) && now[i] != p.before[i]) {
      p.bytes = 0;
      report_race(b, p.earlier, p.earlier_wrote, p.rank, p.site, true, p.first_byte, p.access_bytes);
      return false;
    }
  p.bytes = 0;
  return true;
}

// At a barrier, a warp operation and the block's end.
FL_EMU_UNINSTRUMENTED inline void settle_races(block_state& b) {
  if (b.racecheck && !settle_pending_write(b)) abandon_block(b);
}

// A barrier released the block: a new stretch, in which no byte has been touched.
FL_EMU_UNINSTRUMENTED inline void race_stretch_ends(block_state& b) {
  if (!b.racecheck) return;
  settle_races(b);
  b.race_stretch = ++*b.race_stretches;
}

// The running thread's access to `bytes` at `address` in its block's shared memory
// (`byte` the first's index in the shadow), from the call that returns to `code`,
// `stepped` through a volatile object.
FL_EMU_UNINSTRUMENTED inline void race_access(block_state& b, uintptr_t address, uintptr_t byte, size_t bytes, bool write,
                                              bool stepped, const void* code) {
  if (b.pending_write.bytes) settle_races(b);
  const fl_emu_dim3& t = b.state->where.thread;
  const fl_emu_dim3& d = b.state->block_dim;
  const uint32_t rank = t.x + d.x * (t.y + d.y * t.z);
  const uint32_t meetings = warp_meetings(b, rank);
#if defined(FL_EMU_RACECHECK)
  const uint32_t site = race_site(code);
#else
  const uint32_t site = 0;
  (void)code;
#endif
  const race_toucher me{rank + 1, site, meetings, stepped};
  const unsigned char* memory = reinterpret_cast<const unsigned char*>(address);
  race_pending& pending = b.pending_write;
  for (size_t i = 0; i < bytes; i++) {
    race_byte& e = b.race_shadow[byte + i];
    if (e.stretch != b.race_stretch) e = race_byte{b.race_stretch, {}, {}, {}, 0};
    if (!write) {
      // The byte's writer in this stretch changed it before this read: which value is read depends on the order.
      if (unordered(b, e.writer, me) && memory[i] != e.before) {
        report_race(b, e.writer, true, rank, site, false, byte, static_cast<uint32_t>(bytes));
        abandon_block(b);
      }
      if (!unordered(b, e.reader, me)) e.reader = me;
      else if (!unordered(b, e.other_reader, me)) e.other_reader = me;
      continue;
    }
    if (!e.writer.thread) e.before = memory[i];
    const race_toucher* earlier = unordered(b, e.writer, me)         ? &e.writer
                                  : unordered(b, e.reader, me)       ? &e.reader
                                  : unordered(b, e.other_reader, me) ? &e.other_reader
                                                                                 : nullptr;
    if (earlier && i < sizeof pending.before) {
      // Settled after the store, which may leave the byte as the earlier access left it.
      if (!pending.bytes) {
        pending.address = address;
        pending.first_byte = byte;
        pending.access_bytes = static_cast<uint32_t>(bytes);
        pending.rank = rank;
        pending.site = site;
        pending.earlier = *earlier;
        pending.earlier_wrote = earlier == &e.writer;
        pending.racing = 0;
      }
      pending.bytes = static_cast<uint32_t>(i + 1);
      pending.before[i] = memory[i];
      pending.racing |= 1u << i;
    }
    e.writer = me;
  }
}

// Check mode's race check for the block, where its module has one: where its
// shared memory lies, and a shadow of it.
FL_EMU_UNINSTRUMENTED inline void start_racecheck(block_state& b, const module_thread& own, size_t dynamic_bytes) {
  b.static_shared = reinterpret_cast<uintptr_t>(own.tls_begin);
  b.static_shared_bytes = own.tls_bytes;
  b.runtime_tls = reinterpret_cast<uintptr_t>(&own);
  b.runtime_tls_bytes = sizeof own;
  b.dynamic_shared_bytes = dynamic_bytes;
  b.pending_write.bytes = 0;
  const size_t shadow_bytes = (b.static_shared_bytes + dynamic_bytes) * sizeof(race_byte);
  hold_stops hold(b.worker);
  // The count of stretches is kept in the scratch buffer's last 16 bytes, which
  // stay in place from block to block (the buffer is laid out to its end), so a
  // shadow entry of an earlier block, of this module or another, is never current.
  unsigned char* scratch = static_cast<unsigned char*>(b.worker->scratch(b.worker, 3, shadow_bytes + 16));
  if (!scratch) {
    fail(b, "kernel '%s': out of memory for check mode's race check of a block's shared memory", b.launch->desc->kernel);
    return;
  }
  b.race_shadow = reinterpret_cast<race_byte*>(scratch);
  b.race_stretches = reinterpret_cast<uint64_t*>(scratch + shadow_bytes);
  b.race_stretch = ++*b.race_stretches;
  b.racecheck = true;
}

}  // namespace fl::emu

#endif
