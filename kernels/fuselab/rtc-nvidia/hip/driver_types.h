// <hip/driver_types.h> under NVRTC: a part of HIP's runtime header, which sources include
// beside it or before it (rocm-examples' fdtd); here the whole of it, so that the
// installed HIP's own parts, written for hipcc, are never mixed in.
#ifndef FUSELAB_RTC_NVIDIA_HIP_DRIVER_TYPES_H
#define FUSELAB_RTC_NVIDIA_HIP_DRIVER_TYPES_H
#include <hip/hip_runtime.h>
#endif
