// <cusolverDn.h> in a kernel source: fuselab/cusolver_types.h.
extern "C++" {
#include <fuselab/cusolver_types.h>
}
