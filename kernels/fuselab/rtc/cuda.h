// <cuda.h> for run-time compiled kernels: NVRTC declares the device side of the
// runtime (built-in variables, vector types, intrinsics) itself. What sources test
// in #if is the toolkit's version, which the header gives as the toolkit's own does
// (CUDA_VERSION 12040 for 12.4), from the compiler's.
#ifndef FUSELAB_RTC_CUDA_H
#define FUSELAB_RTC_CUDA_H
#if defined(__CUDACC_VER_MAJOR__) && !defined(CUDA_VERSION)
#define CUDA_VERSION (__CUDACC_VER_MAJOR__ * 1000 + __CUDACC_VER_MINOR__ * 10)
#endif
#endif
