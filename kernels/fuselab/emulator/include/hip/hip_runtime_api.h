// <hip/hip_runtime_api.h> on the CPU emulator: the kernel language of fuselab/fuselab.h.
#ifndef FUSELAB_EMULATOR_INCLUDE_HIP_HIP_RUNTIME_API_H
#define FUSELAB_EMULATOR_INCLUDE_HIP_HIP_RUNTIME_API_H
#include <hip/hip_runtime.h>
#endif
