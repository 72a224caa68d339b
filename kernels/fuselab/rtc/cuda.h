// <cuda.h> for run-time compiled kernels: NVRTC declares the device side of the
// runtime (built-in variables, vector types, intrinsics) itself.
#ifndef FUSELAB_RTC_CUDA_H
#define FUSELAB_RTC_CUDA_H
#endif
