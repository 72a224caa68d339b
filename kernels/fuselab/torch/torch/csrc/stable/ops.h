// <torch/csrc/stable/ops.h>, PyTorch's stable ABI for an extension's host code: fuselab_torch.h says what it gives.
#include <fuselab_torch.h>
