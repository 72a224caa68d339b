// <hip/hip_bfloat16.h> for HIP on NVIDIA (NVRTC): hip_bfloat16, as <hip/hip_bf16.h> gives it.
#include "hip_bf16.h"
