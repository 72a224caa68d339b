// <hip/hip_fp16.h> on the CPU emulator: the kernel language of fuselab/fuselab.h.
#ifndef FUSELAB_EMULATOR_INCLUDE_HIP_HIP_FP16_H
#define FUSELAB_EMULATOR_INCLUDE_HIP_HIP_FP16_H
#include <hip/hip_runtime.h>
#endif
