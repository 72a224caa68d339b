// The HIP release whose kernel language fuselab's HIP headers give (6.2: CUDA's
// masked warp operations, warpSize a constant): <hip/hip_version.h> on the CPU
// emulator and under NVRTC.
#ifndef FUSELAB_HIP_VERSION_NUMBERS_H
#define FUSELAB_HIP_VERSION_NUMBERS_H
#define HIP_VERSION_MAJOR 6
#define HIP_VERSION_MINOR 2
#define HIP_VERSION_PATCH 0
#define HIP_VERSION (HIP_VERSION_MAJOR * 10000000 + HIP_VERSION_MINOR * 100000 + HIP_VERSION_PATCH)
#endif
