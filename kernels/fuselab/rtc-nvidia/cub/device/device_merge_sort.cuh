// <cub/device/device_merge_sort.cuh> for run-time compiled kernels: host code only (fuselab/cub_host_only.h),
// with the toolkit's block, warp and thread primitives.
#ifndef FUSELAB_RTC_CUB_DEVICE_DEVICE_MERGE_SORT_CUH
#define FUSELAB_RTC_CUB_DEVICE_DEVICE_MERGE_SORT_CUH
#include <cub/cub.cuh>
#include <fuselab/cub_host_only.h>
#endif
