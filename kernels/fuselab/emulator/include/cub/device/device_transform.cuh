// <cub/device/device_transform.cuh> on the CPU emulator: host code only (fuselab/cub_host_only.h), with cub's block and warp primitives.
#ifndef FUSELAB_EMULATOR_INCLUDE_CUB_DEVICE_DEVICE_TRANSFORM_CUH
#define FUSELAB_EMULATOR_INCLUDE_CUB_DEVICE_DEVICE_TRANSFORM_CUH
#include <fuselab/fuselab.h>
#include <fuselab/emulator/cub_block_items.h>
#include <fuselab/cub_host_only.h>
#endif
