// <hip/hip_version.h>: the HIP release fuselab's HIP headers give, for sources that
// choose a path by it (fuselab/hip_version_numbers.h). hip_runtime.h includes it, as HIP's does.
#ifndef FUSELAB_RTC_NVIDIA_HIP_HIP_VERSION_H
#define FUSELAB_RTC_NVIDIA_HIP_HIP_VERSION_H
#include <fuselab/hip_version_numbers.h>
#endif
