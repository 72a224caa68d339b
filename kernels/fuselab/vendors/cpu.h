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
#include <math.h>
#include <stdint.h>

#include <string.h>

#include <type_traits>
#include <vector>

#include "../emulator/runtime.h"

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline __attribute__((always_inline))
#define __restrict__ __restrict
#define __shared__ static thread_local
#define __launch_bounds__(...)

typedef __half fl_half;

#define threadIdx (::fl::emu::tls().where.thread)
#define blockIdx (::fl::emu::tls().where.block)
#define blockDim (::fl::emu::tls().block_dim)
#define gridDim (::fl::emu::tls().grid_dim)
#define warpSize (::fl::emu::tls().warp_size)

// assert() calls the C library's __assert_fail; each module has its own hidden
// copy, which ends the launch with the failed expression, block and thread.
extern "C" __attribute__((weak, visibility("hidden"))) void __assert_fail(const char* expression, const char* file,
                                                                       unsigned int line, const char*) noexcept {
  ::fl::emu::assertion_failed(expression, file, line);
}
#define __trap() ::fl::emu::device_stop("__trap() was called", __FILE__, __LINE__)

#define __syncthreads() ::fl::emu::syncthreads(__LINE__)
// __syncwarp(mask): the lanes of the mask; __syncwarp(): every lane not exited.
#define __syncwarp(...) \
  ((void)::fl::emu::warp_exchange(::fl::emu::warp_op::syncwarp, __LINE__, 0, 0, warpSize, ::fl::emu::syncwarp_mask(__VA_ARGS__)))

#define __shfl(v, ...) ::fl::emu::shfl(__LINE__, v, __VA_ARGS__)
#define __shfl_xor(v, ...) ::fl::emu::shfl_xor(__LINE__, v, __VA_ARGS__)
#define __shfl_down(v, ...) ::fl::emu::shfl_down(__LINE__, v, __VA_ARGS__)
#define __shfl_up(v, ...) ::fl::emu::shfl_up(__LINE__, v, __VA_ARGS__)
#define __any(p) static_cast<int>(::fl::emu::warp_exchange(::fl::emu::warp_op::any, __LINE__, (p) != 0, 0, warpSize))
#define __all(p) static_cast<int>(::fl::emu::warp_exchange(::fl::emu::warp_op::all, __LINE__, (p) != 0, 0, warpSize))
#define __ballot(p) \
  static_cast<unsigned long long>(::fl::emu::warp_exchange(::fl::emu::warp_op::ballot, __LINE__, (p) != 0, 0, warpSize))

namespace fl::emu {
// width < 0: the whole warp.
template <typename T> inline T shfl(int line, T v, int source, int width = -1) {
  return shuffle_op(warp_op::shfl, line, v, static_cast<uint32_t>(source), width);
}
template <typename T> inline T shfl_xor(int line, T v, int mask, int width = -1) {
  return shuffle_op(warp_op::shfl_xor, line, v, static_cast<uint32_t>(mask), width);
}
template <typename T> inline T shfl_down(int line, T v, unsigned delta, int width = -1) {
  return shuffle_op(warp_op::shfl_down, line, v, delta, width);
}
template <typename T> inline T shfl_up(int line, T v, unsigned delta, int width = -1) {
  return shuffle_op(warp_op::shfl_up, line, v, delta, width);
}

// Atomics are real atomics: blocks run on different OS threads.
template <typename T> inline T atomic_update_float(T* address, T value, T (*update)(T, T)) {
  using bits_t = std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>;
  bits_t* word = reinterpret_cast<bits_t*>(address);
  bits_t expected = __atomic_load_n(word, __ATOMIC_RELAXED);
  for (;;) {
    T old;
    memcpy(&old, &expected, sizeof old);
    T updated = update(old, value);
    bits_t desired;
    memcpy(&desired, &updated, sizeof desired);
    if (__atomic_compare_exchange_n(word, &expected, desired, true, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED)) return old;
  }
}
}  // namespace fl::emu

#define FL_INTEGER_ATOMICS(T)                                                                               \
  inline T atomicAdd(T* a, T v) { return __atomic_fetch_add(a, v, __ATOMIC_SEQ_CST); }                     \
  inline T atomicSub(T* a, T v) { return __atomic_fetch_sub(a, v, __ATOMIC_SEQ_CST); }                     \
  inline T atomicExch(T* a, T v) { return __atomic_exchange_n(a, v, __ATOMIC_SEQ_CST); }                   \
  inline T atomicAnd(T* a, T v) { return __atomic_fetch_and(a, v, __ATOMIC_SEQ_CST); }                     \
  inline T atomicOr(T* a, T v) { return __atomic_fetch_or(a, v, __ATOMIC_SEQ_CST); }                       \
  inline T atomicXor(T* a, T v) { return __atomic_fetch_xor(a, v, __ATOMIC_SEQ_CST); }                     \
  inline T atomicCAS(T* a, T expected, T desired) {                                                        \
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

inline float atomicAdd(float* a, float v) {
  return fl::emu::atomic_update_float<float>(a, v, [](float x, float y) { return x + y; });
}
inline double atomicAdd(double* a, double v) {
  return fl::emu::atomic_update_float<double>(a, v, [](double x, double y) { return x + y; });
}
inline float atomicExch(float* a, float v) {
  return fl::emu::atomic_update_float<float>(a, v, [](float, float y) { return y; });
}

// Math: the C library's, plus the GPU's fast and reciprocal forms.
inline float rsqrtf(float x) { return 1.0f / sqrtf(x); }
inline double rsqrt(double x) { return 1.0 / sqrt(x); }
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

#define FL_DYNAMIC_SHARED(T, name) T* name = reinterpret_cast<T*>(::fl::emu::dynamic_shared())

#include "../registry.h"

#define FL_KERNEL_EXPORT_PARAMS(name, params, ...)                                               \
  FL_PARAMS_CHECK(name, params, __VA_ARGS__)                                                     \
  static ::fl::kernel_registrar fl_registrar_##name(                                             \
      #name, ::fl::signature_of(&__VA_ARGS__), params, reinterpret_cast<const void*>(&__VA_ARGS__), \
      reinterpret_cast<void*>(static_cast<fl_emu_launch_fn>(&::fl::emu::launch<&__VA_ARGS__>)));

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
#define FL_EMU_MODULE_ENTRY() \
  extern "C" __attribute__((visibility("default"))) const fl_emu_module* fuselab_cpu_module(void) { return ::fl::emu::module_table(); }

#endif
