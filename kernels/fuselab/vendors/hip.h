// HIP on AMD (hipcc, hiprtc): the language is native; this adds the few names
// fuselab kernels share across targets.
#ifndef FUSELAB_VENDORS_HIP_H
#define FUSELAB_VENDORS_HIP_H

#if !defined(__HIPCC_RTC__)
#include <hip/hip_runtime.h>
#include <hip/hip_fp16.h>
#else
// glibc's <sys/types.h> names these, and hipcc's host headers bring them to every source.
typedef unsigned int uint;
typedef unsigned short ushort;
typedef unsigned long ulong;
#endif

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

#if !defined(__syncwarp)
// A wavefront runs in lock step; this orders its lanes' memory accesses.
#define __syncwarp() __builtin_amdgcn_wave_barrier()
#endif

#endif
