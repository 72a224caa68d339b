// <cuda_fp8.h> on the CPU emulator: CUDA's 8-bit floats, E4M3 (4 exponent bits,
// 3 mantissa bits, bias 7, no infinity, 448 the largest) and E5M2 (5 and 2,
// bias 15, IEEE-like, 57344 the largest). Conversions to fp8 round to nearest
// even, as the GPU's cvt does; out of range they saturate to the largest finite
// value (__NV_SATFINITE, what the classes' constructors use) or give NaN (E4M3)
// or infinity (E5M2) (__NV_NOSAT). Every fp8 value is exact in half and float.
#ifndef FUSELAB_EMULATOR_INCLUDE_CUDA_FP8_H
#define FUSELAB_EMULATOR_INCLUDE_CUDA_FP8_H
#include <fuselab/fuselab.h>

typedef unsigned char __nv_fp8_storage_t;
typedef unsigned short __nv_fp8x2_storage_t;
typedef unsigned int __nv_fp8x4_storage_t;

typedef enum __nv_saturation_t { __NV_NOSAT, __NV_SATFINITE } __nv_saturation_t;
typedef enum __nv_fp8_interpretation_t { __NV_E4M3, __NV_E5M2 } __nv_fp8_interpretation_t;

namespace fl {
namespace emu {

struct fp8_format {
  int mantissa_bits;
  int bias;
  double largest;       // the largest finite value
  double overflow_from; // the least magnitude that rounds past it
  bool overflow_at_tie; // whether overflow_from itself overflows (the tie goes to the odd side's neighbour)
};

inline fp8_format fp8_format_of(__nv_fp8_interpretation_t kind) {
  // E4M3: 448 = 1.75 * 2^8, with 480 (would be 1.875 * 2^8) NaN: a tie at 464 goes to 448 (even).
  // E5M2: 57344 = 1.75 * 2^15: a tie at 61440 goes to 65536 (even), infinity.
  return kind == __NV_E4M3 ? fp8_format{3, 7, 448.0, 464.0, false} : fp8_format{2, 15, 57344.0, 61440.0, true};
}

// Round half to even, without depending on the floating-point environment.
inline double round_half_even(double v) {
  const double down = floor(v);
  const double rest = v - down;
  if (rest > 0.5 || (rest == 0.5 && fmod(down, 2.0) != 0.0)) return down + 1.0;
  return down;
}

inline __nv_fp8_storage_t double_to_fp8(double x, __nv_saturation_t saturate, __nv_fp8_interpretation_t kind) {
  const fp8_format f = fp8_format_of(kind);
  if (x != x) return 0x7f;  // NaN
  const unsigned char sign = signbit(x) ? 0x80 : 0;
  const double magnitude = fabs(x);
  if (magnitude > f.overflow_from || (f.overflow_at_tie && magnitude == f.overflow_from)) {
    if (saturate == __NV_SATFINITE) return sign | (kind == __NV_E4M3 ? 0x7e : 0x7b);
    return sign | (kind == __NV_E4M3 ? 0x7f : 0x7c);
  }
  // The binade's exponent, no less than the smallest normal one (below it: subnormals, one quantum apart).
  int exponent = 0;
  frexp(magnitude, &exponent);
  exponent = magnitude == 0.0 ? 1 - f.bias : exponent - 1;
  if (exponent < 1 - f.bias) exponent = 1 - f.bias;
  const double quantum = ldexp(1.0, exponent - f.mantissa_bits);
  double steps = round_half_even(magnitude / quantum);  // exact: a power of two apart
  const double leading = ldexp(1.0, f.mantissa_bits);
  if (steps >= 2 * leading) steps /= 2, exponent++;  // rounded up into the next binade
  if (steps < leading) return sign | static_cast<unsigned char>(steps);  // zero or subnormal
  const int field = exponent + f.bias;
  return sign | static_cast<unsigned char>((field << f.mantissa_bits) | static_cast<int>(steps - leading));
}

inline float fp8_to_float(__nv_fp8_storage_t bits, __nv_fp8_interpretation_t kind) {
  const fp8_format f = fp8_format_of(kind);
  const bool negative = bits & 0x80;
  const int field = (bits & 0x7f) >> f.mantissa_bits;
  const int mantissa = bits & ((1 << f.mantissa_bits) - 1);
  const int top_field = (1 << (7 - f.mantissa_bits)) - 1;
  float value;
  if (kind == __NV_E4M3 && (bits & 0x7f) == 0x7f) {
    value = std::numeric_limits<float>::quiet_NaN();
  } else if (kind == __NV_E5M2 && field == top_field) {
    value = mantissa ? std::numeric_limits<float>::quiet_NaN() : std::numeric_limits<float>::infinity();
  } else if (field == 0) {
    value = static_cast<float>(ldexp(mantissa, 1 - f.bias - f.mantissa_bits));
  } else {
    value = static_cast<float>(ldexp(mantissa + (1 << f.mantissa_bits), field - f.bias - f.mantissa_bits));
  }
  return negative ? -value : value;
}

}  // namespace emu
}  // namespace fl

