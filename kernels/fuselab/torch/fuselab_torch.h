// What a PyTorch extension's kernel file gets from torch/extension.h, ATen and
// c10 for its device code: c10::Half and c10::BFloat16 (16 bits stored, each
// operation computed in float and rounded back, as PyTorch's are),
// at::opmath_type and at::acc_type, the C10_ macros, and the tensor accessors
// (a PackedTensorAccessor parameter takes a tensor at launch). The host API
// (tensors, dispatch, checks, streams, bindings) is for host functions, which
// fl.compile leaves out on every target (src/compile.ts): it is declared here
// by name only, so that prototypes naming it still read.
#ifndef FUSELAB_TORCH_H
#define FUSELAB_TORCH_H

#include <assert.h>
#include <float.h>  // c10's headers bring FLT_MAX to every extension
#include <stddef.h>
#include <stdint.h>
#include <cstring>  // std::memcpy: c10/util/Half.h includes <cstring>
#include <limits>
#include <type_traits>

#define C10_HOST_DEVICE __host__ __device__
#define C10_DEVICE __device__
#define C10_HOST __host__
#define C10_ALWAYS_INLINE inline
#define C10_LIKELY(expr) (expr)
#define C10_UNLIKELY(expr) (expr)
#define C10_RESTRICT __restrict__
#define C10_MAX_THREADS_PER_BLOCK(threads) (((threads) <= 0) ? 1024 : (threads))
#define C10_LAUNCH_BOUNDS_0 __launch_bounds__(256, 4)
#define C10_LAUNCH_BOUNDS_1(threads) __launch_bounds__((C10_MAX_THREADS_PER_BLOCK((threads))))
#define C10_LAUNCH_BOUNDS_2(threads, blocks) __launch_bounds__((C10_MAX_THREADS_PER_BLOCK((threads))), (blocks))
// c10/macros/Macros.h's checks in device code: a failed one is a device-side assert
// (TensorRT's fake quantization kernels check their inputs so).
#define CUDA_KERNEL_ASSERT(cond) assert(cond)
#define CUDA_KERNEL_ASSERT_MSG(cond, msg) assert((cond) && (msg))
// The warp's lanes as a constant: the GPU's, or the emulated device's (fl.compile
// gives the CPU its width for sources that include these headers).
#if defined(FL_WARP_SIZE)
#define C10_WARP_SIZE FL_WARP_SIZE
#elif defined(__AMDGCN_WAVEFRONT_SIZE)
#define C10_WARP_SIZE __AMDGCN_WAVEFRONT_SIZE
#elif defined(FL_EMU_WARP_SIZE)
#define C10_WARP_SIZE FL_EMU_WARP_SIZE
#else
#define C10_WARP_SIZE 32
#endif

