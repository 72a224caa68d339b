// <cuda_fp4.h> on the CPU emulator: CUDA's 4-bit float (12.8), E2M1 (2 exponent
// bits, 1 mantissa bit, bias 1, 6 the largest; no infinity, no NaN), in the low
// 4 bits of a byte, a pair in one byte (the first value in the low 4 bits).
// Conversions round and saturate as cuda_fp6.h's do; it comes with this header,
// as the toolkit's does.
#ifndef FUSELAB_EMULATOR_INCLUDE_CUDA_FP4_H
#define FUSELAB_EMULATOR_INCLUDE_CUDA_FP4_H
#include <cuda_fp6.h>

// What __CUDA_NO_FP4_CONVERSIONS__ and __CUDA_NO_FP4_CONVERSION_OPERATORS__ leave out.
#if defined(__CUDA_NO_FP4_CONVERSIONS__)
#define FL_FP4_CONVERSIONS (FL_DROP, FL_DROP)
#elif defined(__CUDA_NO_FP4_CONVERSION_OPERATORS__)
#define FL_FP4_CONVERSIONS (FL_KEEP, FL_DROP)
#else
#define FL_FP4_CONVERSIONS (FL_KEEP, FL_KEEP)
#endif

#define __CUDA_FP4_TYPES_EXIST__
typedef __nv_fp8_storage_t __nv_fp4_storage_t;
typedef __nv_fp8_storage_t __nv_fp4x2_storage_t;
typedef __nv_fp8x2_storage_t __nv_fp4x4_storage_t;

typedef enum __nv_fp4_interpretation_t { __NV_E2M1 } __nv_fp4_interpretation_t;

inline fl::emu::narrow_format fl_format_of(__nv_fp4_interpretation_t) {
  return fl::emu::narrow_format{4, 1, 1, 0x7, false};
}

FL_NARROW_CONVERSIONS(fp4, __nv_fp4x2_storage_t, __nv_fp4_interpretation_t, fl_double_to_saturated,
                      (__nv_fp4_interpretation_t kind, cudaRoundMode rounding), (kind, rounding))

FL_NARROW_KIND(fp4, e2m1, __NV_E2M1, (__NV_E2M1, cudaRoundNearest), FL_FP4_CONVERSIONS)

#endif
