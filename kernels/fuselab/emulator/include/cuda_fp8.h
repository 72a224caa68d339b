// <cuda_fp8.h> on the CPU emulator: CUDA's 8-bit floats, E4M3 (4 exponent bits,
// 3 mantissa bits, bias 7, no infinity, 448 the largest) and E5M2 (5 and 2,
// bias 15, IEEE-like, 57344 the largest), and E8M0, the scale format of CUDA
// 12.8 (a power of two, 2^-127 to 2^127, or NaN). Conversions to E4M3 and E5M2
// round to nearest even, as the GPU's cvt does; out of range they saturate to
// the largest finite value (__NV_SATFINITE, what the classes' constructors use)
// or give NaN (E4M3) or infinity (E5M2) (__NV_NOSAT). Every fp8 value is exact
// in half and float, every E8M0 value in bfloat16 and float.
//
// The rounding (fl::emu::code_of_magnitude) and the classes' macros serve
// cuda_fp6.h and cuda_fp4.h too.
#ifndef FUSELAB_EMULATOR_INCLUDE_CUDA_FP8_H
#define FUSELAB_EMULATOR_INCLUDE_CUDA_FP8_H
#include <fuselab/fuselab.h>

// As the toolkit's headers do: they say the types exist and give their alignment macro.
#define __CUDA_FP8_TYPES_EXIST__
#if !defined(__CUDA_ALIGN__)
#define __CUDA_ALIGN__(n) __align__(n)
#endif

typedef unsigned char __nv_fp8_storage_t;
typedef unsigned short __nv_fp8x2_storage_t;
typedef unsigned int __nv_fp8x4_storage_t;

typedef enum __nv_saturation_t { __NV_NOSAT, __NV_SATFINITE } __nv_saturation_t;
typedef enum __nv_fp8_interpretation_t { __NV_E4M3, __NV_E5M2 } __nv_fp8_interpretation_t;

