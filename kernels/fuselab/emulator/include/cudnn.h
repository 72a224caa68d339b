// <cudnn.h> in a kernel source: fuselab/cudnn_types.h.
#include <fuselab/cudnn_types.h>