inline __nv_fp8_storage_t __nv_cvt_double_to_fp8(double x, __nv_saturation_t saturate, __nv_fp8_interpretation_t kind) {
  return fl::emu::double_to_fp8(x, saturate, kind);
}
inline __nv_fp8_storage_t __nv_cvt_float_to_fp8(float x, __nv_saturation_t saturate, __nv_fp8_interpretation_t kind) {
  return fl::emu::double_to_fp8(x, saturate, kind);
}
inline __nv_fp8_storage_t __nv_cvt_halfraw_to_fp8(__half_raw x, __nv_saturation_t saturate, __nv_fp8_interpretation_t kind) {
  return fl::emu::double_to_fp8(fl::emu::half_bits_to_float(x.x), saturate, kind);
}
inline __nv_fp8_storage_t __nv_cvt_bfloat16raw_to_fp8(__nv_bfloat16_raw x, __nv_saturation_t saturate,
                                                      __nv_fp8_interpretation_t kind) {
  return fl::emu::double_to_fp8(fl::emu::bf16_bits_to_float(x.x), saturate, kind);
}
// Pairs: the first value in the low byte.
inline __nv_fp8x2_storage_t fl_fp8x2(__nv_fp8_storage_t low, __nv_fp8_storage_t high) {
  return static_cast<__nv_fp8x2_storage_t>(low | (high << 8));
}
inline __nv_fp8x4_storage_t fl_fp8x4(__nv_fp8x2_storage_t low, __nv_fp8x2_storage_t high) {
  return low | (static_cast<__nv_fp8x4_storage_t>(high) << 16);
}
inline __nv_fp8x2_storage_t __nv_cvt_double2_to_fp8x2(double2 x, __nv_saturation_t saturate, __nv_fp8_interpretation_t kind) {
  return fl_fp8x2(__nv_cvt_double_to_fp8(x.x, saturate, kind), __nv_cvt_double_to_fp8(x.y, saturate, kind));
}
inline __nv_fp8x2_storage_t __nv_cvt_float2_to_fp8x2(float2 x, __nv_saturation_t saturate, __nv_fp8_interpretation_t kind) {
  return fl_fp8x2(__nv_cvt_float_to_fp8(x.x, saturate, kind), __nv_cvt_float_to_fp8(x.y, saturate, kind));
}
inline __nv_fp8x2_storage_t __nv_cvt_halfraw2_to_fp8x2(__half2_raw x, __nv_saturation_t saturate, __nv_fp8_interpretation_t kind) {
  return fl_fp8x2(__nv_cvt_halfraw_to_fp8(__half_raw{x.x}, saturate, kind), __nv_cvt_halfraw_to_fp8(__half_raw{x.y}, saturate, kind));
}
inline __nv_fp8x2_storage_t __nv_cvt_bfloat16raw2_to_fp8x2(__nv_bfloat162_raw x, __nv_saturation_t saturate,
                                                           __nv_fp8_interpretation_t kind) {
  return fl_fp8x2(__nv_cvt_bfloat16raw_to_fp8(__nv_bfloat16_raw{x.x}, saturate, kind),
                  __nv_cvt_bfloat16raw_to_fp8(__nv_bfloat16_raw{x.y}, saturate, kind));
}
inline __half_raw __nv_cvt_fp8_to_halfraw(__nv_fp8_storage_t x, __nv_fp8_interpretation_t kind) {
  return __half_raw{fl::emu::float_to_half_bits(fl::emu::fp8_to_float(x, kind))};
}
inline __half2_raw __nv_cvt_fp8x2_to_halfraw2(__nv_fp8x2_storage_t x, __nv_fp8_interpretation_t kind) {
  return __half2_raw{__nv_cvt_fp8_to_halfraw(static_cast<__nv_fp8_storage_t>(x & 0xff), kind).x,
                     __nv_cvt_fp8_to_halfraw(static_cast<__nv_fp8_storage_t>(x >> 8), kind).x};
}