namespace fl {
namespace emu {

// A narrow float format: a sign bit above the exponent and mantissa fields, the
// exponent field 0 holding zero and the subnormals.
struct narrow_format {
  int bits;           // the sign's is the top one
  int mantissa_bits;
  int bias;
  unsigned largest;   // the code of the largest finite magnitude
  bool infinity;      // whether the code after it is infinity (E5M2) rather than NaN (E4M3), where there is one
};

// v >= 0 rounded to an integer: to nearest even, up, or down (toward zero, for
// v >= 0), without depending on the floating-point environment.
inline double round_nonnegative(double v, fl_rounding mode) {
  const double down = floor(v);
  const double rest = v - down;
  if (mode == FL_ROUND_UP) return rest > 0.0 ? down + 1.0 : down;
  if (mode == FL_ROUND_NEAREST && (rest > 0.5 || (rest == 0.5 && fmod(down, 2.0) != 0.0))) return down + 1.0;
  return down;
}

// The code (exponent field, then mantissa field) of a magnitude rounded as
// `mode` says to a format of `mantissa_bits` whose lowest normal binade,
// 2^min_exponent, is field 1 (below it, field 0: subnormals one quantum apart)
// and whose binades go on up without end: the caller decides what a code past
// its format's largest gives. Infinity gives INT_MAX.
inline int code_of_magnitude(double magnitude, int mantissa_bits, int min_exponent, fl_rounding mode) {
  if (magnitude > 0x1p1000) return INT_MAX;
  int exponent = 0;
  frexp(magnitude, &exponent);
  exponent = magnitude == 0.0 || exponent - 1 < min_exponent ? min_exponent : exponent - 1;
  // The binade's quanta (scaled exactly: by a power of two). Rounded up to the
  // next binade's first value, they carry into its field.
  const double steps = round_nonnegative(ldexp(magnitude, mantissa_bits - exponent), mode);
  return ((exponent - min_exponent) << mantissa_bits) + static_cast<int>(steps);
}

// x's code in format f. Past the largest finite magnitude: the largest when
// saturating, else the code after it (E4M3's NaN, E5M2's infinity); NaN gives `nan`.
inline unsigned char double_to_narrow(double x, const narrow_format& f, fl_rounding mode, bool saturate,
                                      unsigned char nan) {
  if (x != x) return nan;
  const unsigned sign = signbit(x) ? 1u << (f.bits - 1) : 0u;
  const unsigned code = static_cast<unsigned>(code_of_magnitude(fabs(x), f.mantissa_bits, 1 - f.bias, mode));
  if (code > f.largest) return static_cast<unsigned char>(sign | (saturate ? f.largest : f.largest + 1));
  return static_cast<unsigned char>(sign | code);
}

// The value of a code of format f; bits above the format's are ignored.
inline float narrow_to_float(unsigned code, const narrow_format& f) {
  const unsigned sign = 1u << (f.bits - 1);
  const unsigned magnitude = code & (sign - 1);
  float value;
  if (magnitude > f.largest) {
    value = f.infinity && magnitude == f.largest + 1 ? std::numeric_limits<float>::infinity()
                                                     : std::numeric_limits<float>::quiet_NaN();
  } else {
    const int field = static_cast<int>(magnitude >> f.mantissa_bits);
    const int mantissa = static_cast<int>(magnitude & ((1u << f.mantissa_bits) - 1));
    value = field == 0 ? static_cast<float>(ldexp(mantissa, 1 - f.bias - f.mantissa_bits))
                       : static_cast<float>(ldexp(mantissa + (1 << f.mantissa_bits), field - f.bias - f.mantissa_bits));
  }
  return code & sign ? -value : value;
}

// E8M0: |x| rounded to a power of two, toward zero or up. It is the rounding of
// a format with no mantissa whose lowest binade, 2^-127, is field 1, less one:
// E8M0 numbers that binade 0 and has no zero, so less than 2^-127 gives 2^-127
// (code 0). Past 2^127: 2^127 (0xfe) when saturating, else NaN (0xff), which
// NaN gives too.
inline __nv_fp8_storage_t magnitude_to_e8m0(double x, __nv_saturation_t saturate, fl_rounding mode) {
  if (x != x) return 0xff;
  const int code = code_of_magnitude(fabs(x), 0, -127, mode) - 1;
  if (code > 0xfe) return saturate == __NV_SATFINITE ? 0xfe : 0xff;
  return static_cast<__nv_fp8_storage_t>(code < 0 ? 0 : code);
}

// The roundings the E8M0 conversions of float take: toward zero, or up (the
// GPU asserts it, then rounds up unless told toward zero).
inline fl_rounding zero_or_up(cudaRoundMode rounding) {
  assert(rounding == cudaRoundZero || rounding == cudaRoundPosInf);
  return rounding == cudaRoundZero ? FL_ROUND_ZERO : FL_ROUND_UP;
}

// 2^(code - 127) in bfloat16's bits (2^-127 a subnormal); 0xff: its one NaN.
inline unsigned short e8m0_to_bf16_bits(__nv_fp8_storage_t code) {
  return code == 0xff ? 0x7fff : code == 0 ? 0x0040 : static_cast<unsigned short>(code << 7);
}

// An integer's magnitude as a double no smaller (a 64-bit one may not be a
// double), which rounds up to the power of two the integer does.
template <typename Int> inline double magnitude_up(Int v) {
  return fabs(fl_int_to_float<double>(v, v < Int(0) ? FL_ROUND_DOWN : FL_ROUND_UP));
}

// Two narrow values in one word, the first in the low half.
template <typename Word, typename Part> inline Word pack_halves(Part low, Part high) {
  return static_cast<Word>(low | (static_cast<Word>(high) << (4 * sizeof(Word))));
}
template <typename Part, typename Word> inline Part low_half(Word w) {
  return static_cast<Part>(w & ((Word(1) << (4 * sizeof(Word))) - 1));
}
template <typename Part, typename Word> inline Part high_half(Word w) {
  return static_cast<Part>(w >> (4 * sizeof(Word)));
}
// A narrow type's value with the given bits.
template <typename Narrow, typename Bits> inline Narrow with_bits(Bits bits) {
  Narrow t;
  t.__x = bits;
  return t;
}

}  // namespace emu
}  // namespace fl

