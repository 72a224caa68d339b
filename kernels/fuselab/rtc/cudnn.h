// <cudnn.h> in a kernel source: fuselab/cudnn_types.h.
extern "C++" {
#include <fuselab/cudnn_types.h>
}
