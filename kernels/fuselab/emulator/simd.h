// CUDA's SIMD intrinsics on the CPU: a 32-bit word as two 16-bit or four 8-bit
// lanes, each computed apart (__vadd4, __vsubss2, __vcmpgeu4, __vsads2 ...), as
// the GPU's video instructions compute them: wrap-around unless the name says
// saturating (ss signed, us unsigned), comparisons as all-ones lanes (__vcmp*)
// or ones (__vset*), averages rounded half away from zero (__vavg*, as measured on
// an H200) or down (__vhaddu*), and
// sums of absolute differences (__vsad*) as one number.
#ifndef FUSELAB_EMULATOR_SIMD_H
#define FUSELAB_EMULATOR_SIMD_H

#include <stdint.h>

namespace fl::emu::simd {

// Lane `i` of `word`, `Bits` wide, read as signed or unsigned.
template <int Bits, bool Signed> inline int64_t lane(unsigned int word, int i) {
  const uint32_t raw = (word >> (Bits * i)) & ((1u << Bits) - 1u);
  return Signed && (raw >> (Bits - 1)) ? static_cast<int64_t>(raw) - (int64_t{1} << Bits) : static_cast<int64_t>(raw);
}

// `op` of each pair of lanes, its result's low Bits bits put back in place.
template <int Bits, bool Signed, typename Op> inline unsigned int each(unsigned int a, unsigned int b, Op op) {
  unsigned int r = 0;
  for (int i = 0; i < 32 / Bits; i++) {
    const int64_t v = op(lane<Bits, Signed>(a, i), lane<Bits, Signed>(b, i));
    r |= (static_cast<uint32_t>(v) & ((1u << Bits) - 1u)) << (Bits * i);
  }
  return r;
}

// A lane's value held to what the lane can hold.
template <int Bits, bool Signed> inline int64_t saturate(int64_t v) {
  const int64_t low = Signed ? -(int64_t{1} << (Bits - 1)) : 0;
  const int64_t high = Signed ? (int64_t{1} << (Bits - 1)) - 1 : (int64_t{1} << Bits) - 1;
  return v < low ? low : v > high ? high : v;
}

template <int Bits, bool Signed> inline unsigned int sum_abs_diff(unsigned int a, unsigned int b) {
  unsigned int sum = 0;
  for (int i = 0; i < 32 / Bits; i++) {
    const int64_t d = lane<Bits, Signed>(a, i) - lane<Bits, Signed>(b, i);
    sum += static_cast<unsigned int>(d < 0 ? -d : d);
  }
  return sum;
}

}  // namespace fl::emu::simd

// Each intrinsic in its 2-lane (16-bit) and 4-lane (8-bit) forms.
#define FL_SIMD_BINARY(name, is_signed, ...)                                                                  \
  inline unsigned int name##2(unsigned int a, unsigned int b) {                                                \
    return ::fl::emu::simd::each<16, is_signed>(a, b, [](int64_t x, int64_t y) -> int64_t { constexpr int B = 16; (void)B; return __VA_ARGS__; }); \
  }                                                                                                             \
  inline unsigned int name##4(unsigned int a, unsigned int b) {                                                \
    return ::fl::emu::simd::each<8, is_signed>(a, b, [](int64_t x, int64_t y) -> int64_t { constexpr int B = 8; (void)B; return __VA_ARGS__; }); \
  }
#define FL_SIMD_UNARY(name, ...)                                                                              \
  inline unsigned int name##2(unsigned int a) {                                                                \
    return ::fl::emu::simd::each<16, true>(a, 0, [](int64_t x, int64_t) -> int64_t { constexpr int B = 16; (void)B; return __VA_ARGS__; }); \
  }                                                                                                             \
  inline unsigned int name##4(unsigned int a) {                                                                \
    return ::fl::emu::simd::each<8, true>(a, 0, [](int64_t x, int64_t) -> int64_t { constexpr int B = 8; (void)B; return __VA_ARGS__; }); \
  }
#define FL_SIMD_SAT(is_signed, v) ::fl::emu::simd::saturate<B, is_signed>(v)

