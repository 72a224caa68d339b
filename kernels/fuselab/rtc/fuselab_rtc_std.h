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
#elif defined(__HIPCC_RTC__)
// hiprtc declares the 32- and 64-bit integers and size_t; the narrower ones and
// the pointer-sized ones here, as <stdint.h> and <stddef.h> spell them.
typedef signed char int8_t;
typedef unsigned char uint8_t;
typedef short int16_t;
typedef unsigned short uint16_t;
typedef __INTPTR_TYPE__ intptr_t;
typedef __UINTPTR_TYPE__ uintptr_t;
typedef __PTRDIFF_TYPE__ ptrdiff_t;
namespace std {
using ::int16_t;
using ::int8_t;
using ::intptr_t;
using ::ptrdiff_t;
using ::uint16_t;
using ::uint8_t;
using ::uintptr_t;
}  // namespace std
#endif
#endif
