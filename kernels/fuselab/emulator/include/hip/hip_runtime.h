// <hip/hip_runtime.h> on the CPU emulator: the kernel language of fuselab/fuselab.h
// and HIP's own spellings.
#ifndef FUSELAB_EMULATOR_INCLUDE_HIP_HIP_RUNTIME_H
#define FUSELAB_EMULATOR_INCLUDE_HIP_HIP_RUNTIME_H
#include <fuselab/fuselab.h>
#include <fuselab/hip_spellings.h>
#endif
