// The GPU's small value types on the CPU: 16-bit floats stored as their bits,
// converted with round-to-nearest-even as the GPU converts them, and the
// vector types with the GPU's alignment (a float4 is one 16-byte access).
#ifndef FUSELAB_EMULATOR_TYPES_H
#define FUSELAB_EMULATOR_TYPES_H

#include <stdint.h>
#include <string.h>

namespace fl::emu {

inline uint32_t float_bits(float f) {
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  return u;
}
inline float bits_float(uint32_t u) {
  float f;
  memcpy(&f, &u, sizeof f);
  return f;
}

}  // namespace fl::emu

// Marks a toolkit function that projects also define themselves, for GPUs
// older than the one that has it, under #if __CUDA_ARCH__ < N: compiled here
// when compile's option arch names such a GPU, or the host pass. As a template, the
// toolkit's function loses to a source's own with the same parameters, where
// it would otherwise be a redefinition.
#define FL_YIELDS_TO_SOURCE template <typename = void>

// A toolkit intrinsic that a source's constexpr __host__ __device__ function may
// call (hipcc and nvcc accept such calls; g++ refuses a call from a constexpr
// function to one that is not): as a constexpr template, it may be called there
// whether or not its body could be evaluated at compile time.
#define FL_INTRINSIC template <typename = void> constexpr

// Vector types, with the GPU's sizes and alignments (a float4 is one 16-byte
// access, a float3 three 4-byte ones). CUDA's are aggregates; HIP's on AMD's
// platform (amd_hip_vector_types.h, compiled by hip-clang: __HIP__) are classes
// whose one value fills every element, explicitly (rpp's `(float4)x`), and whose
// values, one for each element, make one.
#if defined(__HIP__)
#define FL_VECTOR_CONSTRUCTORS_1(T, V) V() = default; constexpr V(T x_) : x(x_) {}
#define FL_VECTOR_CONSTRUCTORS_2(T, V) \
  V() = default; explicit constexpr V(T v) : x(v), y(v) {} constexpr V(T x_, T y_) : x(x_), y(y_) {}
#define FL_VECTOR_CONSTRUCTORS_3(T, V) \
  V() = default; explicit constexpr V(T v) : x(v), y(v), z(v) {} constexpr V(T x_, T y_, T z_) : x(x_), y(y_), z(z_) {}
#define FL_VECTOR_CONSTRUCTORS_4(T, V)                       \
  V() = default;                                              \
  explicit constexpr V(T v) : x(v), y(v), z(v), w(v) {}       \
  constexpr V(T x_, T y_, T z_, T w_) : x(x_), y(y_), z(z_), w(w_) {}
#else
#define FL_VECTOR_CONSTRUCTORS_1(T, V)
#define FL_VECTOR_CONSTRUCTORS_2(T, V)
#define FL_VECTOR_CONSTRUCTORS_3(T, V)
#define FL_VECTOR_CONSTRUCTORS_4(T, V)
#endif
#define FL_VECTOR_1(T, N, A) struct alignas(A) N##1 { T x; FL_VECTOR_CONSTRUCTORS_1(T, N##1) };          \
  inline N##1 make_##N##1(T x) { return N##1{x}; }
#define FL_VECTOR_2(T, N, A) struct alignas(A) N##2 { T x, y; FL_VECTOR_CONSTRUCTORS_2(T, N##2) };       \
  inline N##2 make_##N##2(T x, T y) { return {x, y}; }
#define FL_VECTOR_3(T, N) struct N##3 { T x, y, z; FL_VECTOR_CONSTRUCTORS_3(T, N##3) };                  \
  inline N##3 make_##N##3(T x, T y, T z) { return {x, y, z}; }
#define FL_VECTOR_4(T, N, A) struct alignas(A) N##4 { T x, y, z, w; FL_VECTOR_CONSTRUCTORS_4(T, N##4) }; \
  inline N##4 make_##N##4(T x, T y, T z, T w) { return {x, y, z, w}; }
#define FL_VECTORS(T, N, A1, A2, A4) FL_VECTOR_1(T, N, A1) FL_VECTOR_2(T, N, A2) FL_VECTOR_3(T, N) FL_VECTOR_4(T, N, A4)
FL_VECTORS(signed char, char, 1, 2, 4)
FL_VECTORS(unsigned char, uchar, 1, 2, 4)
FL_VECTORS(short, short, 2, 4, 8)
FL_VECTORS(unsigned short, ushort, 2, 4, 8)
FL_VECTORS(int, int, 4, 8, 16)
FL_VECTORS(unsigned int, uint, 4, 8, 16)
FL_VECTORS(long, long, 8, 16, 16)
FL_VECTORS(unsigned long, ulong, 8, 16, 16)
FL_VECTORS(long long, longlong, 8, 16, 16)
FL_VECTORS(unsigned long long, ulonglong, 8, 16, 16)
FL_VECTORS(float, float, 4, 8, 16)
FL_VECTORS(double, double, 8, 16, 16)
#undef FL_VECTORS
#undef FL_VECTOR_1
#undef FL_VECTOR_2
#undef FL_VECTOR_3
#undef FL_VECTOR_4
#undef FL_VECTOR_CONSTRUCTORS_1
#undef FL_VECTOR_CONSTRUCTORS_2
#undef FL_VECTOR_CONSTRUCTORS_3
#undef FL_VECTOR_CONSTRUCTORS_4

// blockDim and gridDim are dim3s, threadIdx and blockIdx uint3s: the same three
// unsigned ints as the run time's fl_emu_dim3.
struct dim3 {
  unsigned int x, y, z;
  constexpr dim3(unsigned int x_ = 1, unsigned int y_ = 1, unsigned int z_ = 1) : x(x_), y(y_), z(z_) {}
  constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
  constexpr operator uint3() const { return {x, y, z}; }
};

#endif
