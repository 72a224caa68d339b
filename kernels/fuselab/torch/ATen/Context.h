// <ATen/Context.h> for a PyTorch extension's kernels: fuselab_torch.h says what it gives (at::globalContext() is for host launchers, which fl.compile leaves out).
#include <fuselab_torch.h>
