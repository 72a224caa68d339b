// <cub/version.cuh> on the CPU emulator: the cub whose block and warp primitives
// the emulator has, CUDA 13's (3.0.1), so that a source's `#if CUB_VERSION >= ...`
// takes the branch it takes on the GPU. Every cub header brings it, as cub's do.
#ifndef FUSELAB_EMULATOR_INCLUDE_CUB_VERSION_CUH
#define FUSELAB_EMULATOR_INCLUDE_CUB_VERSION_CUH
#define CUB_VERSION 300001
#define CUB_MAJOR_VERSION (CUB_VERSION / 100000)
#define CUB_MINOR_VERSION (CUB_VERSION / 100 % 1000)
#define CUB_SUBMINOR_VERSION (CUB_VERSION % 100)
#define CUB_PATCH_NUMBER 0
#include <cuda/version>
#endif
