// The 16-bit float API of cuda_fp16.h / cuda_bf16.h (and HIP's hip_fp16.h) on
// the CPU. Every __half and __nv_bfloat16 operation rounds its result to 16 bits
// as the GPU's f16 and bf16 instructions do, so outputs are bit-identical:
//  - add, sub, mul, div and sqrt are computed in float and rounded once more to
//    16 bits; float carries at least 2p+2 bits of a 16-bit type's p, so the
//    double rounding gives the correctly rounded result;
//  - fma is rounded to odd on the way (round_to_odd), which keeps it exact too;
//  - the transcendental functions (hexp, hlog, hsin ...) are the float
//    function rounded to 16 bits; the GPU's approximations may differ in the
//    last bit there, as they do between GPU generations.
#ifndef FUSELAB_EMULATOR_HALF_H
#define FUSELAB_EMULATOR_HALF_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include <limits>
#include <type_traits>

#include "types.h"

// Float to integer: out-of-range values clamp and NaN gives 0, as the GPU's cvt
// does (the intrinsics __float2int_rz ... and the 16-bit types' conversions),
// but for a 64-bit type, signed or not, which it gives 0x8000000000000000
// (measured on an H200: __float2ll_rz, __float2ull_rz, __half2ull_rz ...).
template <typename I> inline I fl_float_to_int(double v) {
  if (v != v) return sizeof(I) == 8 ? static_cast<I>(uint64_t(1) << 63) : I(0);
  if (v <= static_cast<double>(std::numeric_limits<I>::min())) return std::numeric_limits<I>::min();
  if (v >= static_cast<double>(std::numeric_limits<I>::max())) return std::numeric_limits<I>::max();
  return static_cast<I>(v);
}

enum fl_rounding { FL_ROUND_NEAREST, FL_ROUND_ZERO, FL_ROUND_DOWN, FL_ROUND_UP };

// An integer (or a double) rounded to the floating type F: the nearest value,
// stepped once toward the rounding's direction when it lies on the wrong side
// (a long double holds every 64-bit integer, float and double exactly).
template <typename F, typename V> inline F fl_int_to_float(V v, fl_rounding mode) {
  F f = static_cast<F>(v);
  const long double exact = static_cast<long double>(v), got = f;
  const F inf = std::numeric_limits<F>::infinity();
  if (mode == FL_ROUND_ZERO && (got > exact ? exact >= 0 : got < exact && exact < 0)) f = nextafter(f, F(0));
  if (mode == FL_ROUND_DOWN && got > exact) f = nextafter(f, -inf);
  if (mode == FL_ROUND_UP && got < exact) f = nextafter(f, inf);
  return f;
}

