// <hip/hip_cooperative_groups.h> for a HIP source compiled by NVRTC: CUDA's
// cooperative groups, which HIP's mirror.
#include <hip/hip_runtime.h>
#include <cooperative_groups.h>