namespace c10 {

namespace detail {
union float_bits {
  float f;
  uint32_t u;
};
}  // namespace detail

// A c10 type's stored bits, and its constructor from them: T(bits, T::from_bits()).
#define FUSELAB_TORCH_STORED_AS(T, Bits)                                             \
  Bits x;                                                                            \
  struct from_bits_t {};                                                             \
  C10_HOST_DEVICE static constexpr from_bits_t from_bits() { return from_bits_t(); } \
  T() = default;                                                                     \
  C10_HOST_DEVICE constexpr T(Bits bits, from_bits_t) : x(bits) {}

// IEEE binary16, rounded to nearest even by the target's own conversion.
struct alignas(2) Half {
  FUSELAB_TORCH_STORED_AS(Half, unsigned short)
  C10_HOST_DEVICE Half(float value) : x(__half_as_ushort(__float2half(value))) {}
  C10_HOST_DEVICE Half(const __half& value) : x(__half_as_ushort(value)) {}
  C10_HOST_DEVICE operator float() const { return __half2float(__ushort_as_half(x)); }
  // Implicit, as PyTorch's: `atomicAdd(reinterpret_cast<__half*>(p), value)` of a
  // c10::Half value (torch-ngp's grid encoder) takes it.
  C10_HOST_DEVICE operator __half() const { return __ushort_as_half(x); }
};

// bfloat16: a float's upper 16 bits, rounded to nearest even; a NaN stays a quiet NaN.
struct alignas(2) BFloat16 {
  FUSELAB_TORCH_STORED_AS(BFloat16, uint16_t)
  C10_HOST_DEVICE BFloat16(float value) {
    detail::float_bits b;
    b.f = value;
    x = (b.u & 0x7fffffffu) > 0x7f800000u ? uint16_t(0x7fc0) : uint16_t((b.u + 0x7fffu + ((b.u >> 16) & 1u)) >> 16);
  }
  C10_HOST_DEVICE operator float() const {
    detail::float_bits b;
    b.u = uint32_t(x) << 16;
    return b.f;
  }
};

// c10's 8-bit floats: E4M3FN (bias 7, no infinity, 448 the largest, 0x7f and
// 0xff NaN) and E5M2 (bias 15, IEEE-like). From float, each rounds to nearest
// even as c10 does, in integer steps every target takes alike: E4M3FN gives NaN
// from 464 up (past the largest, rounding reaches the NaN code) and from
// infinity, E5M2 infinity from 61440 up.
namespace detail {
C10_HOST_DEVICE inline uint32_t bits_of(float f) {
  float_bits b;
  b.f = f;
  return b.u;
}
C10_HOST_DEVICE inline float float_of(uint32_t u) {
  float_bits b;
  b.u = u;
  return b.f;
}
// mantissa_bits 3 or 2, bias 7 or 15; `past` the magnitude (float bits) from which
// the code is `past_code` (NaN, or E5M2's infinity below its NaNs).
C10_HOST_DEVICE inline uint8_t fp8_from_float(float f, int mantissa_bits, int bias, uint32_t past, bool e5m2) {
  uint32_t u = bits_of(f);
  const uint32_t sign = u & 0x80000000u;
  u ^= sign;
  const int shift = 23 - mantissa_bits;
  uint8_t code;
  if (u >= past) {
    code = e5m2 && u <= 0x7f800000u ? 0x7c : 0x7f;
  } else if (u < static_cast<uint32_t>(127 - bias + 1) << 23) {
    // Below the smallest normal: adding a float whose last place is the code's step rounds to it.
    const uint32_t step = static_cast<uint32_t>(127 + 23 - (bias - 1 + mantissa_bits)) << 23;
    code = static_cast<uint8_t>(bits_of(float_of(u) + float_of(step)) - step);
  } else {
    const uint32_t odd = (u >> shift) & 1u;
    u += (static_cast<uint32_t>(bias - 127) << 23) + ((1u << (shift - 1)) - 1u) + odd;
    code = static_cast<uint8_t>(u >> shift);
  }
  return static_cast<uint8_t>(code | (sign >> 24));
}
}  // namespace detail

struct alignas(1) Float8_e4m3fn {
  FUSELAB_TORCH_STORED_AS(Float8_e4m3fn, uint8_t)
  C10_HOST_DEVICE Float8_e4m3fn(float value) : x(detail::fp8_from_float(value, 3, 7, 0x43f00000u, false)) {}
  C10_HOST_DEVICE operator float() const {
    const uint32_t sign = static_cast<uint32_t>(x & 0x80) << 24;
    const uint32_t exponent = (x >> 3) & 15u, mantissa = x & 7u;
    if (exponent == 15 && mantissa == 7) return detail::float_of(sign | 0x7fc00000u);
    if (exponent == 0) return detail::float_of(sign | detail::bits_of(static_cast<float>(mantissa) * 0.001953125f));  // mantissa * 2^-9
    return detail::float_of(sign | ((exponent + 120u) << 23) | (mantissa << 20));
  }
  C10_HOST_DEVICE bool isnan() const { return (x & 0x7f) == 0x7f; }
};

struct alignas(1) Float8_e5m2 {
  FUSELAB_TORCH_STORED_AS(Float8_e5m2, uint8_t)
  C10_HOST_DEVICE Float8_e5m2(float value) : x(detail::fp8_from_float(value, 2, 15, 0x47800000u, true)) {}
  // The upper byte of an IEEE half.
  C10_HOST_DEVICE operator float() const { return __half2float(__ushort_as_half(static_cast<unsigned short>(x << 8))); }
  C10_HOST_DEVICE bool isnan() const { return (x & 0x7f) > 0x7c; }
  C10_HOST_DEVICE bool isinf() const { return (x & 0x7f) == 0x7c; }
};

// c10's FNUZ 8-bit floats (AMD's): E4M3FNUZ (bias 8, 240 the largest) and E5M2FNUZ
// (bias 16, 57344 the largest), with no infinity, no negative zero and one NaN,
// 0x80, which NaN, infinity and every magnitude from `past` up (2^8, 2^16) give.
// Rounding as the other two: to nearest even, and up past the largest into 0x80.
namespace detail {
C10_HOST_DEVICE inline uint8_t fnuz_from_float(float f, int mantissa_bits, int bias, uint32_t past) {
  const uint32_t magnitude = bits_of(f) & 0x7fffffffu;
  if (magnitude >= past) return 0x80;
  const uint8_t code = fp8_from_float(float_of(magnitude), mantissa_bits, bias, past, false);
  return code == 0 || code >= 0x80 ? code : static_cast<uint8_t>(code | ((bits_of(f) >> 24) & 0x80));
}
C10_HOST_DEVICE inline float fnuz_to_float(uint8_t x, int mantissa_bits, int bias) {
  if (x == 0x80) return float_of(0x7fc00000u);
  const uint32_t sign = static_cast<uint32_t>(x & 0x80) << 24;
  const uint32_t exponent = (x & 0x7fu) >> mantissa_bits, mantissa = x & ((1u << mantissa_bits) - 1u);
  // A subnormal's mantissa counts steps of 2^(1 - bias - mantissa_bits).
  if (exponent == 0) return float_of(sign | bits_of(static_cast<float>(mantissa) * float_of(static_cast<uint32_t>(128 - bias - mantissa_bits) << 23)));
  return float_of(sign | ((exponent + 127u - bias) << 23) | (mantissa << (23 - mantissa_bits)));
}
}  // namespace detail

struct alignas(1) Float8_e4m3fnuz {
  FUSELAB_TORCH_STORED_AS(Float8_e4m3fnuz, uint8_t)
  C10_HOST_DEVICE Float8_e4m3fnuz(float value) : x(detail::fnuz_from_float(value, 3, 8, 0x43800000u)) {}
  C10_HOST_DEVICE operator float() const { return detail::fnuz_to_float(x, 3, 8); }
  C10_HOST_DEVICE bool isnan() const { return x == 0x80; }
};

struct alignas(1) Float8_e5m2fnuz {
  FUSELAB_TORCH_STORED_AS(Float8_e5m2fnuz, uint8_t)
  C10_HOST_DEVICE Float8_e5m2fnuz(float value) : x(detail::fnuz_from_float(value, 2, 16, 0x47800000u)) {}
  C10_HOST_DEVICE operator float() const { return detail::fnuz_to_float(x, 2, 16); }
  C10_HOST_DEVICE bool isnan() const { return x == 0x80; }
  C10_HOST_DEVICE bool isinf() const { return false; }
};

// PyTorch's arithmetic on its 16- and 8-bit types, one definition for each type and
// operator: with its own type, the result rounded back to it; with float or
// double, that type; with an integer, the integer converted first.
#define FUSELAB_TORCH_OPERATOR(T, op)                                                                        \
  C10_HOST_DEVICE inline T operator op(const T& a, const T& b) { return float(a) op float(b); }             \
  C10_HOST_DEVICE inline T& operator op##=(T& a, const T& b) { return a = a op b; }                         \
  C10_HOST_DEVICE inline float operator op(T a, float b) { return float(a) op b; }                          \
  C10_HOST_DEVICE inline float operator op(float a, T b) { return a op float(b); }                          \
  C10_HOST_DEVICE inline float& operator op##=(float& a, const T& b) { return a op##= float(b); }           \
  C10_HOST_DEVICE inline double operator op(T a, double b) { return double(float(a)) op b; }                \
  C10_HOST_DEVICE inline double operator op(double a, T b) { return a op double(float(b)); }                \
  C10_HOST_DEVICE inline T operator op(T a, int b) { return a op T(float(b)); }                             \
  C10_HOST_DEVICE inline T operator op(int a, T b) { return T(float(a)) op b; }                             \
  C10_HOST_DEVICE inline T operator op(T a, int64_t b) { return a op T(float(b)); }                         \
  C10_HOST_DEVICE inline T operator op(int64_t a, T b) { return T(float(a)) op b; }
// Two values of one type compare as floats. A template, so that it takes only
// that type as it is: a Half beside a float still compares as floats, and two
// Halfs do not find the toolkit's __half comparisons (through the conversion to
// __half) as good a match, which PyTorch's builds avoid by turning those off.
#define FUSELAB_TORCH_COMPARISON(T, op)                                                                      \
  template <typename A, typename B, typename std::enable_if<std::is_same<A, T>::value && std::is_same<B, T>::value, int>::type = 0> \
  C10_HOST_DEVICE inline bool operator op(const A& a, const B& b) { return float(a) op float(b); }
#define FUSELAB_TORCH_ARITHMETIC(T)                                             \
  FUSELAB_TORCH_OPERATOR(T, +)                                                  \
  FUSELAB_TORCH_OPERATOR(T, -)                                                  \
  FUSELAB_TORCH_OPERATOR(T, *)                                                  \
  FUSELAB_TORCH_OPERATOR(T, /)                                                  \
  FUSELAB_TORCH_COMPARISON(T, ==)                                               \
  FUSELAB_TORCH_COMPARISON(T, !=)                                               \
  FUSELAB_TORCH_COMPARISON(T, <)                                                \
  FUSELAB_TORCH_COMPARISON(T, <=)                                               \
  FUSELAB_TORCH_COMPARISON(T, >)                                                \
  FUSELAB_TORCH_COMPARISON(T, >=)                                               \
  C10_HOST_DEVICE inline T operator-(const T& a) { return -float(a); }
FUSELAB_TORCH_ARITHMETIC(Half)
FUSELAB_TORCH_ARITHMETIC(BFloat16)
FUSELAB_TORCH_ARITHMETIC(Float8_e4m3fn)
FUSELAB_TORCH_ARITHMETIC(Float8_e5m2)
FUSELAB_TORCH_ARITHMETIC(Float8_e4m3fnuz)
FUSELAB_TORCH_ARITHMETIC(Float8_e5m2fnuz)
#undef FUSELAB_TORCH_OPERATOR
#undef FUSELAB_TORCH_COMPARISON
#undef FUSELAB_TORCH_ARITHMETIC
#undef FUSELAB_TORCH_STORED_AS

}  // namespace c10

