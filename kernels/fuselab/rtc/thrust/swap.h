// <thrust/swap.h> for run-time compiled kernels: under NVRTC thrust::swap as the
// toolkit's cuda::std::swap; under hiprtc, for host code only.
#ifndef FUSELAB_RTC_THRUST_SWAP_H
#define FUSELAB_RTC_THRUST_SWAP_H
#include <fuselab/thrust_version.h>
#if defined(__CUDACC_RTC__)
#include <cuda/std/utility>
namespace thrust {
using ::cuda::std::swap;
}  // namespace thrust
#else
#include <fuselab/thrust_host_only.h>
#endif
#endif
