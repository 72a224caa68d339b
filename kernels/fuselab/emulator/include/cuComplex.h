// <cuComplex.h> on the CPU emulator: single and double complex numbers as float2
// and double2, with the toolkit's functions. Products and sums are fused as the
// GPU's compiler fuses them; a quotient and a magnitude are scaled first, as the
// toolkit's are, so that they neither overflow nor underflow on the way.
#ifndef FUSELAB_EMULATOR_INCLUDE_CUCOMPLEX_H
#define FUSELAB_EMULATOR_INCLUDE_CUCOMPLEX_H
#include <math.h>

#include <cuda_runtime.h>

typedef float2 cuFloatComplex;
typedef double2 cuDoubleComplex;
typedef cuFloatComplex cuComplex;

// One set of functions per precision: C the complex type, R its part, S the
// names' suffix (f for float, none for double), MAX the largest finite R.
#define FL_COMPLEX_FUNCTIONS(C, R, S, MAX)                                                    \
  inline R cuCreal##S(C x) { return x.x; }                                                    \
  inline R cuCimag##S(C x) { return x.y; }                                                    \
  inline C cuConj##S(C x) { return {x.x, -x.y}; }                                             \
  inline C cuCadd##S(C x, C y) { return {x.x + y.x, x.y + y.y}; }                             \
  inline C cuCsub##S(C x, C y) { return {x.x - y.x, x.y - y.y}; }                             \
  inline C cuCmul##S(C x, C y) { return {fma##S(x.x, y.x, -(x.y * y.y)), fma##S(x.x, y.y, x.y * y.x)}; } \
  inline C cuCfma##S(C x, C y, C d) {                                                          \
    return {fma##S(-x.y, y.y, fma##S(x.x, y.x, d.x)), fma##S(x.y, y.x, fma##S(x.x, y.y, d.y))}; \
  }                                                                                            \
  inline C cuCdiv##S(C x, C y) {                                                               \
    R scale = R(1) / (fabs##S(y.x) + fabs##S(y.y));                                            \
    R xr = x.x * scale, xi = x.y * scale, yr = y.x * scale, yi = y.y * scale;                  \
    R inverse = R(1) / fma##S(yr, yr, yi * yi);                                                \
    return {fma##S(xr, yr, xi * yi) * inverse, fma##S(xi, yr, -(xr * yi)) * inverse};          \
  }                                                                                            \
  inline R cuCabs##S(C x) {                                                                    \
    R a = fabs##S(x.x), b = fabs##S(x.y);                                                      \
    R large = a > b ? a : b, small = a > b ? b : a;                                            \
    if (large == 0 || large > MAX || small > MAX) return large + small;                        \
    R ratio = small / large;                                                                   \
    return large * sqrt##S(fma##S(ratio, ratio, R(1)));                                        \
  }
FL_COMPLEX_FUNCTIONS(cuFloatComplex, float, f, 3.402823466e38f)
FL_COMPLEX_FUNCTIONS(cuDoubleComplex, double, , 1.7976931348623157e308)
#undef FL_COMPLEX_FUNCTIONS

inline cuFloatComplex make_cuFloatComplex(float re, float im) { return {re, im}; }
inline cuDoubleComplex make_cuDoubleComplex(double re, double im) { return {re, im}; }
inline cuComplex make_cuComplex(float re, float im) { return {re, im}; }
inline cuDoubleComplex cuComplexFloatToDouble(cuFloatComplex c) { return {c.x, c.y}; }
inline cuFloatComplex cuComplexDoubleToFloat(cuDoubleComplex c) { return {float(c.x), float(c.y)}; }
#endif
