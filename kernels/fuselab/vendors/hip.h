// HIP on AMD (hipcc, hiprtc): the language is native; this adds the few names
// fuselab kernels share across targets.
#ifndef FUSELAB_VENDORS_HIP_H
#define FUSELAB_VENDORS_HIP_H

#if !defined(__HIPCC_RTC__)
#include <hip/hip_runtime.h>
#include <hip/hip_fp16.h>
#else
#include <fuselab_rtc_glibc_types.h>
// std::numeric_limits, std::move, std::forward, std::declval and the fixed-width integers,
// which hipcc's host headers give every source.
#include <fuselab_rtc_std.h>
// std::exp, std::sqrt ... as hipcc's headers give every source.
#include <fuselab_rtc_std_math.h>
#endif
#include "../hip_spellings.h"

typedef __half fl_half;

// bf16 as its 16 storage bits: the same layout on every target, and no reliance
// on which bf16 header a ROCm release ships.
struct fl_bf16 { unsigned short bits; };

__device__ __host__ __forceinline__ float __bfloat162float(fl_bf16 v) {
  union { unsigned int u; float f; } c;
  c.u = static_cast<unsigned int>(v.bits) << 16;
  return c.f;
}
// Round to nearest even; NaN stays a (quiet) NaN.
__device__ __host__ __forceinline__ fl_bf16 __float2bfloat16(float f) {
  union { unsigned int u; float f; } c;
  c.f = f;
  if ((c.u & 0x7fffffffu) > 0x7f800000u) return fl_bf16{static_cast<unsigned short>((c.u >> 16) | 0x40)};
  c.u += 0x7fffu + ((c.u >> 16) & 1u);
  return fl_bf16{static_cast<unsigned short>(c.u >> 16)};
}

// The sum of the products of a's and b's four bytes, plus c (CUDA's __dp4a).
__device__ __forceinline__ unsigned fl_dot4(unsigned a, unsigned b, unsigned c) {
  for (int k = 0; k < 32; k += 8) c += ((a >> k) & 0xffu) * ((b >> k) & 0xffu);
  return c;
}

// A wavefront runs in lock step; this orders its lanes' memory accesses. With or
// without CUDA's lane mask.
#undef __syncwarp
#define __syncwarp(...) __builtin_amdgcn_wave_barrier()

// CUDA's warp operations with a lane mask, which HIP before 6.2 lacks and later
// releases declare only on request and for 64-bit masks. A wavefront runs in lock
// step, so the lanes the mask names meet as they do on an NVIDIA GPU; votes and
// ballots count those lanes only, as on the CPU emulator. The mask may be 32 or 64
// bits (CUDA sources pass 0xffffffff); ballots are 64 bits, as HIP's.
namespace fl::warp_sync {
template <typename M> __device__ __forceinline__ unsigned long long lanes(M mask) {
  return static_cast<unsigned long long>(mask);
}
template <typename M, typename T> __device__ __forceinline__ T shfl(M, T v, int src, int width = warpSize) {
  return __shfl(v, src, width);
}
template <typename M, typename T> __device__ __forceinline__ T shfl_up(M, T v, unsigned delta, int width = warpSize) {
  return __shfl_up(v, delta, width);
}
template <typename M, typename T> __device__ __forceinline__ T shfl_down(M, T v, unsigned delta, int width = warpSize) {
  return __shfl_down(v, delta, width);
}
template <typename M, typename T> __device__ __forceinline__ T shfl_xor(M, T v, int lane_mask, int width = warpSize) {
  return __shfl_xor(v, lane_mask, width);
}
template <typename M> __device__ __forceinline__ unsigned long long ballot(M mask, int predicate) {
  return __ballot(predicate) & lanes(mask);
}
template <typename M> __device__ __forceinline__ int any(M mask, int predicate) {
  return (__ballot(predicate) & lanes(mask)) != 0;
}
// Every lane of the mask that is running holds the predicate.
template <typename M> __device__ __forceinline__ int all(M mask, int predicate) {
  return (~__ballot(predicate) & __ballot(1) & lanes(mask)) == 0;
}
}  // namespace fl::warp_sync

#define __shfl_sync ::fl::warp_sync::shfl
#define __shfl_up_sync ::fl::warp_sync::shfl_up
#define __shfl_down_sync ::fl::warp_sync::shfl_down
#define __shfl_xor_sync ::fl::warp_sync::shfl_xor
#define __ballot_sync ::fl::warp_sync::ballot
#define __any_sync ::fl::warp_sync::any
#define __all_sync ::fl::warp_sync::all
#define __activemask() __ballot(1)

#endif
