// HIP's own device-side spellings that CUDA lacks, for the targets where HIP is
// not the native language (NVIDIA GPUs, the CPU emulator), and on AMD GPUs those
// that hiprtc or a HIP release leaves out (hipThreadIdx_x went in HIP 6): a HIP
// source then compiles everywhere as written.
#ifndef FUSELAB_HIP_SPELLINGS_H
#define FUSELAB_HIP_SPELLINGS_H

#ifndef HIP_DYNAMIC_SHARED
#define HIP_DYNAMIC_SHARED(type, var) FL_DYNAMIC_SHARED(type, var);
#endif
#ifndef HIP_DYNAMIC_SHARED_ATTRIBUTE
#define HIP_DYNAMIC_SHARED_ATTRIBUTE
#endif
#ifndef HIP_KERNEL_NAME
#define HIP_KERNEL_NAME(...) __VA_ARGS__
#endif

// The coordinates as HIP's first releases spelled them; samples still use them.
#ifndef hipThreadIdx_x
#define hipThreadIdx_x (threadIdx.x)
#define hipThreadIdx_y (threadIdx.y)
#define hipThreadIdx_z (threadIdx.z)
#define hipBlockIdx_x (blockIdx.x)
#define hipBlockIdx_y (blockIdx.y)
#define hipBlockIdx_z (blockIdx.z)
#define hipBlockDim_x (blockDim.x)
#define hipBlockDim_y (blockDim.y)
#define hipBlockDim_z (blockDim.z)
#define hipGridDim_x (gridDim.x)
#define hipGridDim_y (gridDim.y)
#define hipGridDim_z (gridDim.z)
#endif

// The first parameter of HIP's first launch API (`__global__ void k(hipLaunchParm lp,
// ...)`, launched by hipLaunchKernel): an int, as HIP 5 still declares it (the same
// typedef again is no conflict there). From TS it takes 0.
typedef int hipLaunchParm;

#if defined(FL_TARGET_CPU) || (!defined(__HIP__) && !defined(__HIPCC_RTC__))
// clang's non-temporal loads and stores, which HIP sources call as hipcc (clang)
// has them: elsewhere plain accesses, the cache hint dropped.
template <typename T>
__device__ __forceinline__ T fl_nontemporal_load(const T* address) {
  return *address;
}
template <typename V, typename T>
__device__ __forceinline__ void fl_nontemporal_store(V value, T* address) {
  *address = value;
}
#define __builtin_nontemporal_load(address) fl_nontemporal_load(address)
#define __builtin_nontemporal_store(value, address) fl_nontemporal_store(value, address)

// The calling thread's lane in its warp (wavefront); HIP's own on AMD.
__device__ __forceinline__ unsigned int __lane_id() {
  return (threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z)) % warpSize;
}

// AMD's device functions, which HIP sources call on their AMD branch (taken on the
// CPU with 64-lane warps): bit fields, lane counts, the clocks.
__device__ __forceinline__ unsigned int __bitextract_u32(unsigned int value, unsigned int offset, unsigned int width) {
  offset &= 31, width &= 31;
  return width == 0 ? 0 : (value >> offset) & ((1u << width) - 1);
}
__device__ __forceinline__ unsigned long long __bitextract_u64(unsigned long long value, unsigned int offset, unsigned int width) {
  offset &= 63, width &= 63;
  return width == 0 ? 0 : (value >> offset) & ((1ull << width) - 1);
}
__device__ __forceinline__ unsigned int __bitinsert_u32(unsigned int into, unsigned int bits, unsigned int offset, unsigned int width) {
  offset &= 31, width &= 31;
  const unsigned int field = ((1u << width) - 1) << offset;
  return (into & ~field) | ((bits << offset) & field);
}
__device__ __forceinline__ unsigned long long __bitinsert_u64(unsigned long long into, unsigned long long bits, unsigned int offset,
                                                             unsigned int width) {
  offset &= 63, width &= 63;
  const unsigned long long field = ((1ull << width) - 1) << offset;
  return (into & ~field) | ((bits << offset) & field);
}
// The lowest set bit's position, or -1 (0xffffffff) for none.
__device__ __forceinline__ unsigned int __lastbit_u32_u32(unsigned int value) {
  return value == 0 ? 0xffffffffu : static_cast<unsigned int>(__ffs(static_cast<int>(value)) - 1);
}
__device__ __forceinline__ unsigned int __lastbit_u32_u64(unsigned long long value) {
  return value == 0 ? 0xffffffffu : static_cast<unsigned int>(__ffsll(static_cast<long long>(value)) - 1);
}
__device__ __forceinline__ unsigned int __lastbit_u32_s32(int value) { return __lastbit_u32_u32(static_cast<unsigned int>(value)); }
__device__ __forceinline__ unsigned int __lastbit_u32_s64(long long value) { return __lastbit_u32_u64(static_cast<unsigned long long>(value)); }
// The set bits of `mask` below the calling lane (in its low and high 32 lanes), plus `base`.
__device__ __forceinline__ unsigned int __mbcnt_lo(unsigned int mask, unsigned int base) {
  const unsigned int lane = __lane_id();
  return base + __popc(lane >= 32 ? mask : mask & ((1u << lane) - 1));
}
__device__ __forceinline__ unsigned int __mbcnt_hi(unsigned int mask, unsigned int base) {
  const unsigned int lane = __lane_id();
  return base + __popc(lane < 32 ? 0u : mask & ((1u << (lane - 32)) - 1));
}
__device__ __forceinline__ unsigned int __smid() { return 0; }
__device__ __forceinline__ long long __clock64() { return clock64(); }
__device__ __forceinline__ long long wall_clock64() { return clock64(); }
#endif

#endif
