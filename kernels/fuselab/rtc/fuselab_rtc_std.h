// What the C and C++ library stand-ins share: the C++ library of CUDA's toolkit (cuda/std) under NVRTC.
// The stand-ins wrap their #includes in extern "C++" { }: a source may include a C header
// inside extern "C" { } (cuda-hashing-algos' keccak.cu), as the toolkit's own C headers allow.
#ifndef FUSELAB_RTC_FUSELAB_RTC_STD_H
#define FUSELAB_RTC_FUSELAB_RTC_STD_H
#if defined(__CUDACC_RTC__)
extern "C++" {
#include <cuda/std/cstddef>
#include <cuda/std/cstdint>
#include <cuda/std/climits>
#include <cuda/std/limits>
#include <cuda/std/type_traits>
#include <cuda/std/utility>
#include <cuda/std/functional>
}
// std:: names resolve to cuda::std's where std declares none of its own.
namespace std {
using namespace cuda::std;
}
// Where the stand-ins declare their std:: names.
#define FUSELAB_RTC_STD_NAMESPACE std
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
// hiprtc before HIP 6 has no std::numeric_limits; these are reached through a
// using-directive, so that a hiprtc whose std declares its own still uses its own.
namespace fuselab_rtc_std {
using ::int16_t;
using ::int8_t;
using ::intptr_t;
using ::ptrdiff_t;
using ::uint16_t;
using ::uint8_t;
using ::uintptr_t;

// std::move, std::forward and std::declval, which hipcc's host headers give every source;
// hiprtc before HIP 6 declares std's type traits but not these.
template <class T> struct remove_reference_of { typedef T type; };
template <class T> struct remove_reference_of<T&> { typedef T type; };
template <class T> struct remove_reference_of<T&&> { typedef T type; };
template <class T> __host__ __device__ constexpr typename remove_reference_of<T>::type&& move(T&& t) noexcept {
  return static_cast<typename remove_reference_of<T>::type&&>(t);
}
template <class T> __host__ __device__ constexpr T&& forward(typename remove_reference_of<T>::type& t) noexcept {
  return static_cast<T&&>(t);
}
template <class T> __host__ __device__ constexpr T&& forward(typename remove_reference_of<T>::type&& t) noexcept {
  return static_cast<T&&>(t);
}
template <class T> __host__ __device__ T&& declval() noexcept;

template <class T> struct numeric_limits {
  static constexpr bool is_specialized = false;
};
template <class T, T Lowest, T Max, int Digits> struct integer_limits {
  static constexpr bool is_specialized = true;
  static constexpr bool is_signed = Lowest != 0;
  static constexpr bool is_integer = true;
  static constexpr bool is_exact = true;
  static constexpr bool has_infinity = false;
  static constexpr bool has_quiet_NaN = false;
  static constexpr bool is_bounded = true;
  static constexpr bool is_modulo = Lowest == 0;
  static constexpr int digits = Digits;
  static constexpr int radix = 2;
  __host__ __device__ static constexpr T min() { return Lowest; }
  __host__ __device__ static constexpr T lowest() { return Lowest; }
  __host__ __device__ static constexpr T max() { return Max; }
  __host__ __device__ static constexpr T epsilon() { return 0; }
};
#define FUSELAB_RTC_INTEGER_LIMITS(T, lowest, max, digits) \
  template <> struct numeric_limits<T> : integer_limits<T, lowest, max, digits> {};
FUSELAB_RTC_INTEGER_LIMITS(bool, false, true, 1)
FUSELAB_RTC_INTEGER_LIMITS(char, (char)(-__SCHAR_MAX__ - 1), (char)__SCHAR_MAX__, 7)
FUSELAB_RTC_INTEGER_LIMITS(signed char, -__SCHAR_MAX__ - 1, __SCHAR_MAX__, 7)
FUSELAB_RTC_INTEGER_LIMITS(unsigned char, 0, 2 * __SCHAR_MAX__ + 1, 8)
FUSELAB_RTC_INTEGER_LIMITS(short, -__SHRT_MAX__ - 1, __SHRT_MAX__, 15)
FUSELAB_RTC_INTEGER_LIMITS(unsigned short, 0, 2 * __SHRT_MAX__ + 1, 16)
FUSELAB_RTC_INTEGER_LIMITS(int, -__INT_MAX__ - 1, __INT_MAX__, 31)
FUSELAB_RTC_INTEGER_LIMITS(unsigned int, 0, 2u * __INT_MAX__ + 1u, 32)
FUSELAB_RTC_INTEGER_LIMITS(long, -__LONG_MAX__ - 1, __LONG_MAX__, 63)
FUSELAB_RTC_INTEGER_LIMITS(unsigned long, 0, 2ul * __LONG_MAX__ + 1ul, 64)
FUSELAB_RTC_INTEGER_LIMITS(long long, -__LONG_LONG_MAX__ - 1, __LONG_LONG_MAX__, 63)
FUSELAB_RTC_INTEGER_LIMITS(unsigned long long, 0, 2ull * __LONG_LONG_MAX__ + 1ull, 64)
#undef FUSELAB_RTC_INTEGER_LIMITS

#define FUSELAB_RTC_FLOAT_LIMITS(T, P, suffix)                                                          \
  template <> struct numeric_limits<T> {                                                               \
    static constexpr bool is_specialized = true;                                                       \
    static constexpr bool is_signed = true;                                                            \
    static constexpr bool is_integer = false;                                                          \
    static constexpr bool is_exact = false;                                                            \
    static constexpr bool has_infinity = true;                                                         \
    static constexpr bool has_quiet_NaN = true;                                                        \
    static constexpr bool has_signaling_NaN = true;                                                    \
    static constexpr bool is_iec559 = true;                                                            \
    static constexpr bool is_bounded = true;                                                           \
    static constexpr bool is_modulo = false;                                                           \
    static constexpr int digits = P##_MANT_DIG__;                                                      \
    static constexpr int digits10 = P##_DIG__;                                                         \
    static constexpr int radix = 2;                                                                    \
    static constexpr int min_exponent = P##_MIN_EXP__;                                                 \
    static constexpr int max_exponent = P##_MAX_EXP__;                                                 \
    __host__ __device__ static constexpr T min() { return P##_MIN__; }                                 \
    __host__ __device__ static constexpr T lowest() { return -P##_MAX__; }                             \
    __host__ __device__ static constexpr T max() { return P##_MAX__; }                                 \
    __host__ __device__ static constexpr T epsilon() { return P##_EPSILON__; }                         \
    __host__ __device__ static constexpr T round_error() { return T(0.5); }                            \
    __host__ __device__ static constexpr T denorm_min() { return P##_DENORM_MIN__; }                   \
    __host__ __device__ static constexpr T infinity() { return __builtin_huge_val##suffix(); }         \
    __host__ __device__ static constexpr T quiet_NaN() { return __builtin_nan##suffix(""); }           \
    __host__ __device__ static constexpr T signaling_NaN() { return __builtin_nans##suffix(""); }      \
  };
FUSELAB_RTC_FLOAT_LIMITS(float, __FLT, f)
FUSELAB_RTC_FLOAT_LIMITS(double, __DBL, )
#undef FUSELAB_RTC_FLOAT_LIMITS
}  // namespace fuselab_rtc_std
namespace std {
using namespace fuselab_rtc_std;
}  // namespace std
#define FUSELAB_RTC_STD_NAMESPACE fuselab_rtc_std
#endif
#endif
