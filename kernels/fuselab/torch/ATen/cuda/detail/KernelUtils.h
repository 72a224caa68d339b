// <ATen/cuda/detail/KernelUtils.h> for a PyTorch extension's kernels: the
// grid-stride loop CUDA_KERNEL_LOOP (its index counted in 64 bits, so that
// n near 2^31 does not overflow, and handed to the body as `index_type`) and the
// launch-size helpers its host code calls.
#ifndef FUSELAB_TORCH_KERNEL_UTILS_H
#define FUSELAB_TORCH_KERNEL_UTILS_H
#include <fuselab_torch.h>
#include <stdint.h>

#define CUDA_KERNEL_LOOP_TYPE(i, n, index_type)                                                   \
  int64_t fl_kernel_loop_index_ = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;  \
  for (index_type i = fl_kernel_loop_index_; fl_kernel_loop_index_ < (n);                       \
       fl_kernel_loop_index_ += static_cast<int64_t>(blockDim.x) * gridDim.x, i = fl_kernel_loop_index_)
#define CUDA_KERNEL_LOOP(i, n) CUDA_KERNEL_LOOP_TYPE(i, n, int)

namespace at {
namespace cuda {
namespace detail {
constexpr int CUDA_NUM_THREADS = 1024;
// Blocks of `threads` covering n elements, at least one.
C10_HOST_DEVICE inline int GET_BLOCKS(const int64_t n, const int64_t threads = CUDA_NUM_THREADS) {
  const int64_t blocks = (n + threads - 1) / threads;
  return static_cast<int>(blocks > 0 ? blocks : 1);
}
}  // namespace detail
}  // namespace cuda
}  // namespace at
#endif