#if !defined(__CUDACC_RTC__) && !defined(__HIPCC_RTC__)
// The signature the registry gives a kernel: a Half or BFloat16 by value is a 16-bit
// float from TS, as __half is (its two bytes are the value's), and a pointer to one
// points to a tensor of that dtype.
namespace fl {
template <> struct type_name<c10::Half> { static const char* get() { return "f16"; } };
template <> struct type_name<c10::BFloat16> { static const char* get() { return "bf16"; } };
}  // namespace fl
#endif

// std::numeric_limits of the 16- and 8-bit types, as c10 gives them, specialized
// where the target's std finds its limits: cuda::std under NVRTC, fuselab's under
// hiprtc. One template: each value a parameter, each constant as its bits.
namespace c10 {
namespace detail {
template <typename T, unsigned short Lowest, unsigned short Max, unsigned short Min, unsigned short Epsilon,
          unsigned short RoundError, unsigned short Infinity, unsigned short QuietNaN, unsigned short SignalingNaN,
          bool HasInfinity, bool HasSignalingNaN, int Digits, int Digits10, int MaxDigits10, int MinExponent,
          int MinExponent10, int MaxExponent, int MaxExponent10>
struct float_limits {
  static constexpr bool is_specialized = true;
  static constexpr bool is_signed = true;
  static constexpr bool is_integer = false;
  static constexpr bool is_exact = false;
  static constexpr bool has_infinity = HasInfinity;
  static constexpr bool has_quiet_NaN = true;
  static constexpr bool has_signaling_NaN = HasSignalingNaN;
  static constexpr bool has_denorm_loss = false;
  static constexpr bool is_iec559 = false;
  static constexpr bool is_bounded = true;
  static constexpr bool is_modulo = false;
  static constexpr bool traps = false;
  static constexpr bool tinyness_before = false;
  static constexpr int digits = Digits;
  static constexpr int digits10 = Digits10;
  static constexpr int max_digits10 = MaxDigits10;
  static constexpr int radix = 2;
  static constexpr int min_exponent = MinExponent;
  static constexpr int min_exponent10 = MinExponent10;
  static constexpr int max_exponent = MaxExponent;
  static constexpr int max_exponent10 = MaxExponent10;
  C10_HOST_DEVICE static constexpr T min() { return T(Min, T::from_bits()); }
  C10_HOST_DEVICE static constexpr T lowest() { return T(Lowest, T::from_bits()); }
  C10_HOST_DEVICE static constexpr T max() { return T(Max, T::from_bits()); }
  C10_HOST_DEVICE static constexpr T epsilon() { return T(Epsilon, T::from_bits()); }
  C10_HOST_DEVICE static constexpr T round_error() { return T(RoundError, T::from_bits()); }
  C10_HOST_DEVICE static constexpr T infinity() { return T(Infinity, T::from_bits()); }
  C10_HOST_DEVICE static constexpr T quiet_NaN() { return T(QuietNaN, T::from_bits()); }
  C10_HOST_DEVICE static constexpr T signaling_NaN() { return T(SignalingNaN, T::from_bits()); }
  C10_HOST_DEVICE static constexpr T denorm_min() { return T(1, T::from_bits()); }
};
using half_limits = float_limits<Half, 0xfbff, 0x7bff, 0x0400, 0x1400, 0x3800, 0x7c00, 0x7e00, 0x7d00, true, true, 11, 3, 5, -13, -4, 16, 4>;
using bfloat16_limits = float_limits<BFloat16, 0xff7f, 0x7f7f, 0x0080, 0x3c00, 0x3f00, 0x7f80, 0x7fc0, 0x7fa0, true, true, 8, 2, 4, -125, -37, 128, 38>;
// E4M3FN has no infinity (its infinity() is its NaN), and neither 8-bit type a signaling NaN.
using e4m3fn_limits = float_limits<Float8_e4m3fn, 0xfe, 0x7e, 0x08, 0x20, 0x30, 0x7f, 0x7f, 0x7f, false, false, 4, 0, 3, -5, -1, 9, 2>;
using e5m2_limits = float_limits<Float8_e5m2, 0xfb, 0x7b, 0x04, 0x34, 0x38, 0x7c, 0x7f, 0x7f, true, false, 3, 0, 2, -13, -4, 16, 4>;
// The FNUZ types' infinity() is their NaN too.
using e4m3fnuz_limits = float_limits<Float8_e4m3fnuz, 0xff, 0x7f, 0x08, 0x28, 0x38, 0x80, 0x80, 0x80, false, false, 4, 0, 3, -6, -2, 8, 2>;
using e5m2fnuz_limits = float_limits<Float8_e5m2fnuz, 0xff, 0x7f, 0x04, 0x38, 0x3c, 0x80, 0x80, 0x80, false, false, 3, 0, 2, -14, -4, 16, 4>;
}  // namespace detail
}  // namespace c10