// One fp8 value: constructed (explicitly) from the floats and integers, saturating
// to the largest finite value; converted (explicitly) to them.
#define FL_FP8_TYPE(NAME, KIND)                                                                            \
  struct alignas(1) NAME {                                                                                 \
    __nv_fp8_storage_t __x;                                                                                \
    NAME() = default;                                                                                      \
    explicit NAME(double v) : __x(__nv_cvt_double_to_fp8(v, __NV_SATFINITE, KIND)) {}                      \
    explicit NAME(float v) : __x(__nv_cvt_float_to_fp8(v, __NV_SATFINITE, KIND)) {}                        \
    explicit NAME(__half v) : __x(__nv_cvt_halfraw_to_fp8(__half_raw(v), __NV_SATFINITE, KIND)) {}         \
    explicit NAME(__nv_bfloat16 v)                                                                         \
        : __x(__nv_cvt_bfloat16raw_to_fp8(__nv_bfloat16_raw(v), __NV_SATFINITE, KIND)) {}                  \
    explicit NAME(int v) : NAME(static_cast<float>(v)) {}                                                  \
    explicit NAME(unsigned int v) : NAME(static_cast<float>(v)) {}                                         \
    explicit NAME(short v) : NAME(static_cast<float>(v)) {}                                                \
    explicit NAME(unsigned short v) : NAME(static_cast<float>(v)) {}                                       \
    explicit NAME(long long v) : NAME(static_cast<float>(v)) {}                                            \
    explicit NAME(unsigned long long v) : NAME(static_cast<float>(v)) {}                                   \
    explicit operator float() const { return fl::emu::fp8_to_float(__x, KIND); }                           \
    explicit operator double() const { return fl::emu::fp8_to_float(__x, KIND); }                          \
    explicit operator __half() const { return __half(__nv_cvt_fp8_to_halfraw(__x, KIND)); }                \
    explicit operator __nv_bfloat16() const { return __nv_bfloat16(fl::emu::fp8_to_float(__x, KIND)); }    \
    explicit operator int() const { return fl_float_to_int<int>(float(*this)); }                           \
    explicit operator unsigned int() const { return fl_float_to_int<unsigned int>(float(*this)); }         \
    explicit operator short() const { return fl_float_to_int<short>(float(*this)); }                       \
    explicit operator unsigned short() const { return fl_float_to_int<unsigned short>(float(*this)); }     \
    explicit operator char() const { return fl_float_to_int<char>(float(*this)); }                         \
    explicit operator signed char() const { return fl_float_to_int<signed char>(float(*this)); }           \
    explicit operator unsigned char() const { return fl_float_to_int<unsigned char>(float(*this)); }       \
    explicit operator long long() const { return fl_float_to_int<long long>(float(*this)); }               \
    explicit operator unsigned long long() const { return fl_float_to_int<unsigned long long>(float(*this)); } \
    explicit operator bool() const { return (__x & 0x7f) != 0; }                                           \
  };

