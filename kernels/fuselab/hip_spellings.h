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

#if !defined(__HIP__) && !defined(__HIPCC_RTC__)
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
#endif

#endif