FL_SIMD_BINARY(__vadd, false, x + y)
FL_SIMD_BINARY(__vsub, false, x - y)
FL_SIMD_BINARY(__vaddss, true, FL_SIMD_SAT(true, x + y))
FL_SIMD_BINARY(__vaddus, false, FL_SIMD_SAT(false, x + y))
FL_SIMD_BINARY(__vsubss, true, FL_SIMD_SAT(true, x - y))
FL_SIMD_BINARY(__vsubus, false, FL_SIMD_SAT(false, x - y))
FL_SIMD_BINARY(__vavgs, true, x + y >= 0 ? (x + y + 1) >> 1 : -((1 - x - y) >> 1))
FL_SIMD_BINARY(__vavgu, false, (x + y + 1) >> 1)
FL_SIMD_BINARY(__vhaddu, false, (x + y) >> 1)
FL_SIMD_BINARY(__vabsdiffs, true, x > y ? x - y : y - x)
FL_SIMD_BINARY(__vabsdiffu, false, x > y ? x - y : y - x)
FL_SIMD_BINARY(__vmaxs, true, x > y ? x : y)
FL_SIMD_BINARY(__vmaxu, false, x > y ? x : y)
FL_SIMD_BINARY(__vmins, true, x < y ? x : y)
FL_SIMD_BINARY(__vminu, false, x < y ? x : y)
FL_SIMD_BINARY(__vcmpeq, false, x == y ? -1 : 0)
FL_SIMD_BINARY(__vcmpne, false, x != y ? -1 : 0)
FL_SIMD_BINARY(__vcmpges, true, x >= y ? -1 : 0)
FL_SIMD_BINARY(__vcmpgeu, false, x >= y ? -1 : 0)
FL_SIMD_BINARY(__vcmpgts, true, x > y ? -1 : 0)
FL_SIMD_BINARY(__vcmpgtu, false, x > y ? -1 : 0)
FL_SIMD_BINARY(__vcmples, true, x <= y ? -1 : 0)
FL_SIMD_BINARY(__vcmpleu, false, x <= y ? -1 : 0)
FL_SIMD_BINARY(__vcmplts, true, x < y ? -1 : 0)
FL_SIMD_BINARY(__vcmpltu, false, x < y ? -1 : 0)
FL_SIMD_BINARY(__vseteq, false, x == y)
FL_SIMD_BINARY(__vsetne, false, x != y)
FL_SIMD_BINARY(__vsetges, true, x >= y)
FL_SIMD_BINARY(__vsetgeu, false, x >= y)
FL_SIMD_BINARY(__vsetgts, true, x > y)
FL_SIMD_BINARY(__vsetgtu, false, x > y)
FL_SIMD_BINARY(__vsetles, true, x <= y)
FL_SIMD_BINARY(__vsetleu, false, x <= y)
FL_SIMD_BINARY(__vsetlts, true, x < y)
FL_SIMD_BINARY(__vsetltu, false, x < y)
FL_SIMD_UNARY(__vabs, x < 0 ? -x : x)
FL_SIMD_UNARY(__vabsss, FL_SIMD_SAT(true, x < 0 ? -x : x))
FL_SIMD_UNARY(__vneg, -x)
FL_SIMD_UNARY(__vnegss, FL_SIMD_SAT(true, -x))
inline unsigned int __vsads2(unsigned int a, unsigned int b) { return ::fl::emu::simd::sum_abs_diff<16, true>(a, b); }
inline unsigned int __vsads4(unsigned int a, unsigned int b) { return ::fl::emu::simd::sum_abs_diff<8, true>(a, b); }
inline unsigned int __vsadu2(unsigned int a, unsigned int b) { return ::fl::emu::simd::sum_abs_diff<16, false>(a, b); }
inline unsigned int __vsadu4(unsigned int a, unsigned int b) { return ::fl::emu::simd::sum_abs_diff<8, false>(a, b); }

#undef FL_SIMD_BINARY
#undef FL_SIMD_UNARY
#undef FL_SIMD_SAT

#endif