// Two and four fp8 values, the first in the lowest byte.
#define FL_FP8_VECTORS(NAME2, NAME4, KIND)                                                                  \
  struct alignas(2) NAME2 {                                                                                 \
    __nv_fp8x2_storage_t __x;                                                                               \
    NAME2() = default;                                                                                      \
    explicit NAME2(double2 v) : __x(__nv_cvt_double2_to_fp8x2(v, __NV_SATFINITE, KIND)) {}                  \
    explicit NAME2(float2 v) : __x(__nv_cvt_float2_to_fp8x2(v, __NV_SATFINITE, KIND)) {}                    \
    explicit NAME2(__half2 v) : __x(__nv_cvt_halfraw2_to_fp8x2(__half2_raw(v), __NV_SATFINITE, KIND)) {}    \
    explicit NAME2(__nv_bfloat162 v)                                                                        \
        : __x(__nv_cvt_bfloat16raw2_to_fp8x2(__nv_bfloat162_raw(v), __NV_SATFINITE, KIND)) {}               \
    explicit operator __half2() const { return __half2(__nv_cvt_fp8x2_to_halfraw2(__x, KIND)); }           \
    explicit operator float2() const {                                                                      \
      return make_float2(fl::emu::fp8_to_float(__x & 0xff, KIND), fl::emu::fp8_to_float(__x >> 8, KIND));   \
    }                                                                                                       \
  };                                                                                                        \
  struct alignas(4) NAME4 {                                                                                 \
    __nv_fp8x4_storage_t __x;                                                                               \
    NAME4() = default;                                                                                      \
    explicit NAME4(float4 v)                                                                                \
        : __x(fl_fp8x4(__nv_cvt_float2_to_fp8x2(make_float2(v.x, v.y), __NV_SATFINITE, KIND),                \
                       __nv_cvt_float2_to_fp8x2(make_float2(v.z, v.w), __NV_SATFINITE, KIND))) {}               \
    explicit NAME4(double4 v)                                                                               \
        : __x(fl_fp8x4(__nv_cvt_double2_to_fp8x2(make_double2(v.x, v.y), __NV_SATFINITE, KIND),             \
                       __nv_cvt_double2_to_fp8x2(make_double2(v.z, v.w), __NV_SATFINITE, KIND))) {}            \
    NAME4(__half2 low, __half2 high)                                                                        \
        : __x(fl_fp8x4(__nv_cvt_halfraw2_to_fp8x2(__half2_raw(low), __NV_SATFINITE, KIND),                  \
                       __nv_cvt_halfraw2_to_fp8x2(__half2_raw(high), __NV_SATFINITE, KIND))) {}                 \
    explicit operator float4() const {                                                                      \
      return make_float4(fl::emu::fp8_to_float(__x & 0xff, KIND), fl::emu::fp8_to_float((__x >> 8) & 0xff, KIND), \
                         fl::emu::fp8_to_float((__x >> 16) & 0xff, KIND), fl::emu::fp8_to_float(__x >> 24, KIND)); \
    }                                                                                                       \
  };

FL_FP8_TYPE(__nv_fp8_e4m3, __NV_E4M3)
FL_FP8_TYPE(__nv_fp8_e5m2, __NV_E5M2)
FL_FP8_VECTORS(__nv_fp8x2_e4m3, __nv_fp8x4_e4m3, __NV_E4M3)
FL_FP8_VECTORS(__nv_fp8x2_e5m2, __nv_fp8x4_e5m2, __NV_E5M2)
#undef FL_FP8_TYPE
#undef FL_FP8_VECTORS

#endif
