// HIP's kernel language for the host C++ compiler (-DFL_TARGET_CPU): the CPU
// emulator. Kernels compile unchanged as C++17 and run on the emulator's run
// time (emulator/runtime.h), which gives them GPU semantics:
//  - a __global__ kernel is a plain function, called once per GPU thread;
//  - threadIdx, blockIdx, blockDim, gridDim and warpSize read the running GPU
//    thread's state, which the run time updates at every switch;
//  - __shared__ variables are static thread_local: all the GPU threads of a
//    block run on one OS thread, and one block at a time per OS thread;
//  - barriers, shuffles and votes are run-time calls that stop the GPU thread
//    until its block (or warp) has caught up. They pass their source line, for
//    deadlock reports.
#ifndef FUSELAB_VENDORS_CPU_H
#define FUSELAB_VENDORS_CPU_H

#include <assert.h>
// INT_MIN, INT_MAX ... as nvcc's cuda_runtime.h gives every .cu file.
#include <limits.h>
#include <math.h>
#include <stdint.h>

#include <string.h>

#include <type_traits>
#include <vector>

#include "../emulator/half.h"
#include "../emulator/intrinsics.h"
#include "../emulator/runtime.h"
#include "../emulator/runtime_api.h"
#include "../emulator/stepped.h"
#include "../emulator/textures.h"
#include "../emulator/lockstep.h"

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline __attribute__((always_inline))
#define __restrict__ __restrict
// thread_local at block scope implies static; "static __shared__" stays valid.
// Each array 16-byte aligned, as a GPU places a block's first (and a tile after
// others whose sizes are multiples of 16): kernels copy a __half tile through
// int4 (cuda_hgemm's ldmatrix staging), which needs it. A GPU packs smaller
// arrays closer, so the CPU takes some layouts a GPU faults on.
#define __shared__ thread_local __attribute__((aligned(16)))
// Exported by name, so that module.constant(name).set() finds it (dlsym).
#define __constant__ __attribute__((visibility("default")))
#define __managed__
#define __grid_constant__
// The toolkit's marks of its own declarations, which sources that declare the runtime's
// functions again repeat (`extern __device__ __device_builtin__ void __threadfence(void);`).
#define __device_builtin__
#define __cudart_builtin__
#define __device_builtin_texture_type__
#define __device_builtin_surface_type__
// libstdc++ 12+ spells __attribute__((__noinline__)) in <memory> and <string>
// (shared_ptr_base.h, basic_string.h): included before the macro exists, a
// later #include of them is a no-op and the macro cannot break them.
#include <memory>
#include <string>
#define __noinline__ __attribute__((noinline))
#define __inline__ inline
#define __align__(n) __attribute__((aligned(n)))
#define __launch_bounds__(...)

typedef __half fl_half;

namespace fl::emu {
// clang's ext_vector_type(N) of T (HIP sources' `using float4 = float __attribute__((ext_vector_type(4)));`)
// as GCC's vector of the same size and alignment, which fl.compile writes in its place:
// elements by index, arithmetic and copies as clang's; no .x or .xy swizzles.
template <typename T, int N> struct ext_vector_of {
  typedef T type __attribute__((vector_size(sizeof(T) * N)));
};
}  // namespace fl::emu

// uint3 and dim3 views of the run time's fl_emu_dim3s (the same three unsigned ints).
#define threadIdx (reinterpret_cast<const uint3&>(::fl::emu::tls().where.thread))
#define blockIdx (reinterpret_cast<const uint3&>(::fl::emu::tls().where.block))
#define blockDim (reinterpret_cast<const dim3&>(::fl::emu::tls().block_dim))
#define gridDim (reinterpret_cast<const dim3&>(::fl::emu::tls().grid_dim))
#define warpSize (::fl::emu::tls().warp_size)

// assert() calls the C library's __assert_fail; each module has its own hidden
// copy, which ends the launch with the failed expression, block and thread.
extern "C" __attribute__((weak, visibility("hidden"))) void __assert_fail(const char* expression, const char* file,
                                                                       unsigned int line, const char*) noexcept {
  ::fl::emu::assertion_failed(expression, file, line);
}
#define __trap() ::fl::emu::device_stop("__trap() was called", __FILE__, __LINE__)

