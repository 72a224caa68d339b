// <cub/cub.cuh> for run-time compiled kernels: the toolkit's block, warp and thread
// primitives, which NVRTC compiles. The umbrella header also brings cub's
// device-wide algorithms, whose host launch code NVRTC refuses; a kernel has no
// use for them (launches come from TS).
#ifndef FUSELAB_RTC_CUB_CUB_CUH
#define FUSELAB_RTC_CUB_CUB_CUH
#include <cfloat>  // as nvcc's cub brings it (util_type.cuh): sources using cub take FLT_MAX from there
#include <fuselab/thrust_functional.h>  // thrust's function objects, which sources pass to cub
#include <cub/config.cuh>
#include <cub/block/block_adjacent_difference.cuh>
#include <cub/block/block_discontinuity.cuh>
#include <cub/block/block_exchange.cuh>
#include <cub/block/block_histogram.cuh>
#include <cub/block/block_load.cuh>
#include <cub/block/block_merge_sort.cuh>
#include <cub/block/block_radix_rank.cuh>
#include <cub/block/block_radix_sort.cuh>
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/block/block_store.cuh>
#include <cub/thread/thread_load.cuh>
#include <cub/thread/thread_operators.cuh>
#include <cub/thread/thread_reduce.cuh>
#include <cub/thread/thread_scan.cuh>
#include <cub/thread/thread_store.cuh>
#include <cub/warp/warp_exchange.cuh>
#include <cub/warp/warp_load.cuh>
#include <cub/warp/warp_merge_sort.cuh>
#include <cub/warp/warp_reduce.cuh>
#include <cub/warp/warp_scan.cuh>
#include <cub/warp/warp_store.cuh>
#include <cub/util_ptx.cuh>
#include <cub/util_type.cuh>

#include <fuselab/cub_removed.h>
#endif
