// <hip/hip_version.h>: the HIP release whose kernel language fuselab's HIP headers
// give (6.2: CUDA's masked warp operations, warpSize a constant), for sources that
// choose a path by it. hip_runtime.h includes it, as HIP's does.
#ifndef FUSELAB_EMULATOR_INCLUDE_HIP_HIP_VERSION_H
#define FUSELAB_EMULATOR_INCLUDE_HIP_HIP_VERSION_H
#define HIP_VERSION_MAJOR 6
#define HIP_VERSION_MINOR 2
#define HIP_VERSION_PATCH 0
#define HIP_VERSION (HIP_VERSION_MAJOR * 10000000 + HIP_VERSION_MINOR * 100000 + HIP_VERSION_PATCH)
#endif
