/* The one C interface between the Node addon and a backend plugin.
 *
 * Each backend (cpu, cuda, hip) is a shared library exporting
 *     const fl_backend* fuselab_backend(void);
 * The addon dlopen()s every plugin it finds beside itself; a plugin that fails
 * to load, or whose probe() fails, is reported with the reason (fuselab doctor).
 *
 * Conventions:
 *  - Every function returning int returns 0 on success, nonzero on failure; the
 *    failure's text is then in last_error() (thread-local, valid until the next
 *    call on the same thread). GPU texts have the form
 *    "cudaMalloc failed: cudaErrorMemoryAllocation (out of memory)".
 *  - After a sticky device error (illegal address, launch failure) a GPU backend
 *    marks the device lost: every later call on it fails at once with
 *    "device lost: <original reason>".
 *  - Work is stream-ordered on one stream per opened device: launch, copy, fill,
 *    event_record and release are asynchronous; download() and synchronize()
 *    wait for everything before them. Errors raised by asynchronous work are
 *    returned by the next call that waits.
 *  - Kernel arguments are passed as for cudaLaunchKernel: args[i] points to the
 *    value of argument i (a device pointer's value for pointers, which may be
 *    null or point into the middle of an allocation; a struct's bytes, laid out
 *    as the C ABI lays it out, for a struct passed by value).
 */
#ifndef FUSELAB_BACKEND_H
#define FUSELAB_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define FL_BACKEND_ABI 6

typedef struct fl_dim3 { uint32_t x, y, z; } fl_dim3;

typedef struct fl_device_options {
  int warp_size;     /* cpu: 32 (default, when 0) or 64; gpu: ignored */
  int check;         /* cpu: guard bands, NaN poison, shuffled thread order */
  int threads;       /* cpu: worker threads, 0 = hardware concurrency */
  int timeout_ms;    /* cpu: a launch running longer is stopped with an error; gpu: a wait for
                        the device's work gives up with one (the kernel runs on); 0 = none */
} fl_device_options;

typedef struct fl_device_props {
  char name[256];
  char arch[32];               /* "sm_90", "gfx90a", "cpu-x86_64" */
  int warp_size;
  int multiprocessors;         /* cpu: worker threads */
  int max_threads_per_block;
  int max_block_dim[3];
  int max_grid_dim[3];
  size_t shared_per_block;     /* usable without opt-in */
  size_t shared_per_block_optin;
  size_t total_memory;
  size_t l2_bytes;
  double peak_bandwidth_gbs;   /* from clocks and bus width; 0 when unknown */
} fl_device_props;

typedef struct fl_kernel_info {
  const char* name;
  /* Argument types, comma separated, as fl::signature_of() spells them:
     "f32*,const f32*,i32" — element types f32 f64 f16 bf16 i8 u8 i16 u16 i32 u32
     i64 u64, "void*" for other pointees; a trailing '*' marks a pointer; a
     struct passed by value is "struct:<size>:<alignment>"; "?" a type no
     launch can pass. NULL where the backend cannot know it (NVRTC, hiprtc). */
  const char* signature;
  /* The parameters' names, space separated, each pointer's followed by the
     number of elements the kernel may touch through it, an expression over
     integer literals and the integer scalar parameters with + * ( ):
     "out[rows*cols] x[rows*cols] bias[cols] rows cols vectorized". Given by
     the built-in kernels (FL_KERNEL_EXPORT_PARAMS); NULL where not known. The
     addon refuses a launch whose buffer holds fewer bytes than an extent says. */
  const char* params;
} fl_kernel_info;

/* What the compiler decided for a kernel, and the occupancy that allows. */
typedef struct fl_kernel_stats {
  int registers;                 /* per thread */
  size_t local_bytes;            /* per thread: register spills and local arrays */
  size_t static_shared_bytes;    /* per block */
  size_t const_bytes;
  int max_threads_per_block;     /* the kernel's own limit (its registers can lower it) */
  int blocks_per_multiprocessor; /* resident at once, for the block size and dynamic shared memory asked */
  int max_threads_per_multiprocessor;  /* the device's: occupancy = blocks * threads / this */
} fl_kernel_stats;

