// The CUDA samples' <helper_math.h> API (Common/helper_math.h), written for
// fuselab: the float2/3/4, int2/3/4 and uint2/3/4 operators (component-wise
// with a vector, or with a scalar on either side, and their compound forms),
// unary minus, the make_ conversions between sizes and element types, and
// fminf/fmaxf, min/max, lerp, clamp, dot, length, normalize, floorf, fracf,
// fmodf, fabs/abs, reflect, cross and smoothstep. Device and host code alike.
#ifndef FUSELAB_HELPER_MATH_H
#define FUSELAB_HELPER_MATH_H

#include <cuda_runtime.h>

typedef unsigned int uint;
typedef unsigned short ushort;

#define FL_HM inline __host__ __device__

// ---- make_ conversions: a scalar to every component, between sizes, between element types
#define FL_HM_MAKE(T, N)                                                                          \
  FL_HM N##2 make_##N##2(T s) { return make_##N##2(s, s); }                                        \
  FL_HM N##3 make_##N##3(T s) { return make_##N##3(s, s, s); }                                     \
  FL_HM N##4 make_##N##4(T s) { return make_##N##4(s, s, s, s); }                                  \
  FL_HM N##2 make_##N##2(N##3 a) { return make_##N##2(a.x, a.y); }                                  \
  FL_HM N##3 make_##N##3(N##2 a) { return make_##N##3(a.x, a.y, T(0)); }                             \
  FL_HM N##3 make_##N##3(N##2 a, T s) { return make_##N##3(a.x, a.y, s); }                            \
  FL_HM N##3 make_##N##3(N##4 a) { return make_##N##3(a.x, a.y, a.z); }                               \
  FL_HM N##4 make_##N##4(N##3 a) { return make_##N##4(a.x, a.y, a.z, T(0)); }                          \
  FL_HM N##4 make_##N##4(N##3 a, T w) { return make_##N##4(a.x, a.y, a.z, w); }
FL_HM_MAKE(float, float)
FL_HM_MAKE(int, int)
FL_HM_MAKE(uint, uint)
#undef FL_HM_MAKE

#define FL_HM_CONVERT(TO, T, FROM)                                                                       \
  FL_HM TO##2 make_##TO##2(FROM##2 a) { return make_##TO##2(T(a.x), T(a.y)); }                           \
  FL_HM TO##3 make_##TO##3(FROM##3 a) { return make_##TO##3(T(a.x), T(a.y), T(a.z)); }                    \
  FL_HM TO##4 make_##TO##4(FROM##4 a) { return make_##TO##4(T(a.x), T(a.y), T(a.z), T(a.w)); }
FL_HM_CONVERT(float, float, int)
FL_HM_CONVERT(float, float, uint)
FL_HM_CONVERT(int, int, float)
FL_HM_CONVERT(int, int, uint)
FL_HM_CONVERT(uint, uint, int)
#undef FL_HM_CONVERT

// ---- arithmetic: vector op vector, vector op scalar, scalar op vector, and op=
#define FL_HM_OP(T, V, OP, APPLY)                                                       \
  FL_HM V##2 operator OP(V##2 a, V##2 b) { return make_##V##2(APPLY(a.x, b.x), APPLY(a.y, b.y)); }     \
  FL_HM V##2 operator OP(V##2 a, T s) { return make_##V##2(APPLY(a.x, s), APPLY(a.y, s)); }             \
  FL_HM V##2 operator OP(T s, V##2 a) { return make_##V##2(APPLY(s, a.x), APPLY(s, a.y)); }             \
  FL_HM void operator OP##=(V##2& a, V##2 b) { a = a OP b; }                                              \
  FL_HM void operator OP##=(V##2& a, T s) { a = a OP s; }                                                 \
  FL_HM V##3 operator OP(V##3 a, V##3 b) { return make_##V##3(APPLY(a.x, b.x), APPLY(a.y, b.y), APPLY(a.z, b.z)); } \
  FL_HM V##3 operator OP(V##3 a, T s) { return make_##V##3(APPLY(a.x, s), APPLY(a.y, s), APPLY(a.z, s)); }          \
  FL_HM V##3 operator OP(T s, V##3 a) { return make_##V##3(APPLY(s, a.x), APPLY(s, a.y), APPLY(s, a.z)); }          \
  FL_HM void operator OP##=(V##3& a, V##3 b) { a = a OP b; }                                              \
  FL_HM void operator OP##=(V##3& a, T s) { a = a OP s; }                                                 \
  FL_HM V##4 operator OP(V##4 a, V##4 b) {                                                                \
    return make_##V##4(APPLY(a.x, b.x), APPLY(a.y, b.y), APPLY(a.z, b.z), APPLY(a.w, b.w));            \
  }                                                                                                       \
  FL_HM V##4 operator OP(V##4 a, T s) { return make_##V##4(APPLY(a.x, s), APPLY(a.y, s), APPLY(a.z, s), APPLY(a.w, s)); } \
  FL_HM V##4 operator OP(T s, V##4 a) { return make_##V##4(APPLY(s, a.x), APPLY(s, a.y), APPLY(s, a.z), APPLY(s, a.w)); } \
  FL_HM void operator OP##=(V##4& a, V##4 b) { a = a OP b; }                                              \
  FL_HM void operator OP##=(V##4& a, T s) { a = a OP s; }
