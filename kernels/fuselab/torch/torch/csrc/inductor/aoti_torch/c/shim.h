// <torch/csrc/inductor/aoti_torch/c/shim.h>, the C shim an extension's host code calls through the
// stable ABI: fuselab_torch.h says what it gives.
#include <fuselab_torch.h>