typedef struct fl_backend {
  uint32_t abi;                /* FL_BACKEND_ABI */
  const char* name;            /* "cpu", "cuda", "hip" */

  const char* (*last_error)(void);
  /* Is the backend usable here? 0 = yes. On failure, last_error() says why
     ("no CUDA driver: cudaGetDeviceCount failed: ..."). */
  int (*probe)(void);
  /* Human-readable facts for `fuselab doctor`, one per line
     ("run-time compilation: NVRTC 13.0" or "run-time compilation: unavailable (...)"). */
  const char* (*notes)(void);
  int (*device_count)(int* count);

  int (*open)(int index, const fl_device_options* options, void** device);
  void (*close)(void* device);
  int (*props)(void* device, fl_device_props* out);

  int (*alloc)(void* device, size_t bytes, void** ptr);   /* 256-byte aligned */
  int (*release)(void* device, void* ptr);
  int (*upload)(void* device, void* dst, const void* src, size_t bytes);    /* host -> device; src may be reused on return */
  int (*download)(void* device, void* dst, const void* src, size_t bytes);  /* device -> host; waits */
  int (*copy)(void* device, void* dst, const void* src, size_t bytes);      /* device -> device */
  int (*fill)(void* device, void* ptr, int byte, size_t bytes);             /* memset */

  /* The kernels built into the plugin ahead of time (kernels/<family>.hip). */
  int (*module_builtin)(void* device, void** module);
  /* Run-time compilation. kernel_names: one a line, the __global__ functions to
     export, each a name expression ("k", "ns::k", "k<float, 256>"), followed by
     "\tcooperative" for one that synchronizes its grid (grid.sync()), which a
     GPU backend then launches cooperatively (or refuses to launch), and by
     "\tc-linkage" for one declared extern "C", which a GPU backend finds by
     its unqualified name rather than asking its compiler for it. options:
     extra compiler flags, space separated (include paths).
     timeout_ms: a compile running longer is stopped with an error (0: no limit);
     cancel() also stops a running compile. The cpu backend's compiler is a child
     process and honours both; NVRTC and hiprtc run inside the process and
     cannot be stopped.
     On a compile error, *log (malloc'd; free with free_string) holds the log. */
  int (*module_compile)(void* device, const char* source, const char* kernel_names,
                        const char* options, int timeout_ms, void** module, char** log);
  void (*module_unload)(void* device, void* module);
  int (*kernel_count)(void* module, int* count);
  int (*kernel_info)(void* module, int index, fl_kernel_info* out);
  /* The kernel of that name, and what kernel_info says of it. */
  int (*kernel_get)(void* module, const char* name, void** kernel, fl_kernel_info* info);

  /* reach[i]: the bytes pointer argument i may reach from its value (its
     buffer's rest, or a view's length); 0 for null pointers and other
     arguments. A backend that checks accesses (cpu, in check mode) holds each
     pointer to its reach; others may ignore it. */
  int (*launch)(void* device, void* kernel, fl_dim3 grid, fl_dim3 block,
                size_t shared_bytes, void** args, const size_t* reach, int nargs);
  int (*synchronize)(void* device);
  /* Stops the running launch and compiles where the backend can (cpu), or ends
     a wait for the device's work (gpu, whose kernel runs on): nonzero when one
     was stopped or ended, 0 when nothing ran (neither is an error). */
  int (*cancel)(void* device);

  int (*event_create)(void* device, void** event);
  int (*event_record)(void* device, void* event);
  int (*event_elapsed)(void* device, void* start, void* end, float* ms); /* waits for end */
  void (*event_destroy)(void* device, void* event);

  void (*free_string)(char* s);

  /* The compiler's facts about a kernel and its occupancy at block_threads
     threads and dynamic_shared bytes. NULL where there is no compiler to ask
     (the CPU emulator runs kernels as host code: no registers, no occupancy). */
  int (*kernel_stats)(void* device, void* kernel, uint32_t block_threads, size_t dynamic_shared,
                      fl_kernel_stats* out);

  /* A variable of a compiled module (__constant__ or __device__, at namespace
     scope, not in a named namespace): its address on the device and its size,
     so that upload() can write it as cudaMemcpyToSymbol does. */
  int (*module_symbol)(void* module, const char* name, void** address, size_t* bytes);

  /* Compiles as module_compile does, for the GPU architecture named ("gfx90a",
     "sm_90") instead of a device's, and loads nothing: a source checked for a GPU
     this machine does not have. Needs only the run-time compiler, so it works
     where probe() fails for want of a device. On success *symbols (malloc'd;
     free with free_string) holds each kernel's symbol, one a line, in the order
     of kernel_names. NULL where the backend has no run-time compiler of its own. */
  int (*module_check)(const char* arch, const char* source, const char* kernel_names, const char* options,
                      char** symbols, char** log);
} fl_backend;

typedef const fl_backend* (*fl_backend_entry_fn)(void);

#ifdef __cplusplus
}
#endif
#endif