#if defined(__CUDACC_RTC__)
namespace cuda {
namespace std {
template <> struct numeric_limits<c10::Half> : c10::detail::half_limits {};
template <> struct numeric_limits<c10::BFloat16> : c10::detail::bfloat16_limits {};
template <> struct numeric_limits<c10::Float8_e4m3fn> : c10::detail::e4m3fn_limits {};
template <> struct numeric_limits<c10::Float8_e5m2> : c10::detail::e5m2_limits {};
template <> struct numeric_limits<c10::Float8_e4m3fnuz> : c10::detail::e4m3fnuz_limits {};
template <> struct numeric_limits<c10::Float8_e5m2fnuz> : c10::detail::e5m2fnuz_limits {};
}  // namespace std
}  // namespace cuda
#elif defined(__HIPCC_RTC__)
namespace fuselab_rtc_std {
template <> struct numeric_limits<c10::Half> : c10::detail::half_limits {};
template <> struct numeric_limits<c10::BFloat16> : c10::detail::bfloat16_limits {};
template <> struct numeric_limits<c10::Float8_e4m3fn> : c10::detail::e4m3fn_limits {};
template <> struct numeric_limits<c10::Float8_e5m2> : c10::detail::e5m2_limits {};
template <> struct numeric_limits<c10::Float8_e4m3fnuz> : c10::detail::e4m3fnuz_limits {};
template <> struct numeric_limits<c10::Float8_e5m2fnuz> : c10::detail::e5m2fnuz_limits {};
}  // namespace fuselab_rtc_std
#else
namespace std {
template <> struct numeric_limits<c10::Half> : c10::detail::half_limits {};
template <> struct numeric_limits<c10::BFloat16> : c10::detail::bfloat16_limits {};
template <> struct numeric_limits<c10::Float8_e4m3fn> : c10::detail::e4m3fn_limits {};
template <> struct numeric_limits<c10::Float8_e5m2> : c10::detail::e5m2_limits {};
template <> struct numeric_limits<c10::Float8_e4m3fnuz> : c10::detail::e4m3fnuz_limits {};
template <> struct numeric_limits<c10::Float8_e5m2fnuz> : c10::detail::e5m2fnuz_limits {};
}  // namespace std
#endif

