// <torch/serialize/tensor.h> for a PyTorch extension's kernels (OpenPCDet's and pointops' op headers
// include it for at::Tensor): fuselab_torch.h says what it gives.
#include <fuselab_torch.h>
