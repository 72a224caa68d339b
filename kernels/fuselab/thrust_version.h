// THRUST_VERSION where fuselab's headers stand in for thrust's: under NVRTC the
// toolkit's; on the CPU emulator the thrust of the CCCL that <cuda/version> names
// (CUDA 13's), spelled as thrust's version.h spells it, so that a source's
// `#if THRUST_VERSION >= ...` takes the branch it takes with nvcc. hiprtc has no
// CCCL: rocThrust's version is not given.
#ifndef FUSELAB_THRUST_VERSION_H
#define FUSELAB_THRUST_VERSION_H
#if defined(__CUDACC_RTC__)
#include <thrust/version.h>  // the toolkit's, whose configuration cub's headers need beside it
#elif __has_include(<cuda/version>)
#include <cuda/version>
#define THRUST_VERSION (CCCL_MAJOR_VERSION * 100000 + CCCL_MINOR_VERSION * 100 + CCCL_PATCH_VERSION)
#define THRUST_MAJOR_VERSION (THRUST_VERSION / 100000)
#define THRUST_MINOR_VERSION (THRUST_VERSION / 100 % 1000)
#define THRUST_SUBMINOR_VERSION (THRUST_VERSION % 100)
#define THRUST_PATCH_NUMBER 0
#endif
#endif
