// <hip/hip_complex.h> on the CPU and on NVIDIA GPUs: HIP's complex numbers are
// CUDA's (cuComplex.h), under HIP's names.
#ifndef FUSELAB_HIP_COMPLEX_H
#define FUSELAB_HIP_COMPLEX_H
#include <cuComplex.h>

typedef cuFloatComplex hipFloatComplex;
typedef cuDoubleComplex hipDoubleComplex;
typedef cuFloatComplex hipComplex;

#define FL_HIP_COMPLEX_FUNCTIONS(C, R, S, NAME)                                                         \
  __host__ __device__ inline R hipCreal##S(C x) { return cuCreal##S(x); }                              \
  __host__ __device__ inline R hipCimag##S(C x) { return cuCimag##S(x); }                              \
  __host__ __device__ inline C make_hip##NAME##Complex(R re, R im) { return make_cu##NAME##Complex(re, im); } \
  __host__ __device__ inline C hipConj##S(C x) { return cuConj##S(x); }                                \
  __host__ __device__ inline R hipCsqabs##S(C x) { return cuCreal##S(x) * cuCreal##S(x) + cuCimag##S(x) * cuCimag##S(x); } \
  __host__ __device__ inline C hipCadd##S(C x, C y) { return cuCadd##S(x, y); }                        \
  __host__ __device__ inline C hipCsub##S(C x, C y) { return cuCsub##S(x, y); }                        \
  __host__ __device__ inline C hipCmul##S(C x, C y) { return cuCmul##S(x, y); }                        \
  __host__ __device__ inline C hipCdiv##S(C x, C y) { return cuCdiv##S(x, y); }                        \
  __host__ __device__ inline R hipCabs##S(C x) { return cuCabs##S(x); }                                \
  __host__ __device__ inline C hipCfma##S(C x, C y, C d) { return cuCfma##S(x, y, d); }
FL_HIP_COMPLEX_FUNCTIONS(hipFloatComplex, float, f, Float)
FL_HIP_COMPLEX_FUNCTIONS(hipDoubleComplex, double, , Double)
#undef FL_HIP_COMPLEX_FUNCTIONS

__host__ __device__ inline hipComplex make_hipComplex(float re, float im) { return make_cuComplex(re, im); }
__host__ __device__ inline hipDoubleComplex hipComplexFloatToDouble(hipFloatComplex c) { return cuComplexFloatToDouble(c); }
__host__ __device__ inline hipFloatComplex hipComplexDoubleToFloat(hipDoubleComplex c) { return cuComplexDoubleToFloat(c); }
#endif
