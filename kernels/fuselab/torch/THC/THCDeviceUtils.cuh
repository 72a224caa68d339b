// <THC/THCDeviceUtils.cuh> of PyTorch 1: ATen's warp shuffles (WARP_SHFL ...), and
// THC's integer helpers, as deformable-convolution kernels call them.
#ifndef FUSELAB_TORCH_THC_DEVICE_UTILS_CUH
#define FUSELAB_TORCH_THC_DEVICE_UTILS_CUH
#include <ATen/cuda/DeviceUtils.cuh>

// ceil(a / b) and a rounded up to a multiple of b, for positive integers.
template <typename T> __host__ __device__ __forceinline__ T THCCeilDiv(T a, T b) { return (a + b - 1) / b; }
template <typename T> __host__ __device__ __forceinline__ T THCRoundUp(T a, T b) { return THCCeilDiv(a, b) * b; }
// A load through the read-only cache where the GPU has one.
template <typename T> __device__ __forceinline__ T doLdg(const T* p) { return __ldg(p); }
#endif
