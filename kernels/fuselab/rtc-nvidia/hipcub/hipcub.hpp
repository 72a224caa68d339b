// <hipcub/hipcub.hpp> for a HIP source compiled by NVRTC: on NVIDIA, hipCUB is
// cub under another namespace.
#ifndef FUSELAB_RTC_NVIDIA_HIPCUB_HIPCUB_HPP
#define FUSELAB_RTC_NVIDIA_HIPCUB_HIPCUB_HPP
#include <hip/hip_runtime.h>
#include <cub/cub.cuh>
namespace hipcub {
using namespace ::cub;
}
#endif
