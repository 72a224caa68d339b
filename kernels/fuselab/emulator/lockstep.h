// Lock step on the CPU: a warp's lanes take their accesses to shared memory in
// turn, as a GPU's warp executes each instruction for all its lanes. A module
// that uses shared memory is compiled in plain mode with -fsanitize=thread,
// whose compiler calls __tsan_readN/__tsan_writeN before every load and store
// of the module, and with no sanitizer library: the module defines the
// functions it calls here. An access inside the block's shared memory (the
// module's thread-local block, where static __shared__ arrays live, and the
// dynamic shared memory) waits for the other lanes to reach theirs
// (runtime.h's lockstep_step); any other returns at once. GCC also routes the
// module's atomic operations through the sanitizer's functions: they are done
// here, sequentially consistent whatever order the source asked for (at least
// as strong; a GPU's atomics on one address are ordered too).
//
// Check mode is compiled with the same calls. Its race check (racecheck.h)
// notes an access to shared memory in the block's shadow of it, and the thread
// goes on. Its check of buffers' bounds faults an access that reaches past a
// buffer's end into the rest of its last 16-byte granule, the one stretch past
// the end that the no-access reserve after each buffer does not hold, and one
// into the guard band before its start.
#ifndef FUSELAB_EMULATOR_LOCKSTEP_H
#define FUSELAB_EMULATOR_LOCKSTEP_H
#if defined(FL_EMU_LOCKSTEP) || defined(FL_EMU_RACECHECK) || defined(FL_EMU_BOUNDS_CHECK)

#include <stddef.h>
#include <stdint.h>

#include "runtime.h"

// Not instrumented themselves; they call only always-inlined code until they know
// the access is to shared memory (an instrumented call here would recurse).
#define FL_LOCKSTEP_HOOK extern "C" __attribute__((no_sanitize_thread, visibility("hidden")))

namespace fl::emu {
#if defined(FL_EMU_BOUNDS_CHECK)
// The end, if any, of a buffer of the launch or of the block's dynamic shared
// memory that `bytes` at `a` reach past within its granule: the fault's
// address, the first byte past it they touch; else 0.
__attribute__((noinline, no_sanitize_thread)) inline uintptr_t past_buffer_end(uintptr_t a, size_t bytes) {
  const block_state* b = static_cast<const block_state*>(tls().block);
  if (!b) return 0;
  const fl_emu_launch& desc = *b->launch->desc;
  const uintptr_t last = a + bytes - 1, granule = last & ~uintptr_t(15);
  const auto reached = [&](uintptr_t end) -> uintptr_t {
    if (end > last || (end & ~uintptr_t(15)) != granule) return 0;
    return a > end ? a : end;
  };
  if (const uintptr_t fault = reached(reinterpret_cast<uintptr_t>(b->dynamic_shared) + desc.shared_bytes)) return fault;
  // The last end at or before `last`.
  size_t low = 0, high = desc.buffer_end_count;
  while (low < high) {
    const size_t middle = (low + high) / 2;
    if (desc.buffer_ends[middle] <= last) low = middle + 1;
    else high = middle;
  }
  return low ? reached(desc.buffer_ends[low - 1]) : 0;
}

// `a` if it lies in the guard band before a buffer's start (a page of the
// launch's table whose buffer starts past it); else 0.
__attribute__((always_inline, no_sanitize_thread)) inline uintptr_t before_buffer_start(uintptr_t a) {
  const block_state* b = static_cast<const block_state*>(tls().block);
  if (!b) return 0;
  const fl_emu_launch& desc = *b->launch->desc;
  const uintptr_t* fronts = desc.buffer_fronts;
  if (!fronts) return 0;
  const uintptr_t page = a >> FL_EMU_FRONT_PAGE_BITS;
  const size_t mask = (size_t(1) << desc.buffer_front_bits) - 1;
  for (size_t slot = fl_emu_front_slot(page, desc.buffer_front_bits);; slot = (slot + 1) & mask) {
    if (fronts[2 * slot] == page) return a < fronts[2 * slot + 1] ? a : 0;
    if (!fronts[2 * slot]) return 0;
  }
}

// Faults an access out of a buffer's bounds that the no-access reserves around
// it do not hold: into the guard band before its start, or past its end into
// the rest of its last granule.
__attribute__((always_inline, no_sanitize_thread)) inline void check_buffer_bounds(const void* address, size_t bytes, bool write) {
  const uintptr_t a = reinterpret_cast<uintptr_t>(address);
  // A buffer's last granule ends a page, where its no-access reserve begins:
  // only an access whose last byte lies in a page's last 16 bytes may be past an end.
  uintptr_t fault = ((a + bytes - 1) & 4095) >= 4096 - 16 ? past_buffer_end(a, bytes) : 0;
  if (!fault) fault = before_buffer_start(a);
  if (fault) {
    fl_emu_worker* worker = static_cast<block_state*>(tls().block)->worker;
    worker->access_fault(worker, fault, write);
  }
}
#else
__attribute__((always_inline)) inline void check_buffer_bounds(const void*, size_t, bool) {}
#endif

// `caller`: in lock step the hook's frame, in the race check its return address.
__attribute__((always_inline, no_sanitize_thread)) inline void shared_access(const void* address, size_t bytes, bool write,
                                                                         void* caller, bool stepped = false) {
  check_buffer_bounds(address, bytes, write);
#if defined(FL_EMU_LOCKSTEP) || defined(FL_EMU_RACECHECK)
  block_state* b = static_cast<block_state*>(tls().block);
#if defined(FL_EMU_RACECHECK)
  if (!b || !b->racecheck) return;
#else
  if (!b || !b->lockstep) return;
#endif
  const uintptr_t a = reinterpret_cast<uintptr_t>(address);
  const bool in_static = a - b->static_shared < b->static_shared_bytes && a - b->runtime_tls >= b->runtime_tls_bytes;
  const bool in_dynamic = a - reinterpret_cast<uintptr_t>(b->dynamic_shared) < b->dynamic_shared_bytes;
  if (!in_static && !in_dynamic) return;
#if defined(FL_EMU_RACECHECK)
  const uintptr_t byte = in_static ? a - b->static_shared : b->static_shared_bytes + (a - reinterpret_cast<uintptr_t>(b->dynamic_shared));
  const uintptr_t end = in_static ? b->static_shared_bytes : b->static_shared_bytes + b->dynamic_shared_bytes;
  race_access(*b, a, byte, bytes < end - byte ? bytes : end - byte, write, stepped, caller);
#else
  lockstep_step(static_cast<void* const*>(caller), a, bytes, write);
#endif
#else
  (void)caller;
  (void)stepped;
#endif
}
#if defined(FL_EMU_RACECHECK)
// A volatile object's access (stepped.h).
FL_EMU_UNINSTRUMENTED inline void note_shared_access(const void* address, size_t bytes, bool write, void* caller) {
  shared_access(address, bytes, write, caller, true);
}
#endif
}  // namespace fl::emu

