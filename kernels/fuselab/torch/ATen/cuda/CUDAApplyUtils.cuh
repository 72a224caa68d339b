// <ATen/cuda/CUDAApplyUtils.cuh> for a PyTorch extension's kernels (mmcv's
// pytorch_cuda_helper.hpp includes it): at::cuda::ATenCeilDiv, and the atomic adds
// and stream the real header brings with it.
#ifndef FUSELAB_TORCH_CUDA_APPLY_UTILS_CUH
#define FUSELAB_TORCH_CUDA_APPLY_UTILS_CUH
#include <ATen/ceil_div.h>
#include <ATen/cuda/Atomic.cuh>
#include <ATen/cuda/CUDAContext.h>
namespace at {
namespace cuda {
template <typename T>
C10_HOST_DEVICE constexpr T ATenCeilDiv(T a, T b) { return at::ceil_div(a, b); }
}  // namespace cuda
}  // namespace at
#endif
