// <cuda_runtime_api.h> for run-time compiled kernels: NVRTC declares the device side of the
// runtime (built-in variables, vector types, intrinsics) itself.
#ifndef FUSELAB_RTC_CUDA_RUNTIME_API_H
#define FUSELAB_RTC_CUDA_RUNTIME_API_H
#endif