// Each family's formats, by its interpretations (global, for argument-dependent lookup).
inline fl::emu::narrow_format fl_format_of(__nv_fp8_interpretation_t kind) {
  return kind == __NV_E4M3 ? fl::emu::narrow_format{8, 3, 7, 0x7e, false} : fl::emu::narrow_format{8, 2, 15, 0x7b, true};
}
inline __nv_fp8_storage_t fl_double_to_fp8(double x, __nv_saturation_t saturate, __nv_fp8_interpretation_t kind) {
  return fl::emu::double_to_narrow(x, fl_format_of(kind), FL_ROUND_NEAREST, saturate == __NV_SATFINITE, 0x7f);
}

// A family's conversions (F: fp8, fp6, fp4): from each float type through
// ENCODE (the family's of a double, given ARGUMENTS) and to half, and the pair
// forms, the first value in the low half. PARAMETERS and ARGUMENTS: the
// conversions' last parameters, in parentheses.
#define FL_UNPAREN(...) __VA_ARGS__
#define FL_NARROW_CONVERSIONS(F, PAIR, KIND_TYPE, ENCODE, PARAMETERS, ARGUMENTS)                                  \
  inline __nv_fp8_storage_t __nv_cvt_double_to_##F(double x, FL_UNPAREN PARAMETERS) {                             \
    return ENCODE(x, FL_UNPAREN ARGUMENTS);                                                                       \
  }                                                                                                               \
  inline __nv_fp8_storage_t __nv_cvt_float_to_##F(float x, FL_UNPAREN PARAMETERS) {                               \
    return ENCODE(x, FL_UNPAREN ARGUMENTS);                                                                       \
  }                                                                                                               \
  inline __nv_fp8_storage_t __nv_cvt_halfraw_to_##F(__half_raw x, FL_UNPAREN PARAMETERS) {                        \
    return ENCODE(fl::emu::half_bits_to_float(x.x), FL_UNPAREN ARGUMENTS);                                        \
  }                                                                                                               \
  inline __nv_fp8_storage_t __nv_cvt_bfloat16raw_to_##F(__nv_bfloat16_raw x, FL_UNPAREN PARAMETERS) {             \
    return ENCODE(fl::emu::bf16_bits_to_float(x.x), FL_UNPAREN ARGUMENTS);                                        \
  }                                                                                                               \
  inline __half_raw __nv_cvt_##F##_to_halfraw(__nv_fp8_storage_t x, KIND_TYPE kind) {                             \
    return __half_raw{fl::emu::float_to_half_bits(fl::emu::narrow_to_float(x, fl_format_of(kind)))};              \
  }                                                                                                               \
  inline PAIR __nv_cvt_double2_to_##F##x2(double2 x, FL_UNPAREN PARAMETERS) {                                     \
    return fl::emu::pack_halves<PAIR>(__nv_cvt_double_to_##F(x.x, FL_UNPAREN ARGUMENTS),                          \
                                      __nv_cvt_double_to_##F(x.y, FL_UNPAREN ARGUMENTS));                         \
  }                                                                                                               \
  inline PAIR __nv_cvt_float2_to_##F##x2(float2 x, FL_UNPAREN PARAMETERS) {                                       \
    return fl::emu::pack_halves<PAIR>(__nv_cvt_float_to_##F(x.x, FL_UNPAREN ARGUMENTS),                           \
                                      __nv_cvt_float_to_##F(x.y, FL_UNPAREN ARGUMENTS));                          \
  }                                                                                                               \
  inline PAIR __nv_cvt_halfraw2_to_##F##x2(__half2_raw x, FL_UNPAREN PARAMETERS) {                                \
    return fl::emu::pack_halves<PAIR>(__nv_cvt_halfraw_to_##F(__half_raw{x.x}, FL_UNPAREN ARGUMENTS),             \
                                      __nv_cvt_halfraw_to_##F(__half_raw{x.y}, FL_UNPAREN ARGUMENTS));            \
  }                                                                                                               \
  inline PAIR __nv_cvt_bfloat16raw2_to_##F##x2(__nv_bfloat162_raw x, FL_UNPAREN PARAMETERS) {                     \
    return fl::emu::pack_halves<PAIR>(__nv_cvt_bfloat16raw_to_##F(__nv_bfloat16_raw{x.x}, FL_UNPAREN ARGUMENTS),  \
                                      __nv_cvt_bfloat16raw_to_##F(__nv_bfloat16_raw{x.y}, FL_UNPAREN ARGUMENTS)); \
  }                                                                                                               \
  inline __half2_raw __nv_cvt_##F##x2_to_halfraw2(PAIR x, KIND_TYPE kind) {                                       \
    return __half2_raw{__nv_cvt_##F##_to_halfraw(fl::emu::low_half<__nv_fp8_storage_t>(x), kind).x,               \
                       __nv_cvt_##F##_to_halfraw(fl::emu::high_half<__nv_fp8_storage_t>(x), kind).x};             \
  }
