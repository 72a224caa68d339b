// <ATen/cuda/DeviceUtils.cuh> for a PyTorch extension's kernels: PyTorch's warp
// shuffles, with CUDA's lane mask on 32-lane warps and without one on 64-lane
// wavefronts, as PyTorch builds them for NVIDIA and AMD GPUs.
#ifndef FUSELAB_TORCH_DEVICE_UTILS_CUH
#define FUSELAB_TORCH_DEVICE_UTILS_CUH
#include <fuselab_torch.h>
// As PyTorch's does: CUDA_VERSION for the extension's #if.
#include <cuda.h>

#if C10_WARP_SIZE == 64
#define FUSELAB_TORCH_SHUFFLE(name, mask, ...) name(__VA_ARGS__)
#else
#define FUSELAB_TORCH_SHUFFLE(name, mask, ...) name##_sync(mask, __VA_ARGS__)
#endif

template <typename T>
__device__ __forceinline__ T WARP_SHFL(T value, int srcLane, int width = warpSize, unsigned int mask = 0xffffffff) {
  return FUSELAB_TORCH_SHUFFLE(__shfl, mask, value, srcLane, width);
}
template <typename T>
__device__ __forceinline__ T WARP_SHFL_UP(T value, unsigned int delta, int width = warpSize, unsigned int mask = 0xffffffff) {
  return FUSELAB_TORCH_SHUFFLE(__shfl_up, mask, value, delta, width);
}
template <typename T>
__device__ __forceinline__ T WARP_SHFL_DOWN(T value, unsigned int delta, int width = warpSize, unsigned int mask = 0xffffffff) {
  return FUSELAB_TORCH_SHUFFLE(__shfl_down, mask, value, delta, width);
}
template <typename T>
__device__ __forceinline__ T WARP_SHFL_XOR(T value, int laneMask, int width = warpSize, unsigned int mask = 0xffffffff) {
  return FUSELAB_TORCH_SHUFFLE(__shfl_xor, mask, value, laneMask, width);
}
#if C10_WARP_SIZE == 64
__device__ __forceinline__ unsigned long long int WARP_BALLOT(int predicate) { return __ballot(predicate); }
#else
__device__ __forceinline__ unsigned int WARP_BALLOT(int predicate, unsigned int mask = 0xffffffff) {
  return __ballot_sync(mask, predicate);
}
#endif
#undef FUSELAB_TORCH_SHUFFLE
#endif