// Check mode compiles a module with the compiler's alignment check
// (-fsanitize=alignment), which calls this handler at a typed load or store
// whose address is not a multiple of its type's alignment: the launch ends
// there, as a GPU ends it with "misaligned address" (a float4 access at an
// address that is not a multiple of 16); and with the object-size check
// (-fsanitize=object-size), which calls it where a pointer made from an array
// the compiler can see (a __shared__ tile, a local array) is used past that
// array's end, where compute-sanitizer reports the access. The module's own
// copy: the sanitizer's library is never loaded.
namespace fl::emu {
// What the compiler passes: the sanitizers' common layout.
struct sanitizer_location {
  const char* file;
  uint32_t line, column;
};
struct sanitizer_type {
  uint16_t kind, info;
  char name[1];
};
// A type's name as the compiler spells it, without its quotes: printed with "%.*s".
struct sanitizer_name {
  int length;
  const char* text;
};
inline sanitizer_name name_of(const sanitizer_type* type) {
  const char* text = type->name + (type->name[0] == '\'');
  return {static_cast<int>(strcspn(text, "'")), text};
}
// An integer the compiler passes in a pointer's bits, sign-extended as its type
// says (info: log2 of its width in bits, then whether it is signed).
inline long long integer_of(const sanitizer_type* type, void* value) {
  const unsigned bits = 1u << (type->info >> 1);
  long long n = static_cast<long long>(reinterpret_cast<uintptr_t>(value));
  if ((type->info & 1) && bits < 64) n = (n << (64 - bits)) >> (64 - bits);
  return n;
}
struct sanitizer_type_mismatch {
  sanitizer_location where;
  const sanitizer_type* type;
  unsigned char log_alignment;
  unsigned char check_kind;  // 0: a load, 1: a store, others: a reference, member or call through the pointer
};

// The compiler calls it for two checks; the address tells which failed.
inline void type_mismatch(void* data, void* pointer) {
  const auto* d = static_cast<const sanitizer_type_mismatch*>(data);
  const uintptr_t address = reinterpret_cast<uintptr_t>(pointer);
  const uintptr_t alignment = uintptr_t(1) << d->log_alignment;
  if (!tls().block || address == 0) return;  // not in a kernel, or a null pointer (the fault handler's)
  // "'const struct float4'" -> "float4"
  sanitizer_name type = name_of(d->type);
  for (bool qualified = true; qualified;) {
    qualified = false;
    for (const char* word : {"const ", "volatile ", "struct ", "class "}) {
      const int length = static_cast<int>(strlen(word));
      if (type.length < length || strncmp(type.text, word, length) != 0) continue;
      type = {type.length - length, type.text + length};
      qualified = true;
    }
  }
  const char* verb = d->check_kind == 0 ? "loaded from" : d->check_kind == 1 ? "stored to" : "accessed at";
  char what[FL_EMU_ERROR_BYTES / 2];
  if (address % alignment != 0)
    snprintf(what, sizeof what, "misaligned address: %.*s %s 0x%llx, which is not a multiple of its %u-byte alignment",
             type.length, type.text, verb, static_cast<unsigned long long>(address),
             static_cast<unsigned>(alignment));
  else  // aligned: the object-size check, an access reaching past the object the pointer was made from
    snprintf(what, sizeof what,
             "%.*s %s 0x%llx, out of bounds of the array it points into (a __shared__, local or __constant__ "
             "array, or a struct: a pointer into it went past its end)",
             type.length, type.text, verb, static_cast<unsigned long long>(address));
  const access_site* site = access_site::current();
  device_stop(what, site ? site->file : d->where.file, site ? site->line : d->where.line);
}
}  // namespace fl::emu
// The compiler calls __ubsan_handle_<check>, or its _abort twin where it cannot
// recover; either way the handler ends the launch.
#define FL_SANITIZER_HANDLER(check, parameters, call)                                          \
  extern "C" __attribute__((weak)) void __ubsan_handle_##check parameters { call; }            \
  extern "C" __attribute__((weak, noreturn)) void __ubsan_handle_##check##_abort parameters { \
    call;                                                                                    \
    abort();                                                                                 \
  }
