// <ATen/ceil_div.h> for a PyTorch extension's kernels: at::ceil_div, the quotient rounded up.
#ifndef FUSELAB_TORCH_CEIL_DIV_H
#define FUSELAB_TORCH_CEIL_DIV_H
#include <fuselab_torch.h>
namespace at {
template <typename T>
C10_HOST_DEVICE constexpr T ceil_div(T a, T b) { return (a + b - 1) / b; }
}  // namespace at
#endif
