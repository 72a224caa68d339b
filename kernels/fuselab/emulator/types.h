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

// IEEE binary16: 1 sign, 5 exponent, 10 mantissa bits.
inline float half_bits_to_float(uint16_t h) {
  uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  uint32_t exponent = (h >> 10) & 0x1fu;
  uint32_t mantissa = h & 0x3ffu;
  if (exponent == 0x1f) return bits_float(sign | 0x7f800000u | (mantissa << 13));  // Inf, NaN
  if (exponent != 0) return bits_float(sign | ((exponent + 112) << 23) | (mantissa << 13));
  if (mantissa == 0) return bits_float(sign);
  // Subnormal: mantissa * 2^-24, exact in float.
  float magnitude = static_cast<float>(mantissa) * (1.0f / 16777216.0f);
  return sign ? -magnitude : magnitude;
}

inline uint16_t float_to_half_bits(float f) {
  uint32_t x = float_bits(f);
  uint16_t sign = static_cast<uint16_t>((x >> 16) & 0x8000u);
  x &= 0x7fffffffu;
  if (x > 0x7f800000u) return sign | 0x7e00u | static_cast<uint16_t>((x >> 13) & 0x3ffu);  // NaN stays quiet NaN
  if (x >= 0x477ff000u) return sign | 0x7c00u;  // >= 65520 rounds to Inf
  uint32_t exponent = x >> 23;
  uint32_t mantissa = x & 0x7fffffu;
  if (exponent >= 113) {  // a normal half
    uint32_t h = ((exponent - 112) << 10) | (mantissa >> 13);
    uint32_t rest = mantissa & 0x1fffu;
    if (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) h++;  // a carry rolls into the exponent, as it should
    return sign | static_cast<uint16_t>(h);
  }
  if (x <= 0x33000000u) return sign;  // at most 2^-25: rounds to zero (the tie goes to even, zero)
  // A subnormal half: round(f / 2^-24). f = (1.mantissa) * 2^(exponent-127).
  uint32_t significand = mantissa | 0x800000u;
  uint32_t shift = 126 - exponent;  // 14..24
  uint32_t h = significand >> shift;
  uint32_t rest = significand & ((1u << shift) - 1);
  uint32_t halfway = 1u << (shift - 1);
  if (rest > halfway || (rest == halfway && (h & 1u))) h++;
  return sign | static_cast<uint16_t>(h);
}

}  // namespace fl::emu

// f16, as its 16 bits. Trivial to construct, so it can live in __shared__ arrays;
// converts to and from float like HIP's and CUDA's __half.
struct __half {
  unsigned short __x;
  __half() = default;
  __half(float f) : __x(fl::emu::float_to_half_bits(f)) {}
  operator float() const { return fl::emu::half_bits_to_float(__x); }
};

inline float __half2float(__half h) { return fl::emu::half_bits_to_float(h.__x); }
inline __half __float2half(float f) {
  __half h;
  h.__x = fl::emu::float_to_half_bits(f);
  return h;
}

// bf16 as its 16 storage bits, the same type as on the AMD target (vendors/hip.h).
struct fl_bf16 {
  unsigned short bits;
};

inline float __bfloat162float(fl_bf16 v) { return fl::emu::bits_float(static_cast<uint32_t>(v.bits) << 16); }
// Round to nearest even; NaN stays a (quiet) NaN.
inline fl_bf16 __float2bfloat16(float f) {
  uint32_t u = fl::emu::float_bits(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return fl_bf16{static_cast<unsigned short>((u >> 16) | 0x40u)};
  u += 0x7fffu + ((u >> 16) & 1u);
  return fl_bf16{static_cast<unsigned short>(u >> 16)};
}

// Vector types, aligned as on the GPU.
struct alignas(8) float2 { float x, y; };
struct alignas(16) float4 { float x, y, z, w; };
struct alignas(8) int2 { int x, y; };
struct alignas(16) int4 { int x, y, z, w; };
struct alignas(8) uint2 { unsigned int x, y; };
struct alignas(16) uint4 { unsigned int x, y, z, w; };
struct uint3 { unsigned int x, y, z; };
struct dim3 {
  unsigned int x, y, z;
  constexpr dim3(unsigned int x_ = 1, unsigned int y_ = 1, unsigned int z_ = 1) : x(x_), y(y_), z(z_) {}
};

inline float2 make_float2(float x, float y) { return {x, y}; }
inline float4 make_float4(float x, float y, float z, float w) { return {x, y, z, w}; }
inline int2 make_int2(int x, int y) { return {x, y}; }
inline int4 make_int4(int x, int y, int z, int w) { return {x, y, z, w}; }
inline uint2 make_uint2(unsigned int x, unsigned int y) { return {x, y}; }
inline uint4 make_uint4(unsigned int x, unsigned int y, unsigned int z, unsigned int w) { return {x, y, z, w}; }

#endif