// Check mode also checks each shift's count (-fsanitize=shift-exponent): a shift by
// the value's width or more is undefined in C++, and the CPU and a GPU give
// different results for it (x86 takes the count modulo the width, so
// (1u << 32) is 1; PTX clamps it, so the GPU gives 0). A mask computed as
// (1 << nwarps) - 1 for 32 warps is 0 on the CPU and all lanes on the GPU.
namespace fl::emu {
struct sanitizer_shift {
  sanitizer_location where;
  const sanitizer_type* value_type;
  const sanitizer_type* count_type;
};

inline void shift_out_of_bounds(void* data, void* count) {
  const auto* d = static_cast<const sanitizer_shift*>(data);
  if (!tls().block) return;
  const unsigned value_bits = 1u << (d->value_type->info >> 1);
  const long long n = integer_of(d->count_type, count);
  const sanitizer_name type = name_of(d->value_type);
  char what[FL_EMU_ERROR_BYTES / 2];
  snprintf(what, sizeof what,
           "%.*s value shifted by %lld, outside 0 to %u: undefined in C++, and the CPU and a GPU differ "
           "(the CPU shifts by the count modulo %u, a GPU's shift gives 0 or the sign bits)",
           type.length, type.text, n, value_bits - 1, value_bits);
  const access_site* site = access_site::current();
  device_stop(what, site ? site->file : d->where.file, site ? site->line : d->where.line);
}
}  // namespace fl::emu
// And each conversion of a floating value to an integer type
// (-fsanitize=float-cast-overflow): one outside the type's range, or of NaN or
// infinity, is undefined in C++, and the CPU and a GPU give different results
// for it (a GPU's cvt saturates and gives 0 for NaN, 0x8000000000000000 in 64
// bits; x86 gives the "integer indefinite" 0x80000000, or the low bits of a
// wider conversion). A negative double converted to unsigned is 0 on the GPU
// and wraps on the CPU.
namespace fl::emu {
struct sanitizer_float_cast {
  sanitizer_location where;
  const sanitizer_type* from_type;
  const sanitizer_type* to_type;
};

inline void float_cast_overflow(void* data, void* from) {
  if (!tls().block) return;
  // Without a source location the compiler passes only the two types; as the
  // sanitizer's own library does, tell the forms apart by the first bytes: a
  // type's kind (0 integer, 1 float, 0xffff unknown) or a file name's characters.
  const auto* bytes = *static_cast<const unsigned char* const*>(data);
  const bool located = bytes[0] + bytes[1] >= 2 && bytes[0] != 0xff && bytes[1] != 0xff;
  const auto* d = static_cast<const sanitizer_float_cast*>(data);
  const sanitizer_type* const* types = located ? &d->from_type : static_cast<const sanitizer_type* const*>(data);
  const sanitizer_type* from_type = types[0];
  const sanitizer_type* to_type = types[1];
  // A float or double comes in the pointer's bits, a wider one through the pointer.
  double value;
  const uintptr_t raw = reinterpret_cast<uintptr_t>(from);
  if (from_type->info == 32) {
    const uint32_t bits = static_cast<uint32_t>(raw);
    float f;
    memcpy(&f, &bits, sizeof f);
    value = f;
  } else if (from_type->info == 64) {
    memcpy(&value, &raw, sizeof value);
  } else {
    value = static_cast<double>(*static_cast<const long double*>(from));
  }
  const sanitizer_name to = name_of(to_type);
  char what[FL_EMU_ERROR_BYTES / 2];
  snprintf(what, sizeof what,
           "%.9g converted to %.*s, outside its range: undefined in C++, and the CPU and a GPU differ "
           "(a GPU saturates to the nearest value the type holds, and gives 0 for NaN, 0x8000000000000000 in 64 bits)",
           value, to.length, to.text);
  device_stop(what, located ? d->where.file : "<unknown>", located ? d->where.line : 0);
}
}  // namespace fl::emu
FL_SANITIZER_HANDLER(float_cast_overflow, (void* data, void* from), ::fl::emu::float_cast_overflow(data, from))
// And each index into an array whose size the compiler knows (-fsanitize=bounds):
// a static __shared__ array, a local array, a __constant__ table, an array in a
// struct. The emulator keeps a block's __shared__ arrays side by side, so an
// index past one reads or writes its neighbour, where a GPU would report the
// access (compute-sanitizer) or give what lies beyond.
namespace fl::emu {
struct sanitizer_out_of_bounds {
  sanitizer_location where;
  const sanitizer_type* array_type;
  const sanitizer_type* index_type;
};

inline void index_out_of_bounds(void* data, void* index) {
  const auto* d = static_cast<const sanitizer_out_of_bounds*>(data);
  if (!tls().block) return;
  const sanitizer_name type = name_of(d->array_type);
  char what[FL_EMU_ERROR_BYTES / 2];
  snprintf(what, sizeof what, "index %lld out of bounds of %.*s", integer_of(d->index_type, index), type.length, type.text);
  const access_site* site = access_site::current();
  device_stop(what, site ? site->file : d->where.file, site ? site->line : d->where.line);
}
}  // namespace fl::emu
FL_SANITIZER_HANDLER(out_of_bounds, (void* data, void* index), ::fl::emu::index_out_of_bounds(data, index))
FL_SANITIZER_HANDLER(shift_out_of_bounds, (void* data, void*, void* count), ::fl::emu::shift_out_of_bounds(data, count))
FL_SANITIZER_HANDLER(type_mismatch_v1, (void* data, void* pointer), ::fl::emu::type_mismatch(data, pointer))

