// <cub/device/device_segmented_reduce.cuh> for run-time compiled kernels: host code only (fuselab/cub_host_only.h),
// with the toolkit's block, warp and thread primitives.
#ifndef FUSELAB_RTC_CUB_DEVICE_DEVICE_SEGMENTED_REDUCE_CUH
#define FUSELAB_RTC_CUB_DEVICE_DEVICE_SEGMENTED_REDUCE_CUH
#include <cub/cub.cuh>
#include <fuselab/cub_host_only.h>
#endif