// Declared under other names, bound to the sanitizer's by their assembler
// names: GCC declares the sanitizer's functions itself, with types of its own.
#define FL_LOCKSTEP_ACCESS(name, ...)                                               \
  FL_LOCKSTEP_HOOK void fl_tsan_##name(__VA_ARGS__) __asm__("__tsan_" #name);       \
  FL_LOCKSTEP_HOOK void fl_tsan_##name(__VA_ARGS__)
#if defined(FL_EMU_RACECHECK)
#define FL_LOCKSTEP_FRAME __builtin_return_address(0)
#else
#define FL_LOCKSTEP_FRAME __builtin_frame_address(0)
#endif
#define FL_LOCKSTEP_ACCESSES(kind, write)                                                                                   \
  FL_LOCKSTEP_ACCESS(kind##1, void* a) { ::fl::emu::shared_access(a, 1, write, FL_LOCKSTEP_FRAME); }                       \
  FL_LOCKSTEP_ACCESS(kind##2, void* a) { ::fl::emu::shared_access(a, 2, write, FL_LOCKSTEP_FRAME); }                       \
  FL_LOCKSTEP_ACCESS(kind##4, void* a) { ::fl::emu::shared_access(a, 4, write, FL_LOCKSTEP_FRAME); }                       \
  FL_LOCKSTEP_ACCESS(kind##8, void* a) { ::fl::emu::shared_access(a, 8, write, FL_LOCKSTEP_FRAME); }                       \
  FL_LOCKSTEP_ACCESS(kind##16, void* a) { ::fl::emu::shared_access(a, 16, write, FL_LOCKSTEP_FRAME); }                     \
  FL_LOCKSTEP_ACCESS(unaligned_##kind##2, void* a) { ::fl::emu::shared_access(a, 2, write, FL_LOCKSTEP_FRAME); }           \
  FL_LOCKSTEP_ACCESS(unaligned_##kind##4, void* a) { ::fl::emu::shared_access(a, 4, write, FL_LOCKSTEP_FRAME); }           \
  FL_LOCKSTEP_ACCESS(unaligned_##kind##8, void* a) { ::fl::emu::shared_access(a, 8, write, FL_LOCKSTEP_FRAME); }           \
  FL_LOCKSTEP_ACCESS(unaligned_##kind##16, void* a) { ::fl::emu::shared_access(a, 16, write, FL_LOCKSTEP_FRAME); }         \
  FL_LOCKSTEP_ACCESS(kind##_range, void* a, size_t bytes) { ::fl::emu::shared_access(a, bytes, write, FL_LOCKSTEP_FRAME); }
FL_LOCKSTEP_ACCESSES(read, false)
FL_LOCKSTEP_ACCESSES(write, true)
FL_LOCKSTEP_ACCESS(init, void) {}
FL_LOCKSTEP_ACCESS(func_entry, void*) {}
FL_LOCKSTEP_ACCESS(func_exit, void) {}
FL_LOCKSTEP_ACCESS(vptr_update, void**, void*) {}
FL_LOCKSTEP_ACCESS(vptr_read, void**) {}

#define FL_LOCKSTEP_ATOMIC(bits, T, op, ...)                                                              \
  FL_LOCKSTEP_HOOK T fl_tsan_atomic##bits##_##op(__VA_ARGS__) __asm__("__tsan_atomic" #bits "_" #op);     \
  FL_LOCKSTEP_HOOK T fl_tsan_atomic##bits##_##op(__VA_ARGS__)
// Check mode's bounds check also sees atomics (a store's, or an atomicMin's that keeps the value).
#define FL_ATOMIC_AT(a, bytes, write) ::fl::emu::check_buffer_bounds(const_cast<const void*>(static_cast<const volatile void*>(a)), bytes, write)
#define FL_LOCKSTEP_ATOMICS(bits, T)                                                                                          \
  FL_LOCKSTEP_ATOMIC(bits, T, load, const volatile void* a, int) { FL_ATOMIC_AT(a, sizeof(T), false); return __atomic_load_n(static_cast<const volatile T*>(a), __ATOMIC_SEQ_CST); } \
  FL_LOCKSTEP_ATOMIC(bits, void, store, volatile void* a, T v, int) { FL_ATOMIC_AT(a, sizeof(T), true); __atomic_store_n(static_cast<volatile T*>(a), v, __ATOMIC_SEQ_CST); } \
  FL_LOCKSTEP_ATOMIC(bits, T, exchange, volatile void* a, T v, int) { FL_ATOMIC_AT(a, sizeof(T), true); return __atomic_exchange_n(static_cast<volatile T*>(a), v, __ATOMIC_SEQ_CST); } \
  FL_LOCKSTEP_ATOMIC(bits, T, fetch_add, volatile void* a, T v, int) { FL_ATOMIC_AT(a, sizeof(T), true); return __atomic_fetch_add(static_cast<volatile T*>(a), v, __ATOMIC_SEQ_CST); } \
  FL_LOCKSTEP_ATOMIC(bits, T, fetch_sub, volatile void* a, T v, int) { FL_ATOMIC_AT(a, sizeof(T), true); return __atomic_fetch_sub(static_cast<volatile T*>(a), v, __ATOMIC_SEQ_CST); } \
  FL_LOCKSTEP_ATOMIC(bits, T, fetch_and, volatile void* a, T v, int) { FL_ATOMIC_AT(a, sizeof(T), true); return __atomic_fetch_and(static_cast<volatile T*>(a), v, __ATOMIC_SEQ_CST); } \
  FL_LOCKSTEP_ATOMIC(bits, T, fetch_or, volatile void* a, T v, int) { FL_ATOMIC_AT(a, sizeof(T), true); return __atomic_fetch_or(static_cast<volatile T*>(a), v, __ATOMIC_SEQ_CST); } \
  FL_LOCKSTEP_ATOMIC(bits, T, fetch_xor, volatile void* a, T v, int) { FL_ATOMIC_AT(a, sizeof(T), true); return __atomic_fetch_xor(static_cast<volatile T*>(a), v, __ATOMIC_SEQ_CST); } \
  FL_LOCKSTEP_ATOMIC(bits, T, fetch_nand, volatile void* a, T v, int) { FL_ATOMIC_AT(a, sizeof(T), true); return __atomic_fetch_nand(static_cast<volatile T*>(a), v, __ATOMIC_SEQ_CST); } \
  FL_LOCKSTEP_ATOMIC(bits, int, compare_exchange_strong, volatile void* a, T* expected, T v, int, int) {                     \
    FL_ATOMIC_AT(a, sizeof(T), true);                                                                                                  \
    return __atomic_compare_exchange_n(static_cast<volatile T*>(a), expected, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);   \
  }                                                                                                                           \
  FL_LOCKSTEP_ATOMIC(bits, int, compare_exchange_weak, volatile void* a, T* expected, T v, int, int) {                       \
    FL_ATOMIC_AT(a, sizeof(T), true);                                                                                                  \
    return __atomic_compare_exchange_n(static_cast<volatile T*>(a), expected, v, true, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);    \
  }                                                                                                                           \
  FL_LOCKSTEP_ATOMIC(bits, T, compare_exchange_val, volatile void* a, T expected, T v, int, int) {                           \
    FL_ATOMIC_AT(a, sizeof(T), true);                                                                                                  \
    __atomic_compare_exchange_n(static_cast<volatile T*>(a), &expected, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);         \
    return expected;                                                                                                          \
  }
FL_LOCKSTEP_ATOMICS(8, uint8_t)
FL_LOCKSTEP_ATOMICS(16, uint16_t)
FL_LOCKSTEP_ATOMICS(32, uint32_t)
FL_LOCKSTEP_ATOMICS(64, uint64_t)
FL_LOCKSTEP_HOOK void fl_tsan_atomic_thread_fence(int) __asm__("__tsan_atomic_thread_fence");
FL_LOCKSTEP_HOOK void fl_tsan_atomic_thread_fence(int) { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
FL_LOCKSTEP_HOOK void fl_tsan_atomic_signal_fence(int) __asm__("__tsan_atomic_signal_fence");
FL_LOCKSTEP_HOOK void fl_tsan_atomic_signal_fence(int) { __atomic_signal_fence(__ATOMIC_SEQ_CST); }

#endif
#endif
