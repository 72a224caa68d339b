// <hip/hip_fp16.h> for a HIP source compiled by NVRTC: HIP's half API is CUDA's
// (__half, __half2, __hadd ...), which fuselab/fuselab.h includes.
#include <hip/hip_runtime.h>
