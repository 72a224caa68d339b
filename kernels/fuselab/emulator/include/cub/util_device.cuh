// <cub/util_device.cuh> on the CPU emulator: cub's block and warp primitives, with its utilities.
#ifndef FUSELAB_EMULATOR_INCLUDE_CUB_UTIL_DEVICE_CUH
#define FUSELAB_EMULATOR_INCLUDE_CUB_UTIL_DEVICE_CUH
#include <fuselab/fuselab.h>
#include <fuselab/emulator/cub_block_items.h>
#endif
