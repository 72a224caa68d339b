// The std:: names of the device math functions (std::exp, std::sqrt ...) for run-time
// compiled kernels, as nvcc's and hipcc's headers give every source, <cmath> or not
// (Megatron's softmax calls std::exp including <cfloat> and <limits> alone).
#ifndef FUSELAB_RTC_STD_MATH_H
#define FUSELAB_RTC_STD_MATH_H
// Under NVRTC straight into std: fuselab_rtc_std.h's cuda::std headers are not
// brought in here, in the prelude, before vendors/cuda.h renames __all and __any.
#if defined(__CUDACC_RTC__)
#define FUSELAB_RTC_STD_MATH_NAMESPACE std
#elif defined(__HIPCC_RTC__)
extern "C++" {
#include "fuselab_rtc_std.h"
}
#define FUSELAB_RTC_STD_MATH_NAMESPACE FUSELAB_RTC_STD_NAMESPACE
#endif
#if defined(__CUDACC_RTC__) || defined(__HIPCC_RTC__)
namespace FUSELAB_RTC_STD_MATH_NAMESPACE {
using ::abs; using ::fabs; using ::sqrt; using ::cbrt; using ::exp; using ::exp2; using ::expm1; using ::log; using ::log2;
using ::log10; using ::log1p; using ::pow; using ::sin; using ::cos; using ::tan; using ::asin; using ::acos; using ::atan;
using ::atan2; using ::sinh; using ::cosh; using ::tanh; using ::erf; using ::erfc; using ::floor; using ::ceil; using ::round;
using ::trunc; using ::rint; using ::fmod; using ::fmin; using ::fmax; using ::fma; using ::hypot; using ::copysign;
using ::isnan; using ::isinf; using ::isfinite; using ::signbit; using ::ldexp; using ::frexp; using ::lgamma; using ::tgamma;
}  // namespace FUSELAB_RTC_STD_MATH_NAMESPACE
#undef FUSELAB_RTC_STD_MATH_NAMESPACE
#endif
#endif
