// <ATen/cuda/detail/TensorInfo.cuh> for a PyTorch extension's kernels: a tensor's
// data pointer, sizes and strides passed by value (pytorch_scatter's kernels take
// one), and IndexToOffset, the element offset of a linear index. From TS a
// TensorInfo<T, IndexType> parameter takes a tensor of T's dtype, passed with its
// sizes and row-major strides.
#ifndef FUSELAB_TORCH_TENSOR_INFO_CUH
#define FUSELAB_TORCH_TENSOR_INFO_CUH
#include <fuselab_torch.h>

#define MAX_TENSORINFO_DIMS 25

namespace at {
namespace cuda {
namespace detail {

template <typename T, typename IndexType>
struct TensorInfo {
  T* data;
  IndexType sizes[MAX_TENSORINFO_DIMS];
  IndexType strides[MAX_TENSORINFO_DIMS];
  int dims;

  C10_HOST_DEVICE bool isContiguous() const { return dims == 1 && strides[0] == 1; }
};

// The offset of element `linearId` (row-major over the sizes) from the strides:
// Dims the tensor's dimensions, or -1 for info.dims.
template <typename T, typename IndexType, int Dims>
struct IndexToOffset {
  static C10_HOST_DEVICE IndexType get(IndexType linearId, const TensorInfo<T, IndexType>& info) {
    IndexType offset = 0;
    for (int i = (Dims < 0 ? info.dims : Dims) - 1; i > 0; --i) {
      const IndexType index = linearId % info.sizes[i];
      offset += index * info.strides[i];
      linearId /= info.sizes[i];
    }
    return offset + linearId * info.strides[0];
  }
};

}  // namespace detail
}  // namespace cuda
}  // namespace at
#endif
