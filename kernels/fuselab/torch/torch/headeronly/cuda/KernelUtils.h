// <torch/headeronly/cuda/KernelUtils.h> (PyTorch 2.9's header-only API): at::native's fastAtomicAdd and
// fastSpecializedAtomicAdd, named in torch::headeronly too.
#ifndef FUSELAB_TORCH_HEADERONLY_KERNEL_UTILS_H
#define FUSELAB_TORCH_HEADERONLY_KERNEL_UTILS_H
#include <ATen/native/cuda/KernelUtils.cuh>
namespace torch::headeronly {
using at::native::fastAtomicAdd;
using at::native::fastSpecializedAtomicAdd;
}  // namespace torch::headeronly
#endif
