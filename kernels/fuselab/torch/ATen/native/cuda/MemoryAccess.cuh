// <ATen/native/cuda/MemoryAccess.cuh> for a PyTorch extension's kernels: the vector of
// elements loaded and stored in one access (fast-ops' Lion update), aligned to its size.
#ifndef FUSELAB_TORCH_MEMORY_ACCESS_CUH
#define FUSELAB_TORCH_MEMORY_ACCESS_CUH
#include <fuselab_torch.h>

namespace at {
namespace native {
namespace memory {
template <typename scalar_t, int vec_size>
struct alignas(sizeof(scalar_t) * vec_size) aligned_vector {
  scalar_t val[vec_size];
};
}  // namespace memory
}  // namespace native
}  // namespace at
#endif
