// <hip/amd_detail/amd_hip_bf16.h>: the part of HIP that defines its bfloat16 (__hip_bfloat16) type, which sources for AMD GPUs
// include directly (gpu-mode's AMD challenge submissions); here <hip/hip_bf16.h>, where it is.
#ifndef FUSELAB_RTC_NVIDIA_HIP_AMD_DETAIL_AMD_HIP_BF16_H
#define FUSELAB_RTC_NVIDIA_HIP_AMD_DETAIL_AMD_HIP_BF16_H
#include <hip/hip_bf16.h>
#endif
