// <cuda_fp6.h> on the CPU emulator: CUDA's 6-bit floats (12.8), E2M3 (2 exponent
// bits, 3 mantissa bits, bias 1, 7.5 the largest) and E3M2 (3 and 2, bias 3, 28
// the largest), with neither infinity nor NaN, each in the low 6 bits of a byte.
// Conversions to them round to nearest even or toward zero (cudaRoundNearest,
// cudaRoundZero, which the GPU asserts; the classes' constructors round to
// nearest) and saturate: past the largest, the largest of x's sign; NaN gives
// the positive largest. Every value is exact in half and float.
#ifndef FUSELAB_EMULATOR_INCLUDE_CUDA_FP6_H
#define FUSELAB_EMULATOR_INCLUDE_CUDA_FP6_H
#include <cuda_fp8.h>

// What __CUDA_NO_FP6_CONVERSIONS__ and __CUDA_NO_FP6_CONVERSION_OPERATORS__ leave out.
#if defined(__CUDA_NO_FP6_CONVERSIONS__)
#define FL_FP6_CONVERSIONS (FL_DROP, FL_DROP)
#elif defined(__CUDA_NO_FP6_CONVERSION_OPERATORS__)
#define FL_FP6_CONVERSIONS (FL_KEEP, FL_DROP)
#else
#define FL_FP6_CONVERSIONS (FL_KEEP, FL_KEEP)
#endif

#define __CUDA_FP6_TYPES_EXIST__
typedef __nv_fp8_storage_t __nv_fp6_storage_t;
typedef __nv_fp8x2_storage_t __nv_fp6x2_storage_t;
typedef __nv_fp8x4_storage_t __nv_fp6x4_storage_t;

typedef enum __nv_fp6_interpretation_t { __NV_E2M3, __NV_E3M2 } __nv_fp6_interpretation_t;

inline fl::emu::narrow_format fl_format_of(__nv_fp6_interpretation_t kind) {
  return kind == __NV_E2M3 ? fl::emu::narrow_format{6, 3, 1, 0x1f, false} : fl::emu::narrow_format{6, 2, 3, 0x1f, false};
}

// x's code in a 6- or 4-bit format (of interpretation `kind`), rounded to
// nearest even or toward zero (the GPU asserts one of them, then rounds toward
// zero unless told to nearest), saturating; NaN gives the positive largest.
template <typename Kind> inline __nv_fp8_storage_t fl_double_to_saturated(double x, Kind kind, cudaRoundMode rounding) {
  assert(rounding == cudaRoundNearest || rounding == cudaRoundZero);
  const fl::emu::narrow_format f = fl_format_of(kind);
  const fl_rounding mode = rounding == cudaRoundNearest ? FL_ROUND_NEAREST : FL_ROUND_ZERO;
  return fl::emu::double_to_narrow(x, f, mode, true, static_cast<__nv_fp8_storage_t>(f.largest));
}

FL_NARROW_CONVERSIONS(fp6, __nv_fp6x2_storage_t, __nv_fp6_interpretation_t, fl_double_to_saturated,
                      (__nv_fp6_interpretation_t kind, cudaRoundMode rounding), (kind, rounding))

FL_NARROW_KIND(fp6, e2m3, __NV_E2M3, (__NV_E2M3, cudaRoundNearest), FL_FP6_CONVERSIONS)
FL_NARROW_KIND(fp6, e3m2, __NV_E3M2, (__NV_E3M2, cudaRoundNearest), FL_FP6_CONVERSIONS)

#endif
