// <cooperative_groups.h> on the CPU emulator.
#ifndef FUSELAB_EMULATOR_INCLUDE_COOPERATIVE_GROUPS_H
#define FUSELAB_EMULATOR_INCLUDE_COOPERATIVE_GROUPS_H
#include <fuselab/fuselab.h>
#include <fuselab/emulator/cooperative_groups.h>
#endif
