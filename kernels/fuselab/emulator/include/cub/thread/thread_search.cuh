// <cub/thread/thread_search.cuh> on the CPU emulator: cub's block and warp primitives, with its thread utilities.
#ifndef FUSELAB_EMULATOR_INCLUDE_CUB_THREAD_THREAD_SEARCH_CUH
#define FUSELAB_EMULATOR_INCLUDE_CUB_THREAD_THREAD_SEARCH_CUH
#include <fuselab/fuselab.h>
#include <fuselab/emulator/cub_block_items.h>
#endif
