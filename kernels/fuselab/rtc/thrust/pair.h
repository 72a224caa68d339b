// <thrust/pair.h> for run-time compiled kernels: under NVRTC thrust::pair as the
// toolkit's cuda::std::pair; under hiprtc, for host code only.
#ifndef FUSELAB_RTC_THRUST_PAIR_H
#define FUSELAB_RTC_THRUST_PAIR_H
#include <fuselab/thrust_version.h>
#if defined(__CUDACC_RTC__)
#include <cuda/std/utility>
namespace thrust {
using ::cuda::std::get; using ::cuda::std::make_pair; using ::cuda::std::pair;
}  // namespace thrust
#else
#include <fuselab/thrust_host_only.h>
#endif
#endif
