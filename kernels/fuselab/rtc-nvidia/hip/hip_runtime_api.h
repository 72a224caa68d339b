// <hip/hip_runtime_api.h> for a HIP source compiled by NVRTC.
#include <hip/hip_runtime.h>
