// <cuda_runtime.h> for run-time compiled kernels: NVRTC declares the device side of the
// runtime (built-in variables, vector types, intrinsics) itself.
#ifndef FUSELAB_RTC_CUDA_RUNTIME_H
#define FUSELAB_RTC_CUDA_RUNTIME_H
#endif
