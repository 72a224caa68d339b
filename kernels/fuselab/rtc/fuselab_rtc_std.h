// What the C and C++ library stand-ins share: the C++ library of CUDA's toolkit (cuda/std) under NVRTC.
#ifndef FUSELAB_RTC_FUSELAB_RTC_STD_H
#define FUSELAB_RTC_FUSELAB_RTC_STD_H
#if defined(__CUDACC_RTC__)
#include <cuda/std/cstddef>
#include <cuda/std/cstdint>
#include <cuda/std/climits>
#include <cuda/std/limits>
#include <cuda/std/type_traits>
#include <cuda/std/utility>
#include <cuda/std/functional>
// std:: names resolve to cuda::std's where std declares none of its own.
namespace std {
using namespace cuda::std;
}
#endif
#endif