#define __syncthreads() ::fl::emu::syncthreads(__LINE__)
#define __syncthreads_count(p) ::fl::emu::syncthreads_count(__LINE__, (p))
#define __syncthreads_and(p) ::fl::emu::syncthreads_and(__LINE__, (p))
#define __syncthreads_or(p) ::fl::emu::syncthreads_or(__LINE__, (p))


#define FL_INTEGER_ATOMICS(T)                                                                               \
  inline T atomicAdd(T* a, T v) { return __atomic_fetch_add(a, v, __ATOMIC_SEQ_CST); }                     \
  inline T atomicSub(T* a, T v) { return __atomic_fetch_sub(a, v, __ATOMIC_SEQ_CST); }                     \
  inline T atomicExch(T* a, T v) {                                                                         \
    ::fl::emu::yield_to_held();                                                                            \
    return __atomic_exchange_n(a, v, __ATOMIC_SEQ_CST);                                                    \
  }                                                                                                        \
  inline T atomicAnd(T* a, T v) { return __atomic_fetch_and(a, v, __ATOMIC_SEQ_CST); }                     \
  inline T atomicOr(T* a, T v) { return __atomic_fetch_or(a, v, __ATOMIC_SEQ_CST); }                       \
  inline T atomicXor(T* a, T v) { return __atomic_fetch_xor(a, v, __ATOMIC_SEQ_CST); }                     \
  inline T atomicCAS(T* a, T expected, T desired) {                                                        \
    ::fl::emu::yield_to_held();                                                                            \
    __atomic_compare_exchange_n(a, &expected, desired, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);         \
    return expected;                                                                                       \
  }                                                                                                        \
  inline T atomicMin(T* a, T v) {                                                                          \
    T old = __atomic_load_n(a, __ATOMIC_RELAXED);                                                          \
    while (v < old && !__atomic_compare_exchange_n(a, &old, v, true, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED)) { \
    }                                                                                                      \
    return old;                                                                                            \
  }                                                                                                        \
  inline T atomicMax(T* a, T v) {                                                                          \
    T old = __atomic_load_n(a, __ATOMIC_RELAXED);                                                          \
    while (v > old && !__atomic_compare_exchange_n(a, &old, v, true, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED)) { \
    }                                                                                                      \
    return old;                                                                                            \
  }
