// <ATen/cuda/detail/IndexUtils.cuh> for a PyTorch extension's kernels: fuselab_torch.h says what it gives, and TensorInfo.
#include <fuselab_torch.h>
#include <ATen/cuda/detail/TensorInfo.cuh>
