// <torch/cuda.h> for a PyTorch extension's kernels: its device queries are host code, which fuselab leaves out.
#include <fuselab_torch.h>
