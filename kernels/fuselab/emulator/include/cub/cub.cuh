// <cub/cub.cuh> on the CPU emulator: cub's block and warp primitives.
#ifndef FUSELAB_EMULATOR_INCLUDE_CUB_CUB_CUH
#define FUSELAB_EMULATOR_INCLUDE_CUB_CUB_CUH
#include <fuselab/fuselab.h>
#include <fuselab/emulator/cub_block_items.h>
#include <fuselab/thrust_functional.h>  // thrust's function objects, which sources pass to cub as nvcc's cub brings them
#endif
