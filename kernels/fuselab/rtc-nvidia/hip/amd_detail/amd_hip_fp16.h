// <hip/amd_detail/amd_hip_fp16.h>: the part of HIP that defines its half-precision (__half) type, which sources for AMD GPUs
// include directly (gpu-mode's AMD challenge submissions); here <hip/hip_fp16.h>, where it is.
#ifndef FUSELAB_RTC_NVIDIA_HIP_AMD_DETAIL_AMD_HIP_FP16_H
#define FUSELAB_RTC_NVIDIA_HIP_AMD_DETAIL_AMD_HIP_FP16_H
#include <hip/hip_fp16.h>
#endif
