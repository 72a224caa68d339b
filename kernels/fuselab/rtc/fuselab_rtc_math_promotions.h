// The math functions' mixed and integer arguments under NVRTC, as the host
// <cmath> that nvcc brings every .cu file gives them: fmax(0.0, x) of a float x,
// pow(x, y) of a float and a double, sqrt(n) of an int, in double. NVRTC's own
// have float and double forms only, between which such a call is ambiguous.
#ifndef FUSELAB_RTC_MATH_PROMOTIONS_H
#define FUSELAB_RTC_MATH_PROMOTIONS_H
extern "C++" {
#include <cuda/std/type_traits>
}

namespace fl_rtc_math {
template <class T>
using integer = typename ::cuda::std::enable_if<::cuda::std::is_integral<T>::value, double>::type;
// Both arithmetic, and not both float or both double (those are the built-in forms).
template <class A, class B>
using mixed = typename ::cuda::std::enable_if<::cuda::std::is_arithmetic<A>::value && ::cuda::std::is_arithmetic<B>::value &&
                                                  !(::cuda::std::is_same<A, B>::value && ::cuda::std::is_floating_point<A>::value),
                                              double>::type;
}  // namespace fl_rtc_math

#define FL_RTC_INTEGER_MATH(name) \
  template <class T>              \
  __device__ __forceinline__ fl_rtc_math::integer<T> name(T x) { return name(static_cast<double>(x)); }
#define FL_RTC_MIXED_MATH(name)                                               \
  template <class A, class B>                                                 \
  __device__ __forceinline__ fl_rtc_math::mixed<A, B> name(A a, B b) {        \
    return name(static_cast<double>(a), static_cast<double>(b));              \
  }
FL_RTC_INTEGER_MATH(sqrt) FL_RTC_INTEGER_MATH(cbrt) FL_RTC_INTEGER_MATH(exp) FL_RTC_INTEGER_MATH(exp2)
FL_RTC_INTEGER_MATH(expm1) FL_RTC_INTEGER_MATH(log) FL_RTC_INTEGER_MATH(log2) FL_RTC_INTEGER_MATH(log10)
FL_RTC_INTEGER_MATH(log1p) FL_RTC_INTEGER_MATH(sin) FL_RTC_INTEGER_MATH(cos) FL_RTC_INTEGER_MATH(tan)
FL_RTC_INTEGER_MATH(asin) FL_RTC_INTEGER_MATH(acos) FL_RTC_INTEGER_MATH(atan) FL_RTC_INTEGER_MATH(sinh)
FL_RTC_INTEGER_MATH(cosh) FL_RTC_INTEGER_MATH(tanh) FL_RTC_INTEGER_MATH(erf) FL_RTC_INTEGER_MATH(erfc)
FL_RTC_INTEGER_MATH(lgamma) FL_RTC_INTEGER_MATH(tgamma)
FL_RTC_MIXED_MATH(fmax) FL_RTC_MIXED_MATH(fmin) FL_RTC_MIXED_MATH(pow) FL_RTC_MIXED_MATH(atan2) FL_RTC_MIXED_MATH(fmod)
FL_RTC_MIXED_MATH(hypot) FL_RTC_MIXED_MATH(copysign) FL_RTC_MIXED_MATH(fdim) FL_RTC_MIXED_MATH(remainder)
FL_RTC_MIXED_MATH(nextafter)
#undef FL_RTC_INTEGER_MATH
#undef FL_RTC_MIXED_MATH
#endif