// c10's loads through the read-only cache, as the toolkit's __ldg takes no class types.
// c10 declares Half's for CUDA only: a ROCm build (USE_ROCM, AMD's platform) has none,
// and its extensions define their own (torch_sparse's utils.cuh).
#if defined(USE_ROCM) || defined(__HIP__)
#define FUSELAB_TORCH_HALF_LDG 0
#else
#define FUSELAB_TORCH_HALF_LDG 1
#endif
#if (defined(__CUDACC__) && !defined(FL_TARGET_CPU)) || defined(__CUDACC_RTC__)
#if FUSELAB_TORCH_HALF_LDG
__device__ __forceinline__ c10::Half __ldg(const c10::Half* p) {
  return c10::Half(__ldg(reinterpret_cast<const unsigned short*>(p)), c10::Half::from_bits());
}
#endif
__device__ __forceinline__ c10::BFloat16 __ldg(const c10::BFloat16* p) {
  return c10::BFloat16(__ldg(reinterpret_cast<const unsigned short*>(p)), c10::BFloat16::from_bits());
}
#else
#if FUSELAB_TORCH_HALF_LDG
__device__ __forceinline__ c10::Half __ldg(const c10::Half* p) { return *p; }
#endif
__device__ __forceinline__ c10::BFloat16 __ldg(const c10::BFloat16* p) { return *p; }
#endif
#undef FUSELAB_TORCH_HALF_LDG

