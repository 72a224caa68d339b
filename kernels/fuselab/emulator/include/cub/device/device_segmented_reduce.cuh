// <cub/device/device_segmented_reduce.cuh> on the CPU emulator: host code only (fuselab/cub_host_only.h), with cub's block and warp primitives.
#ifndef FUSELAB_EMULATOR_INCLUDE_CUB_DEVICE_DEVICE_SEGMENTED_REDUCE_CUH
#define FUSELAB_EMULATOR_INCLUDE_CUB_DEVICE_DEVICE_SEGMENTED_REDUCE_CUH
#include <fuselab/fuselab.h>
#include <fuselab/emulator/cub_block_items.h>
#include <fuselab/cub_host_only.h>
#endif
