// <c10/util/Float8_e4m3fnuz.h> for a PyTorch extension's kernels: fuselab_torch.h says what it gives.
#include <fuselab_torch.h>
