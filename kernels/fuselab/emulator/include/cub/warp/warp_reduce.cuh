// <cub/warp/warp_reduce.cuh> on the CPU emulator: cub's block and warp primitives.
#ifndef FUSELAB_EMULATOR_INCLUDE_CUB_WARP_WARP_REDUCE_CUH
#define FUSELAB_EMULATOR_INCLUDE_CUB_WARP_WARP_REDUCE_CUH
#include <fuselab/fuselab.h>
#include <fuselab/emulator/cub_block_items.h>
#endif