// PyTorch's BFloat16 converts to __nv_bfloat16 only explicitly: the toolkit's
// conversion of one takes it directly.
C10_HOST_DEVICE inline float __bfloat162float(const c10::BFloat16& value) { return float(value); }

namespace at {
using c10::BFloat16;
using c10::Float8_e4m3fn;
using c10::Float8_e5m2;
using c10::Float8_e4m3fnuz;
using c10::Float8_e5m2fnuz;
using c10::Half;

// The type a kernel computes in (at::opmath_type<scalar_t>) and accumulates in
// (at::acc_type<scalar_t, /*is_cuda=*/true>), as PyTorch chooses them.
template <typename T> struct OpMathType { using type = T; };
template <> struct OpMathType<Half> { using type = float; };
template <> struct OpMathType<BFloat16> { using type = float; };
template <typename T> using opmath_type = typename OpMathType<T>::type;

template <typename T, bool is_cuda> struct AccumulateType { using type = T; };
template <bool is_cuda> struct AccumulateType<Half, is_cuda> { using type = float; };
template <bool is_cuda> struct AccumulateType<BFloat16, is_cuda> { using type = float; };
template <> struct AccumulateType<float, false> { using type = double; };
template <bool is_cuda> struct AccumulateType<bool, is_cuda> { using type = bool; };
template <bool is_cuda> struct AccumulateType<int8_t, is_cuda> { using type = int64_t; };
template <bool is_cuda> struct AccumulateType<uint8_t, is_cuda> { using type = int64_t; };
template <bool is_cuda> struct AccumulateType<char, is_cuda> { using type = int64_t; };
template <bool is_cuda> struct AccumulateType<int16_t, is_cuda> { using type = int64_t; };
template <bool is_cuda> struct AccumulateType<int32_t, is_cuda> { using type = int64_t; };
template <typename T, bool is_cuda> using acc_type = typename AccumulateType<T, is_cuda>::type;

// Tensor accessors. A kernel takes a PackedTensorAccessor32/64 by value: the data
// pointer, then the sizes and the strides (in elements) of its N dimensions,
// packed at launch from the tensor passed (src/kernel.ts). Indexing with [] walks
// a dimension at a time, as PyTorch's does.
template <typename T> struct DefaultPtrTraits { typedef T* PtrType; };
template <typename T> struct RestrictPtrTraits { typedef T* __restrict__ PtrType; };

template <typename T, size_t N, template <typename U> class PtrTraits, typename index_t>
class TensorAccessor;

// An accessor's sizes and strides: pointers into its parent's (TensorAccessor),
// or arrays of its own (the packed ones, which a kernel takes by value).
template <typename T, template <typename U> class PtrTraits, typename index_t, typename Counts>
class AccessorData {
 public:
  typedef typename PtrTraits<T>::PtrType PtrType;
  AccessorData() = default;
  C10_HOST_DEVICE AccessorData(PtrType data, Counts sizes, Counts strides) : data_(data), sizes_(sizes), strides_(strides) {}
  C10_HOST_DEVICE index_t size(index_t i) const { return sizes_[i]; }
  C10_HOST_DEVICE index_t stride(index_t i) const { return strides_[i]; }
  C10_HOST_DEVICE PtrType data() { return data_; }
  C10_HOST_DEVICE const T* data() const { return data_; }

