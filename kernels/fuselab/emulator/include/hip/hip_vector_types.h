// <hip/hip_vector_types.h> on the CPU emulator: part of what <hip/hip_runtime.h> gives every HIP source here.
#include "hip_runtime.h"
