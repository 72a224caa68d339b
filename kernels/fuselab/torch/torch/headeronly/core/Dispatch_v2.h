// <torch/headeronly/core/Dispatch_v2.h> for a PyTorch extension's kernels: fuselab_torch.h says what it gives.
#include <fuselab_torch.h>
