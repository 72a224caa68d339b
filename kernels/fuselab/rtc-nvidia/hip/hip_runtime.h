// <hip/hip_runtime.h> for a HIP source compiled by NVRTC: HIP on NVIDIA, as the
// HIP SDK's NVIDIA platform gives it. The kernel language is fuselab/fuselab.h's
// (HIP's warp operations on CUDA's) and HIP's own spellings; the host API is
// host code, which NVRTC never sees.
#ifndef FUSELAB_RTC_NVIDIA_HIP_HIP_RUNTIME_H
#define FUSELAB_RTC_NVIDIA_HIP_HIP_RUNTIME_H
#ifndef __HIP_PLATFORM_NVIDIA__
#define __HIP_PLATFORM_NVIDIA__ 1
#endif
#ifndef __HIP_PLATFORM_NVCC__
#define __HIP_PLATFORM_NVCC__ 1
#endif
#include <fuselab/fuselab.h>
#include <hip/hip_version.h>
#include <fuselab/hip_arch_features.h>
#include <fuselab/hip_spellings.h>
// clang's 16-bit float, which AMD's HIP sources use, NVRTC does not have: CUDA's
// __half stands in, rounding each operation as AMD's f16 instructions do.
#define _Float16 __half
// The runtime's handle and error types, which a source's host declarations name
// (a launcher taking a hipStream_t): CUDA's, as HIP on NVIDIA defines them.
typedef cudaStream_t hipStream_t;
typedef cudaEvent_t hipEvent_t;
typedef cudaError_t hipError_t;
#endif
