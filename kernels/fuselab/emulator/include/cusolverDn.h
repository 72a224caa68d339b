// <cusolverDn.h> in a kernel source: fuselab/cusolver_types.h.
#include <fuselab/cusolver_types.h>