#define FL_HM_ADD(p, q) ((p) + (q))
#define FL_HM_SUB(p, q) ((p) - (q))
#define FL_HM_MUL(p, q) ((p) * (q))
#define FL_HM_DIV(p, q) ((p) / (q))
#define FL_HM_ARITHMETIC(T, V) \
  FL_HM_OP(T, V, +, FL_HM_ADD)   \
  FL_HM_OP(T, V, -, FL_HM_SUB)   \
  FL_HM_OP(T, V, *, FL_HM_MUL)   \
  FL_HM_OP(T, V, /, FL_HM_DIV)
FL_HM_ARITHMETIC(float, float)
FL_HM_ARITHMETIC(int, int)
FL_HM_ARITHMETIC(uint, uint)
#undef FL_HM_ARITHMETIC

// ---- unary minus (the signed types)
#define FL_HM_NEGATE(V)                                                                   \
  FL_HM V##2 operator-(V##2 a) { return make_##V##2(-a.x, -a.y); }                          \
  FL_HM V##3 operator-(V##3 a) { return make_##V##3(-a.x, -a.y, -a.z); }                    \
  FL_HM V##4 operator-(V##4 a) { return make_##V##4(-a.x, -a.y, -a.z, -a.w); }
FL_HM_NEGATE(float)
FL_HM_NEGATE(int)
#undef FL_HM_NEGATE

// ---- component-wise minimum and maximum: fminf/fmaxf for floats, min/max for integers
#define FL_HM_PAIRWISE(NAME, V, F)                                                                       \
  FL_HM V##2 NAME(V##2 a, V##2 b) { return make_##V##2(F(a.x, b.x), F(a.y, b.y)); }                       \
  FL_HM V##3 NAME(V##3 a, V##3 b) { return make_##V##3(F(a.x, b.x), F(a.y, b.y), F(a.z, b.z)); }           \
  FL_HM V##4 NAME(V##4 a, V##4 b) { return make_##V##4(F(a.x, b.x), F(a.y, b.y), F(a.z, b.z), F(a.w, b.w)); }
#define FL_HM_LESSER(p, q) ((q) < (p) ? (q) : (p))
#define FL_HM_GREATER(p, q) ((p) < (q) ? (q) : (p))
FL_HM_PAIRWISE(fminf, float, ::fminf)
FL_HM_PAIRWISE(fmaxf, float, ::fmaxf)
FL_HM_PAIRWISE(min, int, FL_HM_LESSER)
FL_HM_PAIRWISE(max, int, FL_HM_GREATER)
FL_HM_PAIRWISE(min, uint, FL_HM_LESSER)
FL_HM_PAIRWISE(max, uint, FL_HM_GREATER)
FL_HM_PAIRWISE(fmodf, float, ::fmodf)

