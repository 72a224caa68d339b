// HIP's vector types on AMD's platform have arithmetic: amd_hip_vector_types.h
// gives float2, int4 ... element-wise + - * / (and % & | ^ << >> ~ on integer
// ones) with another vector or a scalar, the compound assignments and unary minus,
// which sources for AMD GPUs use (ROCm's vLLM: `sum2[i] += a2[i][offset] * x2[offset];`
// on float2). CUDA's vector types, and HIP's on NVIDIA's platform, have none: this
// header is for AMD's device pass only. Templates, so a source's own operator for a
// type is preferred where it matches exactly.
#ifndef FUSELAB_EMULATOR_HIP_VECTOR_OPERATORS_H
#define FUSELAB_EMULATOR_HIP_VECTOR_OPERATORS_H

#include <type_traits>

#include "types.h"

namespace fl::emu::hip_vectors {

template <typename V> struct traits { static constexpr int size = 0; };
#define FL_HIP_VECTOR_TRAITS(T, N)                                                          \
  template <> struct traits<N##1> { using scalar = T; static constexpr int size = 1; };     \
  template <> struct traits<N##2> { using scalar = T; static constexpr int size = 2; };     \
  template <> struct traits<N##3> { using scalar = T; static constexpr int size = 3; };     \
  template <> struct traits<N##4> { using scalar = T; static constexpr int size = 4; };
FL_HIP_VECTOR_TRAITS(signed char, char)
FL_HIP_VECTOR_TRAITS(unsigned char, uchar)
FL_HIP_VECTOR_TRAITS(short, short)
FL_HIP_VECTOR_TRAITS(unsigned short, ushort)
FL_HIP_VECTOR_TRAITS(int, int)
FL_HIP_VECTOR_TRAITS(unsigned int, uint)
FL_HIP_VECTOR_TRAITS(long, long)
FL_HIP_VECTOR_TRAITS(unsigned long, ulong)
FL_HIP_VECTOR_TRAITS(long long, longlong)
FL_HIP_VECTOR_TRAITS(unsigned long long, ulonglong)
FL_HIP_VECTOR_TRAITS(float, float)
FL_HIP_VECTOR_TRAITS(double, double)
#undef FL_HIP_VECTOR_TRAITS

template <typename V> constexpr bool is_vector = traits<std::remove_cv_t<V>>::size > 0;
template <typename V, typename = void> struct integer_vector : std::false_type {};
template <typename V>
struct integer_vector<V, std::enable_if_t<(traits<V>::size > 0)>> : std::is_integral<typename traits<V>::scalar> {};
template <typename V> constexpr bool is_integer_vector = integer_vector<std::remove_cv_t<V>>::value;

// r = f(a, b) element by element; b a vector of the same type, or a scalar.
template <typename V, typename B, typename F>
inline V each(const V& a, const B& b, F f) {
  const auto at = [&b](auto V::*member) {
    if constexpr (is_vector<B>) return b.*member;
    else return static_cast<typename traits<V>::scalar>(b);
  };
  V r = a;
  r.x = static_cast<typename traits<V>::scalar>(f(a.x, at(&V::x)));
  if constexpr (traits<V>::size >= 2) r.y = static_cast<typename traits<V>::scalar>(f(a.y, at(&V::y)));
  if constexpr (traits<V>::size >= 3) r.z = static_cast<typename traits<V>::scalar>(f(a.z, at(&V::z)));
  if constexpr (traits<V>::size >= 4) r.w = static_cast<typename traits<V>::scalar>(f(a.w, at(&V::w)));
  return r;
}

// The right operand: the same vector type, or a scalar (arithmetic).
template <typename V, typename B>
constexpr bool operand = is_vector<V> && (std::is_same_v<V, B> || std::is_arithmetic_v<B>);

}  // namespace fl::emu::hip_vectors

#define FL_HIP_VECTOR_OPERATOR(op, integer_only)                                                                      \
  template <typename V, typename B,                                                                                   \
            std::enable_if_t<::fl::emu::hip_vectors::operand<V, B> &&                                                 \
                                 (!(integer_only) || ::fl::emu::hip_vectors::is_integer_vector<V>), int> = 0>         \
  inline V operator op(const V& a, const B& b) {                                                                      \
    return ::fl::emu::hip_vectors::each(a, b, [](auto x, auto y) { return x op y; });                                 \
  }                                                                                                                   \
  template <typename S, typename V,                                                                                   \
            std::enable_if_t<std::is_arithmetic_v<S> && ::fl::emu::hip_vectors::is_vector<V> &&                       \
                                 (!(integer_only) || ::fl::emu::hip_vectors::is_integer_vector<V>), int> = 0>         \
  inline V operator op(const S& s, const V& v) {                                                                      \
    return ::fl::emu::hip_vectors::each(v, s, [](auto x, auto y) { return y op x; });                                 \
  }                                                                                                                   \
  template <typename V, typename B,                                                                                   \
            std::enable_if_t<::fl::emu::hip_vectors::operand<V, B> &&                                                 \
                                 (!(integer_only) || ::fl::emu::hip_vectors::is_integer_vector<V>), int> = 0>         \
  inline V& operator op##=(V& a, const B& b) {                                                                        \
    return a = a op b;                                                                                                \
  }
FL_HIP_VECTOR_OPERATOR(+, false)
FL_HIP_VECTOR_OPERATOR(-, false)
FL_HIP_VECTOR_OPERATOR(*, false)
FL_HIP_VECTOR_OPERATOR(/, false)
FL_HIP_VECTOR_OPERATOR(%, true)
FL_HIP_VECTOR_OPERATOR(&, true)
FL_HIP_VECTOR_OPERATOR(|, true)
FL_HIP_VECTOR_OPERATOR(^, true)
FL_HIP_VECTOR_OPERATOR(<<, true)
FL_HIP_VECTOR_OPERATOR(>>, true)
#undef FL_HIP_VECTOR_OPERATOR

template <typename V, std::enable_if_t<::fl::emu::hip_vectors::is_vector<V>, int> = 0>
inline V operator-(const V& v) {
  return ::fl::emu::hip_vectors::each(v, 0, [](auto x, auto) { return -x; });
}
template <typename V, std::enable_if_t<::fl::emu::hip_vectors::is_integer_vector<V>, int> = 0>
inline V operator~(const V& v) {
  return ::fl::emu::hip_vectors::each(v, 0, [](auto x, auto) { return ~x; });
}

#endif
