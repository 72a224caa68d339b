// <cub/block/block_histogram.cuh> on the CPU emulator: cub's block and warp primitives.
#ifndef FUSELAB_EMULATOR_INCLUDE_CUB_BLOCK_BLOCK_HISTOGRAM_CUH
#define FUSELAB_EMULATOR_INCLUDE_CUB_BLOCK_BLOCK_HISTOGRAM_CUH
#include <fuselab/fuselab.h>
#include <fuselab/emulator/cub_block_items.h>
#endif
