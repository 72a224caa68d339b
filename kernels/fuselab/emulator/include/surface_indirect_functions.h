// <surface_indirect_functions.h> on the CPU emulator: part of what the kernel language of fuselab/fuselab.h
// gives every source (the toolkit's cuda_runtime.h includes it).
#ifndef FUSELAB_EMULATOR_INCLUDE_SURFACE_INDIRECT_FUNCTIONS_H
#define FUSELAB_EMULATOR_INCLUDE_SURFACE_INDIRECT_FUNCTIONS_H
#include <fuselab/fuselab.h>
#endif
