// <ATen/cuda/CUDAEvent.h> for a PyTorch extension's kernels: fuselab_torch.h says what it gives.
#include <fuselab_torch.h>
// As PyTorch's does: CUDA_VERSION for the extension's #if.
#include <cuda.h>
