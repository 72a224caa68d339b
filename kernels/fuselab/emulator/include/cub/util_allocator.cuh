// <cub/util_allocator.cuh> on the CPU emulator: host code only (fuselab/cub_host_only.h), with cub's block and warp primitives.
#ifndef FUSELAB_EMULATOR_INCLUDE_CUB_UTIL_ALLOCATOR_CUH
#define FUSELAB_EMULATOR_INCLUDE_CUB_UTIL_ALLOCATOR_CUH
#include <fuselab/fuselab.h>
#include <fuselab/emulator/cub_block_items.h>
#include <fuselab/cub_host_only.h>
#endif
