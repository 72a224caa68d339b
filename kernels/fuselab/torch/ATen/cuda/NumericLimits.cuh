// <ATen/cuda/NumericLimits.cuh> for a PyTorch extension's kernels: at::numeric_limits,
// whose lower_bound() and upper_bound() are a reduction's identities (minus and plus
// infinity where the type has them, else its lowest and largest value), and at::inf.
#ifndef FUSELAB_TORCH_NUMERIC_LIMITS_CUH
#define FUSELAB_TORCH_NUMERIC_LIMITS_CUH
#include <fuselab_torch.h>
// As PyTorch's does: CUDA_VERSION for the extension's #if.
#include <cuda.h>

namespace at {
// PyTorch's own infinity beside them (a copy of this header in SoftPool reads it).
namespace {
constexpr double inf = std::numeric_limits<double>::infinity();
}  // namespace

template <typename T> struct numeric_limits {
  C10_HOST_DEVICE static T lowest() { return std::numeric_limits<T>::lowest(); }
  C10_HOST_DEVICE static T max() { return std::numeric_limits<T>::max(); }
  C10_HOST_DEVICE static T lower_bound() {
    return std::numeric_limits<T>::has_infinity ? T(-std::numeric_limits<T>::infinity()) : std::numeric_limits<T>::lowest();
  }
  C10_HOST_DEVICE static T upper_bound() {
    return std::numeric_limits<T>::has_infinity ? std::numeric_limits<T>::infinity() : std::numeric_limits<T>::max();
  }
};
}  // namespace at
#endif
