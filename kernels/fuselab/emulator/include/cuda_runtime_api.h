// <cuda_runtime_api.h> on the CPU emulator: the kernel language of fuselab/fuselab.h.
#ifndef FUSELAB_EMULATOR_INCLUDE_CUDA_RUNTIME_API_H
#define FUSELAB_EMULATOR_INCLUDE_CUDA_RUNTIME_API_H
#include <fuselab/fuselab.h>
#endif