 protected:
  PtrType data_;
  Counts sizes_;
  Counts strides_;
};

// Indexing with []: a dimension at a time, down to an element.
template <typename Data, typename T, size_t N, template <typename U> class PtrTraits, typename index_t>
class Indexed : public Data {
 public:
  using Data::Data;
  C10_HOST_DEVICE TensorAccessor<T, N - 1, PtrTraits, index_t> operator[](index_t i) const {
    return TensorAccessor<T, N - 1, PtrTraits, index_t>(this->data_ + this->strides_[0] * i, this->sizes_ + 1, this->strides_ + 1);
  }
};
template <typename Data, typename T, template <typename U> class PtrTraits, typename index_t>
class Indexed<Data, T, 1, PtrTraits, index_t> : public Data {
 public:
  using Data::Data;
  C10_HOST_DEVICE T& operator[](index_t i) const { return this->data_[this->strides_[0] * i]; }
};

template <typename T, size_t N, template <typename U> class PtrTraits = DefaultPtrTraits, typename index_t = int64_t>
class TensorAccessor : public Indexed<AccessorData<T, PtrTraits, index_t, const index_t*>, T, N, PtrTraits, index_t> {
  using Indexed<AccessorData<T, PtrTraits, index_t, const index_t*>, T, N, PtrTraits, index_t>::Indexed;
};

template <typename T, size_t N, template <typename U> class PtrTraits = DefaultPtrTraits, typename index_t = int64_t>
class GenericPackedTensorAccessor : public Indexed<AccessorData<T, PtrTraits, index_t, index_t[N]>, T, N, PtrTraits, index_t> {};

template <typename T, size_t N, template <typename U> class PtrTraits = DefaultPtrTraits>
using PackedTensorAccessor32 = GenericPackedTensorAccessor<T, N, PtrTraits, int32_t>;
template <typename T, size_t N, template <typename U> class PtrTraits = DefaultPtrTraits>
using PackedTensorAccessor64 = GenericPackedTensorAccessor<T, N, PtrTraits, int64_t>;
template <typename T, size_t N, template <typename U> class PtrTraits = DefaultPtrTraits, typename index_t = int64_t>
using PackedTensorAccessor = GenericPackedTensorAccessor<T, N, PtrTraits, index_t>;

// The host API, by name only.
class Tensor;
class TensorOptions;
enum class ScalarType : int8_t;
namespace cuda {}
}  // namespace at

// std::optional, as the host functions' declarations name it (pytorch_scatter's
// `std::optional<torch::Tensor>`, pytorch_cluster's `torch::optional`), also as
// c10::, at:: and torch::optional: the host's, NVRTC's cuda::std one, and under
// hiprtc, which has none, its name.
#if defined(__HIPCC_RTC__)
namespace std {
template <typename T> class optional;
struct nullopt_t {
  explicit constexpr nullopt_t(int) {}
};
constexpr nullopt_t nullopt{0};
}  // namespace std
#elif defined(__CUDACC_RTC__)
#include <cuda/std/optional>
#else
#include <optional>
#endif

namespace c10 {
using at::Tensor;
using std::nullopt;
using std::optional;
namespace cuda {}
}  // namespace c10

namespace at {
using c10::nullopt;
using c10::optional;
}  // namespace at

namespace torch {
using namespace at;
// PyTorch's stable ABI (torch/csrc/stable/, PyTorch 2.9 on: current torchvision's and
// vLLM's host code), by name only, with the AOT shim's handle types.
namespace stable {
class Tensor;
class Device;
namespace accelerator {
class DeviceGuard;
}  // namespace accelerator
}  // namespace stable
}  // namespace torch
typedef struct AtenTensorOpaque* AtenTensorHandle;
typedef int32_t AOTITorchError;

namespace pybind11 {}
#endif