FL_NARROW_CONVERSIONS(fp8, __nv_fp8x2_storage_t, __nv_fp8_interpretation_t, fl_double_to_fp8,
                      (__nv_saturation_t saturate, __nv_fp8_interpretation_t kind), (saturate, kind))

// The toolkit's helpers of its fp8 header, which sources call too (calm's helpers.cuh).
inline float __internal_halfraw_to_float(const __half_raw x) { return fl::emu::half_bits_to_float(x.x); }
inline float2 __internal_halfraw2_to_float2(const __half2_raw x) {
  return make_float2(fl::emu::half_bits_to_float(x.x), fl::emu::half_bits_to_float(x.y));
}

// E8M0. The GPU takes a bfloat16 as it is (no check of the rounding), a float
// through bfloat16 rounded the same way (exact for the power of two), and a
// double through float, rounded toward zero with the last bit set where inexact
// (round to odd): exact too, but that makes a finite double past float's range
// float's largest, 2^127 toward zero, where E8M0 would overflow.
inline __nv_fp8_storage_t __nv_cvt_bfloat16raw_to_e8m0(__nv_bfloat16_raw x, __nv_saturation_t saturate,
                                                       cudaRoundMode rounding) {
  return fl::emu::magnitude_to_e8m0(fl::emu::bf16_bits_to_float(x.x), saturate,
                                    rounding == cudaRoundPosInf ? FL_ROUND_UP : FL_ROUND_ZERO);
}
inline __nv_fp8_storage_t __nv_cvt_float_to_e8m0(float x, __nv_saturation_t saturate, cudaRoundMode rounding) {
  return fl::emu::magnitude_to_e8m0(x, saturate, fl::emu::zero_or_up(rounding));
}
inline __nv_fp8_storage_t __nv_cvt_double_to_e8m0(double x, __nv_saturation_t saturate, cudaRoundMode rounding) {
  return __nv_cvt_float_to_e8m0(fl::emu::round_to_odd(x), saturate, rounding);
}
inline __nv_fp8x2_storage_t __nv_cvt_bfloat162raw_to_e8m0x2(__nv_bfloat162_raw x, __nv_saturation_t saturate,
                                                            cudaRoundMode rounding) {
  fl::emu::zero_or_up(rounding);  // the pair's check, which the single one lacks
  return fl::emu::pack_halves<__nv_fp8x2_storage_t>(
      __nv_cvt_bfloat16raw_to_e8m0(__nv_bfloat16_raw{x.x}, saturate, rounding),
      __nv_cvt_bfloat16raw_to_e8m0(__nv_bfloat16_raw{x.y}, saturate, rounding));
}
inline __nv_fp8x2_storage_t __nv_cvt_float2_to_e8m0x2(float2 x, __nv_saturation_t saturate, cudaRoundMode rounding) {
  return fl::emu::pack_halves<__nv_fp8x2_storage_t>(__nv_cvt_float_to_e8m0(x.x, saturate, rounding),
                                                    __nv_cvt_float_to_e8m0(x.y, saturate, rounding));
}
inline __nv_fp8x2_storage_t __nv_cvt_double2_to_e8m0x2(double2 x, __nv_saturation_t saturate, cudaRoundMode rounding) {
  const float2 narrowed = make_float2(fl::emu::round_to_odd(x.x), fl::emu::round_to_odd(x.y));
  return __nv_cvt_float2_to_e8m0x2(narrowed, saturate, rounding);
}
inline __nv_bfloat16_raw __nv_cvt_e8m0_to_bf16raw(__nv_fp8_storage_t x) {
  return __nv_bfloat16_raw{fl::emu::e8m0_to_bf16_bits(x)};
}
inline __nv_bfloat162_raw __nv_cvt_e8m0x2_to_bf162raw(__nv_fp8x2_storage_t x) {
  return __nv_bfloat162_raw{fl::emu::e8m0_to_bf16_bits(fl::emu::low_half<__nv_fp8_storage_t>(x)),
                            fl::emu::e8m0_to_bf16_bits(fl::emu::high_half<__nv_fp8_storage_t>(x))};
}

