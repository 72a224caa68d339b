// <c10/cuda/CUDAMathCompat.h> for a PyTorch extension's kernels: c10::cuda::compat's
// math functions of float and double, each the C library's function of that type.
#ifndef FUSELAB_TORCH_CUDA_MATH_COMPAT_H
#define FUSELAB_TORCH_CUDA_MATH_COMPAT_H
#include <fuselab_torch.h>
#include <math.h>
namespace c10 {
namespace cuda {
namespace compat {
#define FUSELAB_COMPAT_UNARY(name, of_float, of_double)                      \
  C10_HOST_DEVICE inline float name(float x) { return ::of_float(x); }      \
  C10_HOST_DEVICE inline double name(double x) { return ::of_double(x); }
#define FUSELAB_COMPAT_BINARY(name, of_float, of_double)                                 \
  C10_HOST_DEVICE inline float name(float x, float y) { return ::of_float(x, y); }      \
  C10_HOST_DEVICE inline double name(double x, double y) { return ::of_double(x, y); }
FUSELAB_COMPAT_UNARY(abs, fabsf, fabs)
FUSELAB_COMPAT_UNARY(ceil, ceilf, ceil)
FUSELAB_COMPAT_UNARY(floor, floorf, floor)
FUSELAB_COMPAT_UNARY(exp, expf, exp)
FUSELAB_COMPAT_UNARY(log, logf, log)
FUSELAB_COMPAT_UNARY(log1p, log1pf, log1p)
FUSELAB_COMPAT_UNARY(sqrt, sqrtf, sqrt)
FUSELAB_COMPAT_UNARY(rsqrt, rsqrtf, rsqrt)
FUSELAB_COMPAT_UNARY(tan, tanf, tan)
FUSELAB_COMPAT_UNARY(tanh, tanhf, tanh)
FUSELAB_COMPAT_UNARY(normcdf, normcdff, normcdf)
FUSELAB_COMPAT_BINARY(copysign, copysignf, copysign)
FUSELAB_COMPAT_BINARY(max, fmaxf, fmax)
FUSELAB_COMPAT_BINARY(min, fminf, fmin)
FUSELAB_COMPAT_BINARY(pow, powf, pow)
FUSELAB_COMPAT_BINARY(nextafter, nextafterf, nextafter)
#undef FUSELAB_COMPAT_UNARY
#undef FUSELAB_COMPAT_BINARY
C10_HOST_DEVICE inline void sincos(float x, float* s, float* c) { ::sincosf(x, s, c); }
C10_HOST_DEVICE inline void sincos(double x, double* s, double* c) { ::sincos(x, s, c); }
}  // namespace compat
}  // namespace cuda
}  // namespace c10
#endif
