// <hip/device_functions.h> for HIP on NVIDIA (NVRTC): part of what <hip/hip_runtime.h> gives every HIP source.
#include "hip_runtime.h"
