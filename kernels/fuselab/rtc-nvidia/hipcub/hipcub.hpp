// <hipcub/hipcub.hpp> for a HIP source compiled by NVRTC: on NVIDIA, hipCUB is
// cub under another namespace.
#ifndef FUSELAB_RTC_NVIDIA_HIPCUB_HIPCUB_HPP
#define FUSELAB_RTC_NVIDIA_HIPCUB_HIPCUB_HPP
#include <hip/hip_runtime.h>
#include <cub/cub.cuh>
// hipCUB on NVIDIA's platform: cub under another namespace, a warp of 32 lanes.
#define HIPCUB_DEVICE_WARP_THREADS 32
namespace hipcub {
using namespace ::cub;
}
#endif
