// <hip/hip_cooperative_groups.h> on the CPU emulator.
#ifndef FUSELAB_EMULATOR_INCLUDE_HIP_HIP_COOPERATIVE_GROUPS_H
#define FUSELAB_EMULATOR_INCLUDE_HIP_HIP_COOPERATIVE_GROUPS_H
#include <hip/hip_runtime.h>
#include <fuselab/emulator/cooperative_groups.h>
#endif