// What __CUDA_NO_FP8_CONVERSIONS__ (the classes' constructors and conversions)
// and __CUDA_NO_FP8_CONVERSION_OPERATORS__ (the conversions) leave out: each
// family's (FL_KEEP or FL_DROP for its constructors, the same for its conversions).
#define FL_KEEP(...) __VA_ARGS__
#define FL_DROP(...)
#define FL_CONSTRUCTORS_IN(constructors, operators) constructors
#define FL_OPERATORS_IN(constructors, operators) operators
#if defined(__CUDA_NO_FP8_CONVERSIONS__)
#define FL_FP8_CONVERSIONS (FL_DROP, FL_DROP)
#elif defined(__CUDA_NO_FP8_CONVERSION_OPERATORS__)
#define FL_FP8_CONVERSIONS (FL_KEEP, FL_DROP)
#else
#define FL_FP8_CONVERSIONS (FL_KEEP, FL_KEEP)
#endif

// A class's constructors from the integer types, each through VALUE (of v).
#define FL_NARROW_FROM_INTEGERS(NAME, VALUE)       \
  explicit NAME(short v) : NAME(VALUE) {}          \
  explicit NAME(unsigned short v) : NAME(VALUE) {} \
  explicit NAME(int v) : NAME(VALUE) {}            \
  explicit NAME(unsigned int v) : NAME(VALUE) {}   \
  explicit NAME(long v) : NAME(VALUE) {}           \
  explicit NAME(unsigned long v) : NAME(VALUE) {}  \
  explicit NAME(long long v) : NAME(VALUE) {}      \
  explicit NAME(unsigned long long v) : NAME(VALUE) {}
// A class's conversions to the integer types: its float value toward zero,
// saturating, as the GPU's cvt.
#define FL_NARROW_TO_INTEGERS                                                                            \
  explicit operator char() const { return fl_float_to_int<char>(float(*this)); }                     \
  explicit operator signed char() const { return fl_float_to_int<signed char>(float(*this)); }       \
  explicit operator unsigned char() const { return fl_float_to_int<unsigned char>(float(*this)); }   \
  explicit operator short() const { return fl_float_to_int<short>(float(*this)); }                   \
  explicit operator unsigned short() const { return fl_float_to_int<unsigned short>(float(*this)); } \
  explicit operator int() const { return fl_float_to_int<int>(float(*this)); }                       \
  explicit operator unsigned int() const { return fl_float_to_int<unsigned int>(float(*this)); }     \
  explicit operator long() const { return fl_float_to_int<long>(float(*this)); }                     \
  explicit operator unsigned long() const { return fl_float_to_int<unsigned long>(float(*this)); }   \
  explicit operator long long() const { return fl_float_to_int<long long>(float(*this)); }           \
  explicit operator unsigned long long() const { return fl_float_to_int<unsigned long long>(float(*this)); }

