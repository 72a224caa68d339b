/* The C interface between the cpu backend plugin and the CPU emulator's run time.
 *
 * The run time is header-only and compiled into every CPU module (the kernels
 * built into the plugin, and each module compiled from a notebook cell), so a
 * module carries its own copy. The plugin owns the threads and the memory; a
 * module owns the scheduling of GPU threads inside a block. They meet here, in
 * plain C, so a module built by another compiler still fits.
 */
#ifndef FUSELAB_EMULATOR_ABI_H
#define FUSELAB_EMULATOR_ABI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define FL_EMU_ABI 5

typedef struct fl_emu_dim3 { uint32_t x, y, z; } fl_emu_dim3;

/* Which GPU thread a worker runs at the moment: read by the plugin's fault
   handler to say where a kernel crashed. */
typedef struct fl_emu_where {
  fl_emu_dim3 block;
  fl_emu_dim3 thread;
} fl_emu_where;

/* Where an OS thread is in a launch: the GPU thread it runs, the launch's
   shape, and the run time's block (opaque here). Every run-time access to
   threadIdx, warpSize or the block goes through it, so it lives where the
   thread finds it fastest: in the plugin's static thread-local storage, at a
   fixed offset from the thread pointer (fl_emu_launch.thread_offset). */
typedef struct fl_emu_thread {
  fl_emu_where where;
  fl_emu_dim3 block_dim;
  fl_emu_dim3 grid_dim;
  int warp_size;
  void* block;
} fl_emu_thread;

/* The thread pointer (what TLS offsets count from), or NULL where the machine
   has none that code can read. */
static inline __attribute__((always_inline)) void* fl_emu_thread_pointer(void) {
#if defined(__x86_64__)
  void* tp;
  __asm__("mov %%fs:0, %0" : "=r"(tp));
  return tp;
#elif defined(__aarch64__)
  void* tp;
  __asm__("mrs %0, tpidr_el0" : "=r"(tp));
  return tp;
#else
  return NULL;
#endif
}

/* One OS thread of the plugin's pool, as the run time sees it. */
typedef struct fl_emu_worker {
  /* Set by the run time at the start of every block. */
  const fl_emu_where* volatile where;
  /* While nonzero the run time is in library code (allocating, formatting an
     error) and must not be interrupted by a stop signal; the plugin retries. */
  volatile int hold;
  /* Reusable scratch memory, one buffer per slot, at least `bytes` long and
     16-byte aligned; valid until the next call with the same slot. NULL when
     out of memory. */
  void* (*scratch)(struct fl_emu_worker* self, int slot, size_t bytes);
  /* The stack of fiber `index` (lowest usable address), `*bytes` long, with a
     guard page below it. Reused across blocks and launches. NULL when out of
     memory. */
  void* (*fiber_stack)(struct fl_emu_worker* self, uint32_t index, size_t* bytes);
  /* Nonzero once the plugin stops the launch (fault, time limit, cancel): a
     block waiting on others (grid.sync()) then runs its own code, where the
     stop signal lands, instead of sleeping in the C library. */
  const volatile int* stopping;
  /* Ends the launch as a memory fault at `address` would (`write`: nonzero for
     a store), from check mode's hooks on loads and stores (lockstep.h). */
  void (*access_fault)(struct fl_emu_worker* self, uintptr_t address, int write);
} fl_emu_worker;

typedef void (*fl_emu_body)(void* ctx, uint64_t index, fl_emu_worker* worker);

/* The plugin's thread pool. parallel_for runs body(ctx, i, worker) for every i
   in [0, n), spread over the pool's threads, and returns when all are done or
   the launch was stopped (fault, time limit, cancel: the plugin reports those).
   parallel_for_resident runs every i at once, each on a thread of its own
   (a cooperative launch, whose blocks wait for each other at grid.sync()). */
typedef struct fl_emu_pool {
  void* self;
  void (*parallel_for)(void* self, uint64_t n, fl_emu_body body, void* ctx);
  void (*parallel_for_resident)(void* self, uint64_t n, fl_emu_body body, void* ctx);
} fl_emu_pool;

#define FL_EMU_ERROR_BYTES 1024

typedef struct fl_emu_launch {
  const char* kernel;          /* its name, for messages */
  fl_emu_dim3 grid;
  fl_emu_dim3 block;
  size_t shared_bytes;         /* dynamic shared memory per block */
  void** args;                 /* args[i] points to the value of argument i */
  int warp_size;               /* 32 or 64 */
  int check;                   /* poison shared memory, shuffle thread order */
  int cooperative;             /* every block resident at once: grid.sync() */
  uint64_t seed;               /* for the shuffles */
  const fl_emu_pool* pool;
  /* Each OS thread's fl_emu_thread lies this many bytes from its thread
     pointer; 0: the module keeps its own, in its thread-local storage. */
  ptrdiff_t thread_offset;
  /* Check mode: the ends of the device's buffers that do not end a 16-byte
     granule, ascending. The granule's bytes past such an end are readable
     (the no-access reserve begins after it): the hooks on loads and stores
     fault an access that reaches them. */
  const uintptr_t* buffer_ends;
  size_t buffer_end_count;
  /* Check mode: the 4 KiB pages that hold the guard bands before the device's
     buffers, where a read goes unfaulted: a hash table (fl_emu_front_slot) of
     2^buffer_front_bits slots, two words each, the page's number (address >>
     FL_EMU_FRONT_PAGE_BITS; 0: an empty slot) and the address of the buffer's
     start, before which an access there is out of bounds. NULL: none. */
  const uintptr_t* buffer_fronts;
  uint32_t buffer_front_bits;
  char error[FL_EMU_ERROR_BYTES]; /* out: why the launch failed */
} fl_emu_launch;

#define FL_EMU_FRONT_PAGE_BITS 12

/* The first slot to look at for `page` in fl_emu_launch.buffer_fronts. */
static inline __attribute__((always_inline)) size_t fl_emu_front_slot(uintptr_t page, uint32_t bits) {
  return bits ? (size_t)((page * 0x9E3779B97F4A7C15ull) >> (64 - bits)) : 0;
}

/* 0 on success; otherwise launch->error says why. */
typedef int (*fl_emu_launch_fn)(fl_emu_launch* launch);

typedef struct fl_emu_kernel {
  const char* name;
  const char* signature;       /* as fl::signature_of() spells it */
  fl_emu_launch_fn launch;
} fl_emu_kernel;

typedef struct fl_emu_module {
  uint32_t abi;                /* FL_EMU_ABI */
  int count;
  const fl_emu_kernel* kernels;
} fl_emu_module;

/* Every module compiled at run time exports this (FL_EMU_MODULE_ENTRY). */
#define FL_EMU_MODULE_SYMBOL "fuselab_cpu_module"
typedef const fl_emu_module* (*fl_emu_module_fn)(void);

#ifdef __cplusplus
}
#endif
#endif
