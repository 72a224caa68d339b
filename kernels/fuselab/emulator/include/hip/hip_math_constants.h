// <hip/hip_math_constants.h>: fuselab/hip_math_constants.h.
#include <fuselab/hip_math_constants.h>