// One value of a family F (fp8, fp6, fp4, e8m0): constructed (explicitly)
// from the floats through the family's conversions given ARGUMENTS (the
// constructors' saturation and rounding, in parentheses; a half through float),
// from an integer v through FROM_INTEGER; converted (explicitly) to them from
// VALUE, its float value (of __x), to bool by NONZERO. CONVERSIONS: the
// family's FL_..._CONVERSIONS, which say which of them there are.
#define FL_NARROW_TYPE(NAME, F, ARGUMENTS, FROM_INTEGER, VALUE, NONZERO, CONVERSIONS)                                \
  struct alignas(1) NAME {                                                                                           \
    __nv_fp8_storage_t __x;                                                                                          \
    NAME() = default;                                                                                                \
    FL_CONSTRUCTORS_IN CONVERSIONS(                                                                                  \
    explicit NAME(double v) : __x(__nv_cvt_double_to_##F(v, FL_UNPAREN ARGUMENTS)) {}                                \
    explicit NAME(float v) : __x(__nv_cvt_float_to_##F(v, FL_UNPAREN ARGUMENTS)) {}                                  \
    explicit NAME(__half v) : NAME(float(v)) {}                                                                      \
    explicit NAME(__nv_bfloat16 v) : __x(__nv_cvt_bfloat16raw_to_##F(__nv_bfloat16_raw(v), FL_UNPAREN ARGUMENTS)) {} \
    FL_NARROW_FROM_INTEGERS(NAME, FROM_INTEGER))                                                                     \
    FL_OPERATORS_IN CONVERSIONS(                                                                                     \
    explicit operator float() const { return VALUE; }                                                                \
    explicit operator double() const { return float(*this); }                                                        \
    explicit operator __half() const { return __half(float(*this)); }                                                \
    explicit operator __nv_bfloat16() const { return __nv_bfloat16(float(*this)); }                                  \
    FL_NARROW_TO_INTEGERS                                                                                            \
    explicit operator bool() const { return NONZERO; })                                                              \
  };

// Two and four values of class NAME, the first in the lowest part of the word
// (PAIR, QUAD), each converted as NAME converts it; EXTRA: further conversions
// of the pair, in parentheses.
#define FL_NARROW_VECTORS(NAME, NAME2, NAME4, PAIR, QUAD, EXTRA, CONVERSIONS)                           \
  struct alignas(sizeof(PAIR)) NAME2 {                                                                  \
    PAIR __x;                                                                                           \
    NAME2() = default;                                                                                  \
    FL_CONSTRUCTORS_IN CONVERSIONS(                                                                     \
    explicit NAME2(double2 v) : NAME2(NAME(v.x), NAME(v.y)) {}                                          \
    explicit NAME2(float2 v) : NAME2(NAME(v.x), NAME(v.y)) {}                                           \
    explicit NAME2(__half2 v) : NAME2(NAME(v.x), NAME(v.y)) {}                                          \
    explicit NAME2(__nv_bfloat162 v) : NAME2(NAME(v.x), NAME(v.y)) {})                                  \
    FL_OPERATORS_IN CONVERSIONS(                                                                        \
    explicit operator float2() const { return make_float2(float(part(0)), float(part(1))); }            \
    explicit operator __half2() const { return __half2(__half(part(0)), __half(part(1))); }             \
    FL_UNPAREN EXTRA)                                                                                   \
   private:                                                                                             \
    NAME2(NAME low, NAME high) : __x(fl::emu::pack_halves<PAIR>(low.__x, high.__x)) {}                  \
    NAME part(int k) const {                                                                            \
      return fl::emu::with_bits<NAME>(k ? fl::emu::high_half<__nv_fp8_storage_t>(__x)                   \
                                        : fl::emu::low_half<__nv_fp8_storage_t>(__x));                  \
    }                                                                                                   \
  };                                                                                                    \
  struct alignas(sizeof(QUAD)) NAME4 {                                                                  \
    QUAD __x;                                                                                           \
    NAME4() = default;                                                                                  \
    FL_CONSTRUCTORS_IN CONVERSIONS(                                                                     \
    explicit NAME4(__half2 low, __half2 high) : NAME4(NAME2(low), NAME2(high)) {}                       \
    explicit NAME4(__nv_bfloat162 low, __nv_bfloat162 high) : NAME4(NAME2(low), NAME2(high)) {}         \
    explicit NAME4(float4 v) : NAME4(NAME2(make_float2(v.x, v.y)), NAME2(make_float2(v.z, v.w))) {}     \
    explicit NAME4(double4 v) : NAME4(NAME2(make_double2(v.x, v.y)), NAME2(make_double2(v.z, v.w))) {}) \
    FL_OPERATORS_IN CONVERSIONS(                                                                        \
    explicit operator float4() const {                                                                  \
      const float2 low = float2(fl::emu::with_bits<NAME2>(fl::emu::low_half<PAIR>(__x)));               \
      const float2 high = float2(fl::emu::with_bits<NAME2>(fl::emu::high_half<PAIR>(__x)));             \
      return make_float4(low.x, low.y, high.x, high.y);                                                 \
    })                                                                                                  \
   private:                                                                                             \
    NAME4(NAME2 low, NAME2 high) : __x(fl::emu::pack_halves<QUAD>(low.__x, high.__x)) {}                \
  };

// A kind S (e4m3 ...) of family F (fp8, fp6, fp4): its classes of one, two
// and four values, their constructors rounding as ARGUMENTS say.
#define FL_NARROW_KIND(F, S, KIND, ARGUMENTS, CONVERSIONS)                                      \
  FL_NARROW_TYPE(__nv_##F##_##S, F, ARGUMENTS, static_cast<float>(v),                           \
                 fl::emu::narrow_to_float(__x, fl_format_of(KIND)),                             \
                 (__x & ((1u << (fl_format_of(KIND).bits - 1)) - 1)) != 0, CONVERSIONS)         \
  FL_NARROW_VECTORS(__nv_##F##_##S, __nv_##F##x2_##S, __nv_##F##x4_##S, __nv_##F##x2_storage_t, \
                    __nv_##F##x4_storage_t, (), CONVERSIONS)

FL_NARROW_KIND(fp8, e4m3, __NV_E4M3, (__NV_SATFINITE, __NV_E4M3), FL_FP8_CONVERSIONS)
FL_NARROW_KIND(fp8, e5m2, __NV_E5M2, (__NV_SATFINITE, __NV_E5M2), FL_FP8_CONVERSIONS)

// E8M0 scales: constructed from the floats rounding up, saturating; from an
// integer to the power of two at or above its magnitude, exactly (the GPU fixes
// up a 64-bit one's rounding); converted through bfloat16 (to half, rounding
// to nearest); never false. A pair also converts to a bfloat16 pair.
FL_NARROW_TYPE(__nv_fp8_e8m0, e8m0, (__NV_SATFINITE, cudaRoundPosInf), fl::emu::magnitude_up(v),
               fl::emu::bf16_bits_to_float(fl::emu::e8m0_to_bf16_bits(__x)), true, FL_FP8_CONVERSIONS)
FL_NARROW_VECTORS(__nv_fp8_e8m0, __nv_fp8x2_e8m0, __nv_fp8x4_e8m0, __nv_fp8x2_storage_t, __nv_fp8x4_storage_t,
                  (explicit operator __nv_bfloat162() const { return __nv_bfloat162(__nv_cvt_e8m0x2_to_bf162raw(__x)); }),
                  FL_FP8_CONVERSIONS)

#endif