// ---- interpolation and clamping
FL_HM float lerp(float a, float b, float t) { return a + t * (b - a); }
FL_HM float clamp(float f, float a, float b) { return ::fmaxf(a, ::fminf(f, b)); }
FL_HM int clamp(int f, int a, int b) { return FL_HM_GREATER(a, FL_HM_LESSER(f, b)); }
FL_HM uint clamp(uint f, uint a, uint b) { return FL_HM_GREATER(a, FL_HM_LESSER(f, b)); }
FL_HM float smoothstep(float a, float b, float x) {
  const float y = clamp((x - a) / (b - a), 0.0f, 1.0f);
  return y * y * (3.0f - 2.0f * y);
}
#define FL_HM_VECTOR_OF(V, T)                                                                         \
  FL_HM V##2 lerp(V##2 a, V##2 b, T t) { return a + t * (b - a); }                                     \
  FL_HM V##3 lerp(V##3 a, V##3 b, T t) { return a + t * (b - a); }                                     \
  FL_HM V##4 lerp(V##4 a, V##4 b, T t) { return a + t * (b - a); }                                     \
  FL_HM V##2 clamp(V##2 v, T a, T b) { return make_##V##2(clamp(v.x, a, b), clamp(v.y, a, b)); }         \
  FL_HM V##3 clamp(V##3 v, T a, T b) { return make_##V##3(clamp(v.x, a, b), clamp(v.y, a, b), clamp(v.z, a, b)); } \
  FL_HM V##4 clamp(V##4 v, T a, T b) {                                                                   \
    return make_##V##4(clamp(v.x, a, b), clamp(v.y, a, b), clamp(v.z, a, b), clamp(v.w, a, b));           \
  }                                                                                                      \
  FL_HM V##2 clamp(V##2 v, V##2 a, V##2 b) { return make_##V##2(clamp(v.x, a.x, b.x), clamp(v.y, a.y, b.y)); } \
  FL_HM V##3 clamp(V##3 v, V##3 a, V##3 b) {                                                             \
    return make_##V##3(clamp(v.x, a.x, b.x), clamp(v.y, a.y, b.y), clamp(v.z, a.z, b.z));                 \
  }                                                                                                      \
  FL_HM V##4 clamp(V##4 v, V##4 a, V##4 b) {                                                             \
    return make_##V##4(clamp(v.x, a.x, b.x), clamp(v.y, a.y, b.y), clamp(v.z, a.z, b.z), clamp(v.w, a.w, b.w)); \
  }                                                                                                      \
  FL_HM T dot(V##2 a, V##2 b) { return a.x * b.x + a.y * b.y; }                                          \
  FL_HM T dot(V##3 a, V##3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }                              \
  FL_HM T dot(V##4 a, V##4 b) { return a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w; }
FL_HM_VECTOR_OF(float, float)
FL_HM_VECTOR_OF(int, int)
FL_HM_VECTOR_OF(uint, uint)
#undef FL_HM_VECTOR_OF

// ---- lengths and directions, rounding, absolute values
#define FL_HM_FLOAT_VECTOR(N)                                                                      \
  FL_HM float length(float##N v) { return sqrtf(dot(v, v)); }                                       \
  FL_HM float##N normalize(float##N v) { return v * rsqrtf(dot(v, v)); }                             \
  FL_HM float##N smoothstep(float##N a, float##N b, float##N x) {                                     \
    const float##N y = clamp((x - a) / (b - a), 0.0f, 1.0f);                                          \
    return y * y * (make_float##N(3.0f) - make_float##N(2.0f) * y);                                   \
  }
FL_HM_FLOAT_VECTOR(2)
FL_HM_FLOAT_VECTOR(3)
FL_HM_FLOAT_VECTOR(4)
#undef FL_HM_FLOAT_VECTOR

FL_HM float fracf(float v) { return v - ::floorf(v); }
#define FL_HM_EACH(NAME, V, F)                                                                    \
  FL_HM V##2 NAME(V##2 v) { return make_##V##2(F(v.x), F(v.y)); }                                  \
  FL_HM V##3 NAME(V##3 v) { return make_##V##3(F(v.x), F(v.y), F(v.z)); }                          \
  FL_HM V##4 NAME(V##4 v) { return make_##V##4(F(v.x), F(v.y), F(v.z), F(v.w)); }
FL_HM_EACH(floorf, float, ::floorf)
FL_HM_EACH(fracf, float, fracf)
FL_HM_EACH(fabs, float, ::fabsf)
FL_HM_EACH(abs, int, ::abs)
#undef FL_HM_EACH
#undef FL_HM_PAIRWISE
#undef FL_HM_LESSER
#undef FL_HM_GREATER
#undef FL_HM_OP
#undef FL_HM_ADD
#undef FL_HM_SUB
#undef FL_HM_MUL
#undef FL_HM_DIV

// ---- geometry
FL_HM float3 reflect(float3 i, float3 n) { return i - 2.0f * n * dot(n, i); }
FL_HM float3 cross(float3 a, float3 b) { return make_float3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x); }

#undef FL_HM
#endif
