// <hip/hip_bf16.h> for a HIP source compiled by NVRTC: HIP's bf16 names for
// CUDA's types (fuselab/vendors/cuda.h gives them to every source); the
// functions (__bfloat162float, __float2bfloat16, __hadd ...) have the same names in both.
#ifndef FUSELAB_RTC_NVIDIA_HIP_HIP_BF16_H
#define FUSELAB_RTC_NVIDIA_HIP_HIP_BF16_H
#include <hip/hip_runtime.h>
#endif
