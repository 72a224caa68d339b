// <hip/hip_complex.h>: fuselab/hip_complex.h.
#include <fuselab/hip_complex.h>
