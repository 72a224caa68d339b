// <ATen/NumericUtils.h> for a PyTorch extension's kernels: at::_isnan and at::_isinf
// of every type (integers are neither), with at::numeric_limits beside them.
#ifndef FUSELAB_TORCH_NUMERIC_UTILS_H
#define FUSELAB_TORCH_NUMERIC_UTILS_H
#include <ATen/cuda/NumericLimits.cuh>

namespace at {
template <typename T> C10_HOST_DEVICE inline bool _isnan(T value) {
  if constexpr (std::is_integral<T>::value) return false;
  else return static_cast<float>(value) != static_cast<float>(value);
}
template <> C10_HOST_DEVICE inline bool _isnan(double value) { return value != value; }
template <typename T> C10_HOST_DEVICE inline bool _isinf(T value) {
  if constexpr (std::is_integral<T>::value) return false;
  else return static_cast<float>(value) == std::numeric_limits<float>::infinity() || static_cast<float>(value) == -std::numeric_limits<float>::infinity();
}
template <> C10_HOST_DEVICE inline bool _isinf(double value) { return value == std::numeric_limits<double>::infinity() || value == -std::numeric_limits<double>::infinity(); }
}  // namespace at
#endif