namespace fl {
namespace emu {

// IEEE binary16: 1 sign, 5 exponent, 10 mantissa bits.
inline float half_bits_to_float(uint16_t h) {
  uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  uint32_t exponent = (h >> 10) & 0x1fu;
  uint32_t mantissa = h & 0x3ffu;
  if (exponent == 0x1f) return bits_float(sign | 0x7f800000u | (mantissa << 13));  // Inf, NaN
  if (exponent != 0) return bits_float(sign | ((exponent + 112) << 23) | (mantissa << 13));
  if (mantissa == 0) return bits_float(sign);
  // Subnormal: mantissa * 2^-24, exact in float.
  float magnitude = static_cast<float>(mantissa) * (1.0f / 16777216.0f);
  return sign ? -magnitude : magnitude;
}

// Round to nearest even, as the GPU's cvt.rn.f16.f32; a NaN becomes the GPU's
// canonical NaN, 0x7fff (so do the results of f16 and bf16 arithmetic).
inline uint16_t float_to_half_bits(float f) {
  uint32_t x = float_bits(f);
  uint16_t sign = static_cast<uint16_t>((x >> 16) & 0x8000u);
  x &= 0x7fffffffu;
  if (x > 0x7f800000u) return 0x7fffu;  // NaN: the GPU's one NaN
  if (x >= 0x477ff000u) return sign | 0x7c00u;  // >= 65520 rounds to Inf
  uint32_t exponent = x >> 23;
  uint32_t mantissa = x & 0x7fffffu;
  if (exponent >= 113) {  // a normal half
    uint32_t h = ((exponent - 112) << 10) | (mantissa >> 13);
    uint32_t rest = mantissa & 0x1fffu;
    if (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) h++;  // a carry rolls into the exponent, as it should
    return sign | static_cast<uint16_t>(h);
  }
  if (x <= 0x33000000u) return sign;  // at most 2^-25: rounds to zero (the tie goes to even, zero)
  // A subnormal half: round(f / 2^-24). f = (1.mantissa) * 2^(exponent-127).
  uint32_t significand = mantissa | 0x800000u;
  uint32_t shift = 126 - exponent;  // 14..24
  uint32_t h = significand >> shift;
  uint32_t rest = significand & ((1u << shift) - 1);
  uint32_t halfway = 1u << (shift - 1);
  if (rest > halfway || (rest == halfway && (h & 1u))) h++;
  return sign | static_cast<uint16_t>(h);
}

// Toward zero: the GPU's _rz conversions.
inline uint16_t float_to_half_bits_rz(float f) {
  uint16_t h = float_to_half_bits(f);
  if (f != f) return h;
  float back = half_bits_to_float(h);
  if (fabsf(back) > fabsf(f)) h = static_cast<uint16_t>(h - 1);  // one step toward zero, in magnitude
  return h;
}

inline float bf16_bits_to_float(uint16_t h) { return bits_float(static_cast<uint32_t>(h) << 16); }

// Round to nearest even; NaN gives the GPU's one NaN.
inline uint16_t float_to_bf16_bits(float f) {
  uint32_t u = float_bits(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return 0x7fffu;
  u += 0x7fffu + ((u >> 16) & 1u);
  return static_cast<uint16_t>(u >> 16);
}

// A double rounded to float toward zero, its last bit set when inexact (round
// to odd): rounding that again to a narrower type gives the correct rounding of
// the double.
inline float round_to_odd(double d) {
  float f = static_cast<float>(d);
  if (static_cast<double>(f) == d || d != d || isinf(d)) return f;
  if (fabs(static_cast<double>(f)) > fabs(d)) f = nextafterf(f, 0.0f);
  return bits_float(float_bits(f) | 1u);
}

// a * b + c with one rounding, to float, rounded to odd: a * b is exact in
// double (16-bit operands), the sum's error is recovered exactly (two-sum).
inline float fma_to_odd(float a, float b, float c) {
  double product = static_cast<double>(a) * b;
  double sum = product + c;
  double bb = sum - product;
  double error = (product - (sum - bb)) + (c - bb);
  if (error != 0 && sum == sum && !isinf(sum)) {
    // Rounded away from the exact value: step back toward it, then mark inexact.
    if ((error > 0) != (sum > 0)) sum = nextafter(sum, 0.0);
    uint64_t bits;
    memcpy(&bits, &sum, sizeof bits);
    bits |= 1u;
    memcpy(&sum, &bits, sizeof sum);
  }
  return round_to_odd(sum);
}

}  // namespace emu
}  // namespace fl

struct __half_raw {
  unsigned short x;
};
struct __half2_raw {
  unsigned short x, y;
};

// From the compiler's _Float16, which HIP's __half holds (MIOpen's static_cast<_Float16>(acc)
// stored to a half*): exact in float, then rounded once.
#if defined(__FLT16_MAX__)
#define FL_FROM_FLOAT16(T) T(_Float16 h) : T(static_cast<float>(h)) {}
#else
#define FL_FROM_FLOAT16(T)
#endif

// Constructors and conversions of a 16-bit float type T, as CUDA gives them:
// implicit from and to float, double and the integer types (integer
// conversions truncate), and from and to its raw bits.
#define FL_HALF_CONVERSIONS(T, RAW, FROM_FLOAT, TO_FLOAT)                                       \
  T() = default;                                                                                \
  constexpr T(const RAW& r) : __x(r.x) {}                                                       \
  T(float f) : __x(FROM_FLOAT(f)) {}                                                            \
  T(double d) : __x(FROM_FLOAT(fl::emu::round_to_odd(d))) {}                                    \
  FL_FROM_FLOAT16(T)                                                                            \
  T(short v) : T(static_cast<float>(v)) {}                                                      \
  T(unsigned short v) : T(static_cast<float>(v)) {}                                             \
  T(int v) : T(static_cast<double>(v)) {}                                                       \
  T(unsigned int v) : T(static_cast<double>(v)) {}                                              \
  T(long v) : T(static_cast<double>(v)) {}                                                      \
  T(unsigned long v) : T(static_cast<double>(v)) {}                                             \
  T(long long v) : T(static_cast<double>(v)) {}                                                 \
  T(unsigned long long v) : T(static_cast<double>(v)) {}                                        \
  operator RAW() const { return {__x}; }                                                        \
  operator float() const { return TO_FLOAT(__x); }                                              \
  operator signed char() const { return fl_float_to_int<signed char>(float(*this)); }           \
  operator unsigned char() const { return fl_float_to_int<unsigned char>(float(*this)); }       \
  operator char() const { return fl_float_to_int<char>(float(*this)); }                         \
  operator short() const { return fl_float_to_int<short>(float(*this)); }                       \
  operator unsigned short() const { return fl_float_to_int<unsigned short>(float(*this)); }     \
  operator int() const { return fl_float_to_int<int>(float(*this)); }                           \
  operator unsigned int() const { return fl_float_to_int<unsigned int>(float(*this)); }         \
  operator long() const { return fl_float_to_int<long>(float(*this)); }                         \
  operator unsigned long() const { return fl_float_to_int<unsigned long>(float(*this)); }       \
  operator long long() const { return fl_float_to_int<long long>(float(*this)); }               \
  operator unsigned long long() const { return fl_float_to_int<unsigned long long>(float(*this)); } \
  constexpr operator bool() const { return (__x & 0x7fffu) != 0; }

// f16 as its 16 bits. Trivial to construct, so it can live in __shared__ arrays.
struct alignas(2) __half {
  unsigned short __x;
  FL_HALF_CONVERSIONS(__half, __half_raw, fl::emu::float_to_half_bits, fl::emu::half_bits_to_float)
};

struct alignas(2) __nv_bfloat16_raw {
  unsigned short x;
};
struct alignas(4) __nv_bfloat162_raw {
  unsigned short x, y;
};

// bf16 as its 16 bits.
struct alignas(2) __nv_bfloat16 {
  unsigned short __x;
  FL_HALF_CONVERSIONS(__nv_bfloat16, __nv_bfloat16_raw, fl::emu::float_to_bf16_bits, fl::emu::bf16_bits_to_float)
  explicit __nv_bfloat16(__half h) : __nv_bfloat16(float(h)) {}
};
#undef FL_HALF_CONVERSIONS

typedef __half half;
typedef __nv_bfloat16 nv_bfloat16;
typedef __nv_bfloat16 __hip_bfloat16;
typedef __nv_bfloat16 hip_bfloat16;
typedef __nv_bfloat16 fl_bf16;

struct alignas(4) __half2 {
  __half x, y;
  __half2() = default;
  constexpr __half2(const __half& a, const __half& b) : x(a), y(b) {}
  __half2(const __half2_raw& r) : x(__half_raw{r.x}), y(__half_raw{r.y}) {}
  operator __half2_raw() const { return {x.__x, y.__x}; }
};
struct alignas(4) __nv_bfloat162 {
  __nv_bfloat16 x, y;
  __nv_bfloat162() = default;
  constexpr __nv_bfloat162(const __nv_bfloat16& a, const __nv_bfloat16& b) : x(a), y(b) {}
  __nv_bfloat162(const __nv_bfloat162_raw& r) : x(__nv_bfloat16_raw{r.x}), y(__nv_bfloat16_raw{r.y}) {}
  operator __nv_bfloat162_raw() const { return {x.__x, y.__x}; }
};
typedef __half2 half2;
typedef __nv_bfloat162 nv_bfloat162;
typedef __nv_bfloat162 __hip_bfloat162;

// ---- products an add can fuse with
// ptxas fuses a 16-bit multiply whose result goes only into adds and subtracts
// into one fma.rn, rounded once: mul.f16 into add.f16 and sub.f16 (on sm_90
// also their bf16 forms), which are what the operators, +=, -=, __hmul, __hadd,
// __hsub and __hneg compile to; the _rn forms are never fused, and of two
// products added, the left one is (measured on an H200, docs/gpu-runs.md). So a
// product here is its rounded value with its factors kept, and an add or
// subtract it goes straight into rounds once. Stored in a named __half, a
// product is rounded there, where ptxas may still fuse it (docs/ARCHITECTURE.md).
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
#define FL_FUSES_BF16 false  // before sm_90, bf16's mul and add are fma.rn forms
#else
#define FL_FUSES_BF16 true
#endif
template <typename H> struct fl_product : H {
  H left, right;
  fl_product() = default;
  fl_product(H a, H b) : H(rounded(a, b)), left(a), right(b) {}
  fl_product(H a, H b, H rounded) : H(rounded), left(a), right(b) {}
  // Made from a value (T(0) in a template given a product), it is that value
  // times one; explicit, so that `c ? a * b : h` still takes the __half.
  template <typename A, typename = typename std::enable_if<std::is_constructible<H, const A&>::value &&
                                                           !std::is_base_of<fl_product, A>::value>::type>
  explicit fl_product(const A& value) : H(value), left(static_cast<const H&>(*this)), right(1.0f) {}
  // Assigned a plain value, it is that value times one.
  fl_product& operator=(const H& h) { return *this = fl_product(h); }
  // Whether the value is still the factors' product (not changed through an H&).
  bool whole() const { return rounded(left, right).__x == this->__x; }
  static H rounded(H a, H b) { return H(float(a) * float(b)); }
};
template <typename H> constexpr bool fl_fuses() { return !std::is_same<H, __nv_bfloat16>::value || FL_FUSES_BF16; }
#undef FL_FUSES_BF16
// sign * p + c: rounded once where p is still a product ptxas would fuse.
template <typename H> inline H fl_multiply_add(const fl_product<H>& p, float sign, const H& c) {
  if (!fl_fuses<H>() || !p.whole()) return H(sign * float(static_cast<const H&>(p)) + float(c));
  return H(fl::emu::fma_to_odd(sign * float(p.left), float(p.right), float(c)));
}
// -p, still a product (-(a * b) + c is fused too).
template <typename H> inline fl_product<H> fl_negated(const fl_product<H>& p) {
  H negated = p, left = p.left;
  negated.__x ^= 0x8000u;
  left.__x ^= 0x8000u;
  return p.whole() ? fl_product<H>(left, p.right, negated) : fl_product<H>(negated);
}
// Moved by a shuffle, a product is its rounded value times one (runtime.h).
template <typename H> inline fl_product<H> fl_as_register(const fl_product<H>& p) { return fl_product<H>(static_cast<const H&>(p)); }
// A pair's product: each lane a product.
template <typename H, typename H2> struct fl_pair_product : H2 {
  H2 left, right;
  fl_pair_product() = default;
  fl_pair_product(H2 a, H2 b) : H2(fl_product<H>(a.x, b.x), fl_product<H>(a.y, b.y)), left(a), right(b) {}
  fl_pair_product(fl_product<H> x, fl_product<H> y) : H2(x, y), left(x.left, y.left), right(x.right, y.right) {}
  fl_pair_product& operator=(const H2& h) { return *this = fl_pair_product(fl_product<H>(h.x), fl_product<H>(h.y)); }
  fl_product<H> lane_x() const { return {left.x, right.x, this->x}; }
  fl_product<H> lane_y() const { return {left.y, right.y, this->y}; }
};
template <typename H, typename H2> inline fl_pair_product<H, H2> fl_as_register(const fl_pair_product<H, H2>& p) {
  return {fl_product<H>(p.x), fl_product<H>(p.y)};
}

// ---- conversions
FL_INTRINSIC float __half2float(__half h) { return float(h); }
FL_INTRINSIC __half __float2half(float f) { return __half(f); }
FL_INTRINSIC __half __float2half_rn(float f) { return __half(f); }
FL_INTRINSIC __half __float2half_rz(float f) { return __half_raw{fl::emu::float_to_half_bits_rz(f)}; }
FL_INTRINSIC __half __double2half(double d) { return __half(d); }
FL_INTRINSIC __half2 __float2half2_rn(float f) { return {__half(f), __half(f)}; }
FL_INTRINSIC __half2 __floats2half2_rn(float a, float b) { return {__half(a), __half(b)}; }
FL_INTRINSIC __half2 __float22half2_rn(float2 f) { return {__half(f.x), __half(f.y)}; }
FL_INTRINSIC float2 __half22float2(__half2 h) { return {float(h.x), float(h.y)}; }
FL_INTRINSIC float __low2float(__half2 h) { return float(h.x); }
FL_INTRINSIC float __high2float(__half2 h) { return float(h.y); }
FL_INTRINSIC __half __low2half(__half2 h) { return h.x; }
FL_INTRINSIC __half __high2half(__half2 h) { return h.y; }
FL_INTRINSIC __half2 __halves2half2(__half lo, __half hi) { return {lo, hi}; }
FL_INTRINSIC __half2 __half2half2(__half h) { return {h, h}; }
FL_INTRINSIC __half2 make_half2(__half x, __half y) { return {x, y}; }
FL_INTRINSIC __half2 __lows2half2(__half2 a, __half2 b) { return {a.x, b.x}; }
FL_INTRINSIC __half2 __highs2half2(__half2 a, __half2 b) { return {a.y, b.y}; }
FL_INTRINSIC __half2 __low2half2(__half2 a) { return {a.x, a.x}; }
FL_INTRINSIC __half2 __high2half2(__half2 a) { return {a.y, a.y}; }
FL_INTRINSIC __half2 __lowhigh2highlow(__half2 a) { return {a.y, a.x}; }
// A 16-bit float to an integer type, each rounding (saturating, NaN giving 0,
// as cvt does), and an integer to it: to nearest, or toward zero (an integer
// first rounded toward zero to float: two truncations make one).
#define FL_INTEGER_CONVERSIONS(H, P, I, T)                                                                   \
  FL_INTRINSIC T __##P##2##I##_rn(H h) { return fl_float_to_int<T>(rintf(float(h))); }                        \
  FL_INTRINSIC T __##P##2##I##_rz(H h) { return fl_float_to_int<T>(truncf(float(h))); }                       \
  FL_INTRINSIC T __##P##2##I##_rd(H h) { return fl_float_to_int<T>(floorf(float(h))); }                       \
  FL_INTRINSIC T __##P##2##I##_ru(H h) { return fl_float_to_int<T>(ceilf(float(h))); }                        \
  FL_INTRINSIC H __##I##2##P##_rn(T v) { return H(fl_int_to_float<float>(v, FL_ROUND_NEAREST)); }             \
  FL_INTRINSIC H __##I##2##P##_rz(T v) { return fl_##P##_rz(fl_int_to_float<float>(v, FL_ROUND_ZERO)); }
#define FL_ALL_INTEGER_CONVERSIONS(H, P)                 \
  FL_INTEGER_CONVERSIONS(H, P, int, int)                 \
  FL_INTEGER_CONVERSIONS(H, P, uint, unsigned int)       \
  FL_INTEGER_CONVERSIONS(H, P, short, short)             \
  FL_INTEGER_CONVERSIONS(H, P, ushort, unsigned short)   \
  FL_INTEGER_CONVERSIONS(H, P, ll, long long)            \
  FL_INTEGER_CONVERSIONS(H, P, ull, unsigned long long)
FL_INTRINSIC __half fl_half_rz(float f) { return __half_raw{fl::emu::float_to_half_bits_rz(f)}; }
FL_INTRINSIC __nv_bfloat16 __float2bfloat16_rz(float f) {
  uint32_t bits;
  memcpy(&bits, &f, 4);
  return __nv_bfloat16_raw{static_cast<unsigned short>(f != f ? 0x7fffu : bits >> 16)};
}
FL_INTRINSIC __nv_bfloat16 fl_bfloat16_rz(float f) { return __float2bfloat16_rz(f); }
FL_ALL_INTEGER_CONVERSIONS(__half, half)
FL_ALL_INTEGER_CONVERSIONS(__nv_bfloat16, bfloat16)
#undef FL_ALL_INTEGER_CONVERSIONS
#undef FL_INTEGER_CONVERSIONS
FL_INTRINSIC signed char __half2char_rz(__half h) { return fl_float_to_int<signed char>(truncf(float(h))); }
FL_INTRINSIC unsigned char __half2uchar_rz(__half h) { return fl_float_to_int<unsigned char>(truncf(float(h))); }
FL_INTRINSIC signed char __bfloat162char_rz(__nv_bfloat16 h) { return fl_float_to_int<signed char>(truncf(float(h))); }
FL_INTRINSIC unsigned char __bfloat162uchar_rz(__nv_bfloat16 h) { return fl_float_to_int<unsigned char>(truncf(float(h))); }
FL_INTRINSIC short __half_as_short(__half h) { return static_cast<short>(h.__x); }
FL_INTRINSIC unsigned short __half_as_ushort(__half h) { return h.__x; }
FL_INTRINSIC __half __short_as_half(short v) { return __half_raw{static_cast<unsigned short>(v)}; }
FL_INTRINSIC __half __ushort_as_half(unsigned short v) { return __half_raw{v}; }

FL_INTRINSIC float __bfloat162float(__nv_bfloat16 h) { return float(h); }
FL_INTRINSIC __nv_bfloat16 __float2bfloat16(float f) { return __nv_bfloat16(f); }
FL_INTRINSIC __nv_bfloat16 __float2bfloat16_rn(float f) { return __nv_bfloat16(f); }
FL_INTRINSIC __nv_bfloat16 __double2bfloat16(double d) { return __nv_bfloat16(d); }
FL_INTRINSIC __nv_bfloat162 __float2bfloat162_rn(float f) { return {__nv_bfloat16(f), __nv_bfloat16(f)}; }
FL_INTRINSIC __nv_bfloat162 __floats2bfloat162_rn(float a, float b) { return {__nv_bfloat16(a), __nv_bfloat16(b)}; }
FL_INTRINSIC __nv_bfloat162 __float22bfloat162_rn(float2 f) { return {__nv_bfloat16(f.x), __nv_bfloat16(f.y)}; }
FL_INTRINSIC float2 __bfloat1622float2(__nv_bfloat162 h) { return {float(h.x), float(h.y)}; }
FL_INTRINSIC __nv_bfloat162 __halves2bfloat162(__nv_bfloat16 lo, __nv_bfloat16 hi) { return {lo, hi}; }
FL_INTRINSIC __nv_bfloat162 __bfloat162bfloat162(__nv_bfloat16 h) { return {h, h}; }
FL_INTRINSIC __nv_bfloat162 make_bfloat162(__nv_bfloat16 x, __nv_bfloat16 y) { return {x, y}; }
FL_INTRINSIC short __bfloat16_as_short(__nv_bfloat16 h) { return static_cast<short>(h.__x); }
FL_INTRINSIC unsigned short __bfloat16_as_ushort(__nv_bfloat16 h) { return h.__x; }
FL_INTRINSIC __nv_bfloat16 __short_as_bfloat16(short v) { return __nv_bfloat16_raw{static_cast<unsigned short>(v)}; }
FL_INTRINSIC __nv_bfloat16 __ushort_as_bfloat16(unsigned short v) { return __nv_bfloat16_raw{v}; }

// One comparison of 16-bit floats `x` and `y` (as floats): of two scalars; of two
// pairs, each lane 1 or 0 (__hlt2), a mask of 16 bits a lane (__hlt2_mask), or
// whether both lanes hold (__hblt2).
#define FL_HALF_COMPARISON(H, H2, name, test)                                                              \
  FL_INTRINSIC bool __h##name(H a, H b) { const float x = float(a), y = float(b); return test; }                \
  FL_INTRINSIC H2 __h##name##2(H2 a, H2 b) { return {H(__h##name(a.x, b.x) ? 1.0f : 0.0f), H(__h##name(a.y, b.y) ? 1.0f : 0.0f)}; } \
  FL_INTRINSIC unsigned __h##name##2_mask(H2 a, H2 b) { return (__h##name(a.x, b.x) ? 0xFFFFu : 0u) | (__h##name(a.y, b.y) ? 0xFFFF0000u : 0u); } \
  FL_INTRINSIC bool __hb##name##2(H2 a, H2 b) { return __h##name(a.x, b.x) && __h##name(a.y, b.y); }

// ---- arithmetic, one set per 16-bit type: H is the scalar, H2 the pair, P its
// prefix in the API's names (__hadd / __hadd2 serve both types, as in CUDA).
#define FL_HALF_ARITHMETIC(H, H2, P)                                                                       \
  FL_INTRINSIC H __hadd(H a, H b) { return H(float(a) + float(b)); }                                             \
  FL_INTRINSIC H __hsub(H a, H b) { return H(float(a) - float(b)); }                                             \
  FL_INTRINSIC fl_product<H> __hmul(H a, H b) { return {a, b}; }                                                \
  FL_INTRINSIC H __hdiv(H a, H b) { return H(float(a) / float(b)); }                                             \
  FL_INTRINSIC H __hadd_rn(H a, H b) { return __hadd(a, b); }                                                    \
  FL_INTRINSIC H __hsub_rn(H a, H b) { return __hsub(a, b); }                                                    \
  FL_INTRINSIC H __hmul_rn(H a, H b) { return __hmul(a, b); }                                                    \
  FL_INTRINSIC H __hfma(H a, H b, H c) { return H(fl::emu::fma_to_odd(float(a), float(b), float(c))); }          \
  FL_INTRINSIC H __hneg(H a) { H r = a; r.__x ^= 0x8000u; return r; }                                            \
  FL_INTRINSIC fl_product<H> __hneg(const fl_product<H>& p) { return fl_negated(p); }                             \
  FL_INTRINSIC H __hadd(const fl_product<H>& p, H c) { return fl_multiply_add(p, 1.0f, c); }                      \
  FL_INTRINSIC H __hadd(H c, const fl_product<H>& p) { return fl_multiply_add(p, 1.0f, c); }                      \
  FL_INTRINSIC H __hadd(const fl_product<H>& p, const fl_product<H>& q) { return fl_multiply_add(p, 1.0f, H(q)); } \
  FL_INTRINSIC H __hsub(const fl_product<H>& p, H c) { return fl_multiply_add(p, 1.0f, __hneg(c)); }              \
  FL_INTRINSIC H __hsub(H c, const fl_product<H>& p) { return fl_multiply_add(p, -1.0f, c); }                     \
  FL_INTRINSIC H __hsub(const fl_product<H>& p, const fl_product<H>& q) { return fl_multiply_add(p, 1.0f, __hneg(H(q))); } \
  FL_INTRINSIC H __habs(H a) { H r = a; r.__x &= 0x7fffu; return r; }                                            \
  FL_INTRINSIC H fl_saturate_##P(H a) { float f = float(a); return f != f ? H(0.0f) : H(f < 0 ? 0.0f : f > 1 ? 1.0f : f); } \
  FL_INTRINSIC H __hadd_sat(H a, H b) { return fl_saturate_##P(__hadd(a, b)); }                                 \
  FL_INTRINSIC H __hsub_sat(H a, H b) { return fl_saturate_##P(__hsub(a, b)); }                                  \
  FL_INTRINSIC H __hmul_sat(H a, H b) { return fl_saturate_##P(__hmul(a, b)); }                                  \
  FL_INTRINSIC H __hfma_sat(H a, H b, H c) { return fl_saturate_##P(__hfma(a, b, c)); }                          \
  FL_INTRINSIC H __hfma_relu(H a, H b, H c) { H r = __hfma(a, b, c); return float(r) < 0 ? H(0.0f) : r; }       \
  /* max/min: NaN loses to a number, as fmaxf; _nan forms propagate it */                                 \
  FL_INTRINSIC H __hmax(H a, H b) { return H(fmaxf(float(a), float(b))); }                                       \
  FL_INTRINSIC H __hmin(H a, H b) { return H(fminf(float(a), float(b))); }                                       \
  FL_INTRINSIC H __hmax_nan(H a, H b) { return float(a) != float(a) || float(b) != float(b) ? H(NAN) : __hmax(a, b); } \
  FL_INTRINSIC H __hmin_nan(H a, H b) { return float(a) != float(a) || float(b) != float(b) ? H(NAN) : __hmin(a, b); } \
  /* comparisons: ordered ones are false where either is NaN, unordered (u) ones true */                    \
  FL_HALF_COMPARISON(H, H2, eq, x == y)                                                                          \
  FL_HALF_COMPARISON(H, H2, ne, x < y || x > y)                                                                  \
  FL_HALF_COMPARISON(H, H2, lt, x < y)                                                                           \
  FL_HALF_COMPARISON(H, H2, le, x <= y)                                                                          \
  FL_HALF_COMPARISON(H, H2, gt, x > y)                                                                           \
  FL_HALF_COMPARISON(H, H2, ge, x >= y)                                                                          \
  FL_HALF_COMPARISON(H, H2, equ, !(x < y || x > y))                                                              \
  FL_HALF_COMPARISON(H, H2, neu, x != y)                                                                         \
  FL_HALF_COMPARISON(H, H2, ltu, !(x >= y))                                                                      \
  FL_HALF_COMPARISON(H, H2, leu, !(x > y))                                                                       \
  FL_HALF_COMPARISON(H, H2, gtu, !(x <= y))                                                                      \
  FL_HALF_COMPARISON(H, H2, geu, !(x < y))                                                                       \
  FL_INTRINSIC bool __hisnan(H a) { return float(a) != float(a); }                                               \
  FL_INTRINSIC int __hisinf(H a) { float f = float(a); return isinf(f) ? (f < 0 ? -1 : 1) : 0; }                \
  /* pairs: each half on its own */                                                                       \
  FL_INTRINSIC H2 __hadd2(H2 a, H2 b) { return {__hadd(a.x, b.x), __hadd(a.y, b.y)}; }                          \
  FL_INTRINSIC H2 __hsub2(H2 a, H2 b) { return {__hsub(a.x, b.x), __hsub(a.y, b.y)}; }                          \
  FL_INTRINSIC fl_pair_product<H, H2> __hmul2(H2 a, H2 b) { return {a, b}; }                                    \
  FL_INTRINSIC fl_pair_product<H, H2> __hneg2(const fl_pair_product<H, H2>& p) { return {fl_negated(p.lane_x()), fl_negated(p.lane_y())}; } \
  FL_INTRINSIC H2 __hadd2(const fl_pair_product<H, H2>& p, H2 c) { return {__hadd(p.lane_x(), c.x), __hadd(p.lane_y(), c.y)}; } \
  FL_INTRINSIC H2 __hadd2(H2 c, const fl_pair_product<H, H2>& p) { return {__hadd(c.x, p.lane_x()), __hadd(c.y, p.lane_y())}; } \
  FL_INTRINSIC H2 __hadd2(const fl_pair_product<H, H2>& p, const fl_pair_product<H, H2>& q) { return __hadd2(p, H2(q)); } \
  FL_INTRINSIC H2 __hsub2(const fl_pair_product<H, H2>& p, H2 c) { return {__hsub(p.lane_x(), c.x), __hsub(p.lane_y(), c.y)}; } \
  FL_INTRINSIC H2 __hsub2(H2 c, const fl_pair_product<H, H2>& p) { return {__hsub(c.x, p.lane_x()), __hsub(c.y, p.lane_y())}; } \
  FL_INTRINSIC H2 __hsub2(const fl_pair_product<H, H2>& p, const fl_pair_product<H, H2>& q) { return __hsub2(p, H2(q)); } \
  FL_INTRINSIC H2 __h2div(H2 a, H2 b) { return {__hdiv(a.x, b.x), __hdiv(a.y, b.y)}; }                          \
  FL_INTRINSIC H2 __hadd2_rn(H2 a, H2 b) { return __hadd2(a, b); }                                               \
  FL_INTRINSIC H2 __hmul2_rn(H2 a, H2 b) { return __hmul2(a, b); }                                               \
  FL_INTRINSIC H2 __hsub2_rn(H2 a, H2 b) { return __hsub2(a, b); }                                               \
  FL_INTRINSIC H2 __hfma2(H2 a, H2 b, H2 c) { return {__hfma(a.x, b.x, c.x), __hfma(a.y, b.y, c.y)}; }          \
  /* a complex multiply-add, (x real, y imaginary), in the toolkit's order of fmas */                          \
  FL_INTRINSIC H2 __hcmadd(H2 a, H2 b, H2 c) {                                                                   \
    return {__hfma(__hneg(a.y), b.y, __hfma(a.x, b.x, c.x)), __hfma(a.y, b.x, __hfma(a.x, b.y, c.y))};          \
  }                                                                                                              \
  FL_INTRINSIC H2 __hfma2_relu(H2 a, H2 b, H2 c) { return {__hfma_relu(a.x, b.x, c.x), __hfma_relu(a.y, b.y, c.y)}; } \
  FL_INTRINSIC H2 __hadd2_sat(H2 a, H2 b) { return {__hadd_sat(a.x, b.x), __hadd_sat(a.y, b.y)}; }              \
  FL_INTRINSIC H2 __hmul2_sat(H2 a, H2 b) { return {__hmul_sat(a.x, b.x), __hmul_sat(a.y, b.y)}; }              \
  FL_INTRINSIC H2 __hfma2_sat(H2 a, H2 b, H2 c) { return {__hfma_sat(a.x, b.x, c.x), __hfma_sat(a.y, b.y, c.y)}; } \
  FL_INTRINSIC H2 __hneg2(H2 a) { return {__hneg(a.x), __hneg(a.y)}; }                                          \
  FL_INTRINSIC H2 __habs2(H2 a) { return {__habs(a.x), __habs(a.y)}; }                                          \
  FL_INTRINSIC H2 __hmax2(H2 a, H2 b) { return {__hmax(a.x, b.x), __hmax(a.y, b.y)}; }                          \
  FL_INTRINSIC H2 __hmin2(H2 a, H2 b) { return {__hmin(a.x, b.x), __hmin(a.y, b.y)}; }                          \
  FL_INTRINSIC H2 __hmax2_nan(H2 a, H2 b) { return {__hmax_nan(a.x, b.x), __hmax_nan(a.y, b.y)}; }              \
  FL_INTRINSIC H2 __hmin2_nan(H2 a, H2 b) { return {__hmin_nan(a.x, b.x), __hmin_nan(a.y, b.y)}; }              \
  FL_INTRINSIC H2 __hisnan2(H2 a) { return {H(__hisnan(a.x) ? 1.0f : 0.0f), H(__hisnan(a.y) ? 1.0f : 0.0f)}; }  \
  /* functions: the float function, rounded */                                                            \
  FL_INTRINSIC H P##exp(H a) { return H(expf(float(a))); }                                                       \
  FL_INTRINSIC H P##exp2(H a) { return H(exp2f(float(a))); }                                                     \
  FL_INTRINSIC H P##exp10(H a) { return H(exp10f(float(a))); }                                                   \
  FL_INTRINSIC H P##log(H a) { return H(logf(float(a))); }                                                       \
  FL_INTRINSIC H P##log2(H a) { return H(log2f(float(a))); }                                                     \
  FL_INTRINSIC H P##log10(H a) { return H(log10f(float(a))); }                                                   \
  FL_INTRINSIC H P##sqrt(H a) { return H(sqrtf(float(a))); }                                                     \
  FL_INTRINSIC H P##rsqrt(H a) { return H(1.0f / sqrtf(float(a))); }                                             \
  FL_INTRINSIC H P##rcp(H a) { return H(1.0f / float(a)); }                                                      \
  FL_INTRINSIC H P##sin(H a) { return H(sinf(float(a))); }                                                       \
  FL_INTRINSIC H P##cos(H a) { return H(cosf(float(a))); }                                                       \
  FL_INTRINSIC H P##tanh(H a) { return H(tanhf(float(a))); }                                                     \
  FL_INTRINSIC H P##ceil(H a) { return H(ceilf(float(a))); }                                                     \
  FL_INTRINSIC H P##floor(H a) { return H(floorf(float(a))); }                                                   \
  FL_INTRINSIC H P##rint(H a) { return H(rintf(float(a))); }                                                     \
  FL_INTRINSIC H P##trunc(H a) { return H(truncf(float(a))); }                                                   \
  FL_INTRINSIC H2 P##2exp(H2 a) { return {P##exp(a.x), P##exp(a.y)}; }                                           \
  FL_INTRINSIC H2 P##2exp2(H2 a) { return {P##exp2(a.x), P##exp2(a.y)}; }                                        \
  FL_INTRINSIC H2 P##2log(H2 a) { return {P##log(a.x), P##log(a.y)}; }                                           \
  FL_INTRINSIC H2 P##2log2(H2 a) { return {P##log2(a.x), P##log2(a.y)}; }                                        \
  FL_INTRINSIC H2 P##2sqrt(H2 a) { return {P##sqrt(a.x), P##sqrt(a.y)}; }                                        \
  FL_INTRINSIC H2 P##2rsqrt(H2 a) { return {P##rsqrt(a.x), P##rsqrt(a.y)}; }                                     \
  FL_INTRINSIC H2 P##2rcp(H2 a) { return {P##rcp(a.x), P##rcp(a.y)}; }                                          \
  FL_INTRINSIC H2 P##2sin(H2 a) { return {P##sin(a.x), P##sin(a.y)}; }                                           \
  FL_INTRINSIC H2 P##2cos(H2 a) { return {P##cos(a.x), P##cos(a.y)}; }                                           \
  FL_INTRINSIC H2 P##2tanh(H2 a) { return {P##tanh(a.x), P##tanh(a.y)}; }                                        \
  FL_INTRINSIC H2 P##2floor(H2 a) { return {P##floor(a.x), P##floor(a.y)}; }                                     \
  FL_INTRINSIC H2 P##2ceil(H2 a) { return {P##ceil(a.x), P##ceil(a.y)}; }

// CUDA names the f16 functions h* (hexp, h2exp) and the bf16 ones the same (hexp
// on __nv_bfloat16 overloads it).
FL_HALF_ARITHMETIC(__half, __half2, h)
FL_HALF_ARITHMETIC(__nv_bfloat16, __nv_bfloat162, h)
#undef FL_HALF_ARITHMETIC

// The operators, left out as the toolkits' headers leave them out where a build defines
// __CUDA_NO_HALF_OPERATORS__, __CUDA_NO_HALF2_OPERATORS__, __CUDA_NO_BFLOAT16_OPERATORS__,
// __CUDA_NO_BFLOAT162_OPERATORS__ or HIP's __HIP_NO_HALF_OPERATORS__ (PyTorch's extension
// builds define them): such a source may define its own. fuselab's headers use the
// intrinsics, never these.
#define FL_HALF_OPERATORS(H)                                                                               \
  inline H operator+(const H& a, const H& b) { return __hadd(a, b); }                                      \
  inline H operator-(const H& a, const H& b) { return __hsub(a, b); }                                      \
  inline fl_product<H> operator*(const H& a, const H& b) { return __hmul(a, b); }                          \
  inline H operator+(const fl_product<H>& p, const H& c) { return __hadd(p, c); }                          \
  inline H operator+(const H& c, const fl_product<H>& p) { return __hadd(c, p); }                          \
  inline H operator+(const fl_product<H>& p, const fl_product<H>& q) { return __hadd(p, q); }              \
  inline H operator-(const fl_product<H>& p, const H& c) { return __hsub(p, c); }                          \
  inline H operator-(const H& c, const fl_product<H>& p) { return __hsub(c, p); }                          \
  inline H operator-(const fl_product<H>& p, const fl_product<H>& q) { return __hsub(p, q); }              \
  inline H& operator+=(H& a, const fl_product<H>& p) { return a = __hadd(a, p); }                          \
  inline H& operator-=(H& a, const fl_product<H>& p) { return a = __hsub(a, p); }                          \
  inline fl_product<H> operator-(const fl_product<H>& p) { return fl_negated(p); }                         \
  inline H operator/(const H& a, const H& b) { return __hdiv(a, b); }                                      \
  inline H& operator+=(H& a, const H& b) { return a = __hadd(a, b); }                                      \
  inline H& operator-=(H& a, const H& b) { return a = __hsub(a, b); }                                      \
  inline H& operator*=(H& a, const H& b) { return a = __hmul(a, b); }                                      \
  inline H& operator/=(H& a, const H& b) { return a = __hdiv(a, b); }                                      \
  inline H operator+(const H& a) { return a; }                                                             \
  inline H operator-(const H& a) { return __hneg(a); }                                                     \
  inline H& operator++(H& a) { return a = __hadd(a, H(1.0f)); }                                            \
  inline H& operator--(H& a) { return a = __hsub(a, H(1.0f)); }                                            \
  inline H operator++(H& a, int) { H old = a; ++a; return old; }                                           \
  inline H operator--(H& a, int) { H old = a; --a; return old; }                                           \
  inline bool operator==(const H& a, const H& b) { return __heq(a, b); }                                   \
  inline bool operator!=(const H& a, const H& b) { return __hneu(a, b); }                                  \
  inline bool operator<(const H& a, const H& b) { return __hlt(a, b); }                                    \
  inline bool operator<=(const H& a, const H& b) { return __hle(a, b); }                                   \
  inline bool operator>(const H& a, const H& b) { return __hgt(a, b); }                                    \
  inline bool operator>=(const H& a, const H& b) { return __hge(a, b); }
#define FL_HALF2_OPERATORS(H, H2)                                                                         \
  inline H2 operator+(const H2& a, const H2& b) { return __hadd2(a, b); }                                  \
  inline H2 operator-(const H2& a, const H2& b) { return __hsub2(a, b); }                                  \
  inline fl_pair_product<H, H2> operator*(const H2& a, const H2& b) { return __hmul2(a, b); }              \
  inline H2 operator+(const fl_pair_product<H, H2>& p, const H2& c) { return __hadd2(p, c); }              \
  inline H2 operator+(const H2& c, const fl_pair_product<H, H2>& p) { return __hadd2(c, p); }              \
  inline H2 operator+(const fl_pair_product<H, H2>& p, const fl_pair_product<H, H2>& q) { return __hadd2(p, q); } \
  inline H2 operator-(const fl_pair_product<H, H2>& p, const H2& c) { return __hsub2(p, c); }              \
  inline H2 operator-(const H2& c, const fl_pair_product<H, H2>& p) { return __hsub2(c, p); }              \
  inline H2 operator-(const fl_pair_product<H, H2>& p, const fl_pair_product<H, H2>& q) { return __hsub2(p, q); } \
  inline H2& operator+=(H2& a, const fl_pair_product<H, H2>& p) { return a = __hadd2(a, p); }              \
  inline H2& operator-=(H2& a, const fl_pair_product<H, H2>& p) { return a = __hsub2(a, p); }              \
  inline fl_pair_product<H, H2> operator-(const fl_pair_product<H, H2>& p) { return __hneg2(p); }          \
  inline H2 operator/(const H2& a, const H2& b) { return __h2div(a, b); }                                  \
  inline H2& operator+=(H2& a, const H2& b) { return a = __hadd2(a, b); }                                  \
  inline H2& operator-=(H2& a, const H2& b) { return a = __hsub2(a, b); }                                  \
  inline H2& operator*=(H2& a, const H2& b) { return a = __hmul2(a, b); }                                  \
  inline H2& operator/=(H2& a, const H2& b) { return a = __h2div(a, b); }                                  \
  inline H2 operator+(const H2& a) { return a; }                                                           \
  inline H2 operator-(const H2& a) { return __hneg2(a); }                                                  \
  inline bool operator==(const H2& a, const H2& b) { return __hbeq2(a, b); }                               \
  /* true where both lanes compare so, as the toolkit's */                                               \
  inline bool operator!=(const H2& a, const H2& b) { return __hbneu2(a, b); }                              \
  inline bool operator<(const H2& a, const H2& b) { return __hblt2(a, b); }                                \
  inline bool operator<=(const H2& a, const H2& b) { return __hble2(a, b); }                               \
  inline bool operator>(const H2& a, const H2& b) { return __hbgt2(a, b); }                                \
  inline bool operator>=(const H2& a, const H2& b) { return __hbge2(a, b); }
#if !defined(__CUDA_NO_HALF_OPERATORS__) && !defined(__HIP_NO_HALF_OPERATORS__)
FL_HALF_OPERATORS(__half)
#endif
#if !defined(__CUDA_NO_HALF2_OPERATORS__) && !defined(__HIP_NO_HALF_OPERATORS__)
FL_HALF2_OPERATORS(__half, __half2)
#endif
#if !defined(__CUDA_NO_BFLOAT16_OPERATORS__)
FL_HALF_OPERATORS(__nv_bfloat16)
#endif
#if !defined(__CUDA_NO_BFLOAT162_OPERATORS__)
FL_HALF2_OPERATORS(__nv_bfloat16, __nv_bfloat162)
#endif
#undef FL_HALF_OPERATORS
#undef FL_HALF2_OPERATORS

FL_INTRINSIC __nv_bfloat162 __low2bfloat162(__nv_bfloat162 a) { return {a.x, a.x}; }
FL_INTRINSIC __nv_bfloat162 __high2bfloat162(__nv_bfloat162 a) { return {a.y, a.y}; }
FL_INTRINSIC __nv_bfloat16 __low2bfloat16(__nv_bfloat162 a) { return a.x; }
FL_INTRINSIC __nv_bfloat16 __high2bfloat16(__nv_bfloat162 a) { return a.y; }
FL_INTRINSIC float __low2float(__nv_bfloat162 h) { return float(h.x); }
FL_INTRINSIC float __high2float(__nv_bfloat162 h) { return float(h.y); }

#endif
