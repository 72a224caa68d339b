// HIP's kernel language on NVIDIA (nvcc, NVRTC): only the spellings the kernels
// use that differ from CUDA's. Warp operations act on the full warp, as HIP's do.
#ifndef FUSELAB_VENDORS_CUDA_H
#define FUSELAB_VENDORS_CUDA_H

#if !defined(__CUDACC_RTC__)
#include <cuda_runtime.h>
#else
// What nvcc's implicit cuda_runtime.h gives a .cu file, and the emulator's
// prelude gives too: the fixed-width integers (global under NVRTC) and the
// float constants of <math.h> (NVRTC has no __builtin_huge_valf).
#include <cuda/std/cstdint>
#include <cuda/std/cstddef>
#include <cuda/std/limits>
// std::size_t and std::ptrdiff_t, which every C++ header of the host's declares, so that
// nvcc gives them to every .cu file through its implicit cuda_runtime.h.
namespace std {
using ::cuda::std::ptrdiff_t;
using ::cuda::std::size_t;
}  // namespace std
// INT_MIN, INT_MAX ...: nvcc's cuda_runtime.h brings <limits.h> to every .cu file.
#include <cuda/std/climits>
#ifndef INFINITY
#define INFINITY (::cuda::std::numeric_limits<float>::infinity())
#endif
#ifndef NAN
#define NAN (::cuda::std::numeric_limits<float>::quiet_NaN())
#endif
#ifndef HUGE_VALF
#define HUGE_VALF INFINITY
#endif
// glibc's float classifications, which nvcc's host <math.h> brings a .cu file and
// sources call in device code (candle's isnanf).
__device__ __forceinline__ int isnanf(float x) { return x != x; }
__device__ __forceinline__ int isinff(float x) { return x == INFINITY ? 1 : x == -INFINITY ? -1 : 0; }
__device__ __forceinline__ int finitef(float x) { return x - x == 0.0f; }
#ifndef HUGE_VAL
#define HUGE_VAL (::cuda::std::numeric_limits<double>::infinity())
#endif
#include <fuselab_rtc_math_constants.h>
// GNU's __extension__, which nvcc's front end takes and NVRTC's does not (llama.cpp's
// ggml-common.h marks its anonymous unions with it): it only quiets pedantic warnings.
#define __extension__
#include <fuselab_rtc_math_promotions.h>
#include <fuselab_rtc_std_math.h>
#include <fuselab_rtc_glibc_types.h>
#endif
#include <cuda_fp16.h>
#include <cuda_bf16.h>

typedef __half fl_half;
typedef __nv_bfloat16 fl_bf16;
// HIP's bf16 names, as every target's kernel language has them: a ROCm
// extension names __hip_bfloat162 beside <cuda_bf16.h>, which hipify rewrites.
typedef __nv_bfloat16 __hip_bfloat16;
typedef __nv_bfloat162 __hip_bfloat162;
typedef __nv_bfloat16 hip_bfloat16;

#define FL_FULL_MASK 0xffffffffu
// NVIDIA's warps are 32 lanes on every GPU, but warpSize is read at run time: a
// constant lets loops over a warp's lanes unroll and divisions by it shift.
#define FL_WARP_SIZE 32

template <typename T> __device__ __forceinline__ T fl_shfl(T v, int src, int width = warpSize) {
  return __shfl_sync(FL_FULL_MASK, v, src, width);
}
template <typename T> __device__ __forceinline__ T fl_shfl_xor(T v, int mask, int width = warpSize) {
  return __shfl_xor_sync(FL_FULL_MASK, v, mask, width);
}
template <typename T> __device__ __forceinline__ T fl_shfl_down(T v, unsigned delta, int width = warpSize) {
  return __shfl_down_sync(FL_FULL_MASK, v, delta, width);
}
template <typename T> __device__ __forceinline__ T fl_shfl_up(T v, unsigned delta, int width = warpSize) {
  return __shfl_up_sync(FL_FULL_MASK, v, delta, width);
}
__device__ __forceinline__ int fl_any(int p) { return __any_sync(FL_FULL_MASK, p); }
__device__ __forceinline__ int fl_all(int p) { return __all_sync(FL_FULL_MASK, p); }
// HIP's ballot is 64 bits wide (wavefronts of 64); on NVIDIA the top half is zero.
__device__ __forceinline__ unsigned long long fl_ballot(int p) { return __ballot_sync(FL_FULL_MASK, p); }

// The sum of the products of a's and b's four bytes, plus c (one instruction).
__device__ __forceinline__ unsigned fl_dot4(unsigned a, unsigned b, unsigned c) { return __dp4a(a, b, c); }

// Renames rather than function-like macros: the toolkit's C++ library has its
// own names __any and __shfl (a struct with a constructor __any(...)), which a
// rename leaves consistent and a function-like macro would break.
#define __shfl fl_shfl
#define __shfl_xor fl_shfl_xor
#define __shfl_down fl_shfl_down
#define __shfl_up fl_shfl_up
#define __any fl_any
#define __all fl_all
#define __ballot fl_ballot

#endif