FL_INTEGER_ATOMICS(int)
FL_INTEGER_ATOMICS(unsigned int)
FL_INTEGER_ATOMICS(unsigned long long)
#undef FL_INTEGER_ATOMICS
// A 16-bit compare-and-swap (sm_70 and later), from which projects build __half atomics.
inline unsigned short atomicCAS(unsigned short* a, unsigned short expected, unsigned short desired) {
  __atomic_compare_exchange_n(a, &expected, desired, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
  return expected;
}
// CUDA's atomicMin and atomicMax also take signed 64-bit integers.
inline long long atomicMin(long long* a, long long v) {
  long long old = __atomic_load_n(a, __ATOMIC_RELAXED);
  while (v < old && !__atomic_compare_exchange_n(a, &old, v, true, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED)) {
  }
  return old;
}
inline long long atomicMax(long long* a, long long v) {
  long long old = __atomic_load_n(a, __ATOMIC_RELAXED);
  while (v > old && !__atomic_compare_exchange_n(a, &old, v, true, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED)) {
  }
  return old;
}

// Atomics are real atomics: blocks run on different OS threads.
inline float atomicAdd(float* a, float v) { return fl::emu::atomic_update(a, [v](float x) { return x + v; }); }
FL_YIELDS_TO_SOURCE inline double atomicAdd(double* a, double v) { return fl::emu::atomic_update(a, [v](double x) { return x + v; }); }
inline float atomicExch(float* a, float v) { return fl::emu::atomic_update(a, [v](float) { return v; }); }

// The sum of the products of a's and b's four bytes, plus c, as on NVIDIA GPUs.
inline unsigned fl_dot4(unsigned a, unsigned b, unsigned c) { return __dp4a(a, b, c); }

// Math: the C library's, plus the GPU's fast and reciprocal forms. C23's rsqrt, which
// glibc declares from 2.41 on (g++ defines _GNU_SOURCE), is the C library's there.
#if !(defined(__GLIBC__) && __GLIBC_PREREQ(2, 41))
inline float rsqrtf(float x) { return 1.0f / sqrtf(x); }
inline double rsqrt(double x) { return 1.0 / sqrt(x); }
#endif
inline float rsqrt(float x) { return rsqrtf(x); }
inline float __expf(float x) { return expf(x); }
inline float __logf(float x) { return logf(x); }
inline float __fdividef(float x, float y) { return x / y; }

#define FL_MIN_MAX(T)                                  \
  inline T min(T a, T b) { return b < a ? b : a; }     \
  inline T max(T a, T b) { return a < b ? b : a; }
FL_MIN_MAX(int)
FL_MIN_MAX(unsigned int)
FL_MIN_MAX(long)
FL_MIN_MAX(unsigned long)
FL_MIN_MAX(long long)
FL_MIN_MAX(unsigned long long)
#undef FL_MIN_MAX
inline float min(float a, float b) { return fminf(a, b); }
inline float max(float a, float b) { return fmaxf(a, b); }
inline double min(double a, double b) { return fmin(a, b); }
inline double max(double a, double b) { return fmax(a, b); }
// Mixed signedness compares as unsigned, as CUDA's overloads do.
inline unsigned int min(int a, unsigned int b) { return min(static_cast<unsigned int>(a), b); }
inline unsigned int min(unsigned int a, int b) { return min(a, static_cast<unsigned int>(b)); }
inline unsigned int max(int a, unsigned int b) { return max(static_cast<unsigned int>(a), b); }
inline unsigned int max(unsigned int a, int b) { return max(a, static_cast<unsigned int>(b)); }
inline unsigned long min(long a, unsigned long b) { return min(static_cast<unsigned long>(a), b); }
inline unsigned long min(unsigned long a, long b) { return min(a, static_cast<unsigned long>(b)); }
inline unsigned long max(long a, unsigned long b) { return max(static_cast<unsigned long>(a), b); }
inline unsigned long max(unsigned long a, long b) { return max(a, static_cast<unsigned long>(b)); }
inline unsigned long long min(long long a, unsigned long long b) { return min(static_cast<unsigned long long>(a), b); }
inline unsigned long long min(unsigned long long a, long long b) { return min(a, static_cast<unsigned long long>(b)); }
inline unsigned long long max(long long a, unsigned long long b) { return max(static_cast<unsigned long long>(a), b); }
inline unsigned long long max(unsigned long long a, long long b) { return max(a, static_cast<unsigned long long>(b)); }
// A float and a double compare as doubles.
inline double min(float a, double b) { return fmin(a, b); }
inline double min(double a, float b) { return fmin(a, b); }
inline double max(float a, double b) { return fmax(a, b); }
inline double max(double a, float b) { return fmax(a, b); }
namespace fl::emu::steps {
// CUDA's min and max of a volatile shared value and another type (`max(1.0f, s[t])`),
// found by argument-dependent lookup: the overload above of the values (stepped.h).
template <typename A, typename B, typename = std::enable_if_t<any_stepped<A, B>>>
inline auto max(const A& a, const B& b) -> decltype(::max(loaded(a), loaded(b))) { return ::max(loaded(a), loaded(b)); }
template <typename A, typename B, typename = std::enable_if_t<any_stepped<A, B>>>
inline auto min(const A& a, const B& b) -> decltype(::min(loaded(a), loaded(b))) { return ::min(loaded(a), loaded(b)); }
}  // namespace fl::emu::steps
// CUDA's named forms.
inline unsigned int umin(unsigned int a, unsigned int b) { return min(a, b); }
inline unsigned int umax(unsigned int a, unsigned int b) { return max(a, b); }
inline long long llmin(long long a, long long b) { return min(a, b); }
inline long long llmax(long long a, long long b) { return max(a, b); }
inline unsigned long long ullmin(unsigned long long a, unsigned long long b) { return min(a, b); }
inline unsigned long long ullmax(unsigned long long a, unsigned long long b) { return max(a, b); }

#define FL_DYNAMIC_SHARED(T, name) T (&name)[] = *reinterpret_cast<T (*)[]>(::fl::emu::dynamic_shared())

#include "../registry.h"

#define FL_KERNEL_EXPORT_PARAMS(name, params, ...) \
  FL_PARAMS_CHECK(name, params, __VA_ARGS__)       \
  FL_KERNEL_REGISTRAR(name, #name, params, &__VA_ARGS__)
// Exports the kernel at the address __VA_ARGS__ (&ns::k, &k<float, 256>, or an
// overload's static_cast<void (*)(float*)>(&k<32>)) of a run-time module under
// the name text; id makes the registrar's name unique.
//
// A module that uses shared memory is built twice (native/backends/cpu/twin.cc):
// plainly (FL_EMU_HAS_TWIN), and instrumented for lock step (FL_EMU_TWIN), its
// twin, which registers nothing and gives each kernel's launch the function
// that runs a block of it in lock step.
#if defined(FL_EMU_TWIN)
#define FL_KERNEL_EXPORT_AS(id, text, ...)                                                                              \
  extern "C" __attribute__((visibility("hidden"))) void fl_emu_twin_block_##id(void* launch, uint64_t index,         \
                                                                               fl_emu_worker* worker) {              \
    ::fl::emu::run_lockstep_block<__VA_ARGS__>(launch, index, worker);                                              \
  }
#define FL_KERNEL_REGISTRAR(id, text, params, ...)
#else
#define FL_KERNEL_REGISTRAR(id, text, params, ...) FL_KERNEL_REGISTRAR_WITH(id, text, params, (&::fl::emu::launch<__VA_ARGS__>), __VA_ARGS__)
#if defined(FL_EMU_HAS_TWIN)
#define FL_KERNEL_EXPORT_AS(id, text, ...)                                                                              \
  extern "C" __attribute__((visibility("hidden"))) void fl_emu_twin_block_##id(void*, uint64_t, fl_emu_worker*);    \
  FL_KERNEL_REGISTRAR_WITH(id, text, "", (&::fl::emu::launch<__VA_ARGS__, &fl_emu_twin_block_##id>), __VA_ARGS__)
#else
#define FL_KERNEL_EXPORT_AS(id, text, ...) FL_KERNEL_REGISTRAR(id, text, "", __VA_ARGS__)
#endif
#endif
#define FL_KERNEL_REGISTRAR_WITH(id, text, params, launcher, ...)                                   \
  static ::fl::kernel_registrar fl_registrar_##id(                                                  \
      text, ::fl::signature_of(__VA_ARGS__), params, reinterpret_cast<const void*>(__VA_ARGS__),    \
      reinterpret_cast<void*>(static_cast<fl_emu_launch_fn>(launcher)));

namespace fl::emu {
// The registry as the plugin reads it, in C. Built at the first call, after the
// module's static initialisers have filled the registry.
inline const fl_emu_module* module_table() {
  static std::vector<fl_emu_kernel> kernels;
  static const fl_emu_module module = [] {
    for (const kernel_entry& e : registry())
      kernels.push_back({e.name.c_str(), e.signature.c_str(), reinterpret_cast<fl_emu_launch_fn>(e.launcher)});
    return fl_emu_module{FL_EMU_ABI, static_cast<int>(kernels.size()), kernels.data()};
  }();
  return &module;
}
}  // namespace fl::emu

// Ends a module compiled at run time: its one exported symbol.
#if defined(FL_EMU_TWIN)
#define FL_EMU_MODULE_ENTRY()
#else
#define FL_EMU_MODULE_ENTRY() \
  extern "C" __attribute__((visibility("default"))) const fl_emu_module* fuselab_cpu_module(void) { return ::fl::emu::module_table(); }
#endif

#endif
