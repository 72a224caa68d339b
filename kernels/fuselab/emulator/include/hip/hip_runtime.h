// <hip/hip_runtime.h> on the CPU emulator: the kernel language of fuselab/fuselab.h.
#ifndef FUSELAB_EMULATOR_INCLUDE_HIP_HIP_RUNTIME_H
#define FUSELAB_EMULATOR_INCLUDE_HIP_HIP_RUNTIME_H
#include <fuselab/fuselab.h>
#endif
