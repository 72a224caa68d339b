// <ATen/native/cuda/KernelUtils.cuh> for a PyTorch extension's kernels:
// at::native::fastAtomicAdd, an atomic add of `value` at tensor[index]. PyTorch
// adds two Halfs at once where it can; the sum of each element is the same.
#ifndef FUSELAB_TORCH_NATIVE_KERNEL_UTILS_CUH
#define FUSELAB_TORCH_NATIVE_KERNEL_UTILS_CUH
#include <ATen/cuda/Atomic.cuh>
namespace at {
namespace native {
template <typename scalar_t, typename index_t>
__device__ __forceinline__ void fastSpecializedAtomicAdd(scalar_t* tensor, index_t index, const index_t /*numel*/, scalar_t value) {
  gpuAtomicAddNoReturn(tensor + index, value);
}
template <typename scalar_t, typename index_t>
__device__ __forceinline__ void fastAtomicAdd(scalar_t* tensor, index_t index, const index_t numel, scalar_t value, bool /*fast_atomics*/) {
  fastSpecializedAtomicAdd(tensor, index, numel, value);
}
}  // namespace native
}  // namespace at
#endif
