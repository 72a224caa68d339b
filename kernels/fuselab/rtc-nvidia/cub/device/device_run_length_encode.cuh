// <cub/device/device_run_length_encode.cuh> for run-time compiled kernels: host code only (fuselab/cub_host_only.h),
// with the toolkit's block, warp and thread primitives.
#ifndef FUSELAB_RTC_CUB_DEVICE_DEVICE_RUN_LENGTH_ENCODE_CUH
#define FUSELAB_RTC_CUB_DEVICE_DEVICE_RUN_LENGTH_ENCODE_CUH
#include <cub/cub.cuh>
#include <fuselab/cub_host_only.h>
#endif
