// CUDA's and HIP's device intrinsics on the CPU: warp operations with lane
// masks, bit manipulation, float conversions and reinterpretations, the fast
// math forms, memory fences and the atomics beyond vendors/cpu.h's basic set.
// Integer results are exact; the fast math forms are the precise functions
// (the GPU's approximations differ from them in the last bits).
#ifndef FUSELAB_EMULATOR_INTRINSICS_H
#define FUSELAB_EMULATOR_INTRINSICS_H

#include <fenv.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <limits>
#include <type_traits>

#include "half.h"
#include "simd.h"
#include "runtime.h"

namespace fl {
namespace emu {

// The _sync forms: only the lanes of `mask` take part (width <= 0: the whole warp).
template <typename T> inline T shfl_sync(int line, uint64_t mask, T v, int source, int width = -1) {
  return shuffle_op(warp_op::shfl, line, v, static_cast<uint32_t>(source), width, mask);
}
template <typename T> inline T shfl_xor_sync(int line, uint64_t mask, T v, int lane_mask, int width = -1) {
  return shuffle_op(warp_op::shfl_xor, line, v, static_cast<uint32_t>(lane_mask), width, mask);
}
template <typename T> inline T shfl_down_sync(int line, uint64_t mask, T v, unsigned delta, int width = -1) {
  return shuffle_op(warp_op::shfl_down, line, v, delta, width, mask);
}
template <typename T> inline T shfl_up_sync(int line, uint64_t mask, T v, unsigned delta, int width = -1) {
  return shuffle_op(warp_op::shfl_up, line, v, delta, width, mask);
}
// AMD's cross-lane read (ds_bpermute) on the device pass: each lane's `v` from lane
// `source` (modulo 64) among the lanes running with it (the exec mask: those that
// reached this call together, in a branch the branch's); 0 from a lane not running,
// as the GPU reads a disabled lane.
template <typename T> inline T bpermute_running(int line, T v, uint32_t source) {
  const lane_mask exec = warp_exchange(warp_op::activemask, line, 0, 0, kWholeWarp);
  const uint32_t self = lane_in_warp();
  source &= 63;
  const bool running = exec >> source & 1;
  const T got = shuffle_op(warp_op::shfl, line, v, running ? source : self, kWholeWarp, exec);
  if (running) return got;
  T zero;
  memset(&zero, 0, sizeof zero);
  return zero;
}
inline uint64_t vote_sync(warp_op op, int line, uint64_t mask, bool p) {
  return warp_exchange(op, line, p ? 1 : 0, 0, kWholeWarp, mask);
}
inline void syncwarp(int line, uint64_t mask = ~0ull) { warp_exchange(warp_op::syncwarp, line, 0, 0, kWholeWarp, mask); }
// __syncwarp() and __syncwarp(mask) from one macro: syncwarp_at(__LINE__)(...).
struct syncwarp_at {
  int line;
  void operator()(uint64_t mask = ~0ull) const { syncwarp(line, mask); }
};

// __reduce_*_sync (sm_80) on 32-bit integers, signed or not, and __match_*_sync
// (sm_70) on 32- and 64-bit numbers, compared bit for bit.
inline int reduce_sync(warp_op op, int line, uint64_t mask, int v) {
  return static_cast<int>(static_cast<uint32_t>(warp_exchange(op, line, static_cast<uint32_t>(v), 1, kWholeWarp, mask)));
}
inline unsigned reduce_sync(warp_op op, int line, uint64_t mask, unsigned v) {
  return static_cast<unsigned>(warp_exchange(op, line, v, 0, kWholeWarp, mask));
}
template <typename T>
inline uint64_t match_any_sync(int line, uint64_t mask, T v) {
  static_assert((sizeof(T) == 4 || sizeof(T) == 8) && std::is_arithmetic<T>::value, "__match_any_sync compares 32- or 64-bit numbers");
  return warp_exchange(warp_op::match_any, line, to_lane_bits(v), 0, kWholeWarp, mask);
}
template <typename T>
inline uint64_t match_all_sync(int line, uint64_t mask, T v, int* pred) {
  static_assert((sizeof(T) == 4 || sizeof(T) == 8) && std::is_arithmetic<T>::value, "__match_all_sync compares 32- or 64-bit numbers");
  const uint64_t lanes = warp_exchange(warp_op::match_all, line, to_lane_bits(v), 0, kWholeWarp, mask);
  *pred = lanes != 0;
  return lanes;
}

template <typename T> inline T bit_cast(const void* from) {
  T to;
  memcpy(&to, from, sizeof to);
  return to;
}

}  // namespace emu
}  // namespace fl

// The shuffles are functions, as CUDA's and HIP's are, so that a source may
// overload them for its own types (pytorch_scatter's __shfl_down_sync of an
// at::Half); the calling line comes from __builtin_LINE(). The mask is a
// template parameter (CUDA's unsigned, HIP's unsigned long long), and the lane
// or delta is typed as CUDA types it, so that a source's overload is chosen
// over these for its type. HIP's forms without a mask take the whole warp.
template <typename M, typename T> inline T __shfl_sync(M mask, T v, int source, int width = -1, int line = __builtin_LINE()) {
  static_assert(std::is_integral<M>::value, "a lane mask is an integer");
  return ::fl::emu::shfl_sync(line, static_cast<uint64_t>(mask), v, source, width);
}
template <typename M, typename T> inline T __shfl_xor_sync(M mask, T v, int lane_mask, int width = -1, int line = __builtin_LINE()) {
  static_assert(std::is_integral<M>::value, "a lane mask is an integer");
  return ::fl::emu::shfl_xor_sync(line, static_cast<uint64_t>(mask), v, lane_mask, width);
}
template <typename M, typename T> inline T __shfl_down_sync(M mask, T v, unsigned int delta, int width = -1, int line = __builtin_LINE()) {
  static_assert(std::is_integral<M>::value, "a lane mask is an integer");
  return ::fl::emu::shfl_down_sync(line, static_cast<uint64_t>(mask), v, delta, width);
}
template <typename M, typename T> inline T __shfl_up_sync(M mask, T v, unsigned int delta, int width = -1, int line = __builtin_LINE()) {
  static_assert(std::is_integral<M>::value, "a lane mask is an integer");
  return ::fl::emu::shfl_up_sync(line, static_cast<uint64_t>(mask), v, delta, width);
}
#if defined(__AMDGCN__)
// On AMD's device pass, HIP's own code for them (amd_warp_functions.h): each lane
// computes the lane it reads, and ds_bpermute reads it among the lanes running.
inline int amd_lane() { return static_cast<int>(::fl::emu::lane_in_warp()); }
inline int amd_width(int width) { return width < 0 ? ::fl::emu::tls().warp_size : width; }
template <typename T> inline T __shfl(T v, int source, int width = -1, int line = __builtin_LINE()) {
  const int w = amd_width(width);
  return ::fl::emu::bpermute_running(line, v, static_cast<uint32_t>((source & (w - 1)) + (amd_lane() & ~(w - 1))));
}
template <typename T> inline T __shfl_xor(T v, int lane_mask, int width = -1, int line = __builtin_LINE()) {
  const int self = amd_lane(), w = amd_width(width), index = self ^ lane_mask;
  return ::fl::emu::bpermute_running(line, v, static_cast<uint32_t>(index >= ((self + w) & ~(w - 1)) ? self : index));
}
template <typename T> inline T __shfl_down(T v, unsigned int delta, int width = -1, int line = __builtin_LINE()) {
  const int self = amd_lane(), w = amd_width(width);
  return ::fl::emu::bpermute_running(line, v, static_cast<uint32_t>(static_cast<int>((self & (w - 1)) + delta) >= w ? self : self + static_cast<int>(delta)));
}
template <typename T> inline T __shfl_up(T v, unsigned int delta, int width = -1, int line = __builtin_LINE()) {
  const int self = amd_lane(), w = amd_width(width), index = self - static_cast<int>(delta);
  return ::fl::emu::bpermute_running(line, v, static_cast<uint32_t>(index < (self & ~(w - 1)) ? self : index));
}
#else
template <typename T> inline T __shfl(T v, int source, int width = -1, int line = __builtin_LINE()) {
  return ::fl::emu::shfl_sync(line, ~0ull, v, source, width);
}
template <typename T> inline T __shfl_xor(T v, int lane_mask, int width = -1, int line = __builtin_LINE()) {
  return ::fl::emu::shfl_xor_sync(line, ~0ull, v, lane_mask, width);
}
template <typename T> inline T __shfl_down(T v, unsigned int delta, int width = -1, int line = __builtin_LINE()) {
  return ::fl::emu::shfl_down_sync(line, ~0ull, v, delta, width);
}
template <typename T> inline T __shfl_up(T v, unsigned int delta, int width = -1, int line = __builtin_LINE()) {
  return ::fl::emu::shfl_up_sync(line, ~0ull, v, delta, width);
}
#endif
#define __any(p) __any_sync(~0ull, p)
#define __all(p) __all_sync(~0ull, p)
#define __ballot(p) __ballot_sync(~0ull, p)
// Votes give an int; ballots and __activemask 64 bits as HIP's do (the lanes of a
// 64-lane wavefront; with 32-lane warps the top half is zero).
#define __any_sync(mask, p) static_cast<int>(::fl::emu::vote_sync(::fl::emu::warp_op::any, __LINE__, (mask), (p) != 0))
#define __all_sync(mask, p) static_cast<int>(::fl::emu::vote_sync(::fl::emu::warp_op::all, __LINE__, (mask), (p) != 0))
#define __uni_sync(mask, p) (__all_sync(mask, p) || !__any_sync(mask, p))
#define __ballot_sync(mask, p) \
  static_cast<unsigned long long>(::fl::emu::vote_sync(::fl::emu::warp_op::ballot, __LINE__, (mask), (p) != 0))
#define __activemask() \
  static_cast<unsigned long long>(::fl::emu::warp_exchange(::fl::emu::warp_op::activemask, __LINE__, 0, 0, ::fl::emu::kWholeWarp))
#define __syncwarp(...) ::fl::emu::syncwarp_at{__LINE__}(__VA_ARGS__)
#define __reduce_add_sync(mask, v) ::fl::emu::reduce_sync(::fl::emu::warp_op::reduce_add, __LINE__, (mask), (v))
#define __reduce_min_sync(mask, v) ::fl::emu::reduce_sync(::fl::emu::warp_op::reduce_min, __LINE__, (mask), (v))
#define __reduce_max_sync(mask, v) ::fl::emu::reduce_sync(::fl::emu::warp_op::reduce_max, __LINE__, (mask), (v))
#define __reduce_and_sync(mask, v) ::fl::emu::reduce_sync(::fl::emu::warp_op::reduce_and, __LINE__, (mask), (v))
#define __reduce_or_sync(mask, v) ::fl::emu::reduce_sync(::fl::emu::warp_op::reduce_or, __LINE__, (mask), (v))
#define __reduce_xor_sync(mask, v) ::fl::emu::reduce_sync(::fl::emu::warp_op::reduce_xor, __LINE__, (mask), (v))
#define __match_any_sync(mask, v) static_cast<unsigned long long>(::fl::emu::match_any_sync(__LINE__, (mask), (v)))
#define __match_all_sync(mask, v, pred) static_cast<unsigned long long>(::fl::emu::match_all_sync(__LINE__, (mask), (v), (pred)))
// A thread's pause (sm_70): the emulator's threads switch only at barriers and warp operations.
inline void __nanosleep(unsigned int) {}

// ---- bits
inline int __popc(unsigned int x) { return __builtin_popcount(x); }
inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
inline int __ffs(int x) { return __builtin_ffs(x); }
inline int __ffsll(long long x) { return __builtin_ffsll(x); }
// The position of the |offset|-th set bit of mask from bit base on (itself counted), toward
// the high bits for a positive offset, the low bits for a negative one; for 0, base if its
// bit is set; else 0xffffffff (PTX's fns).
inline unsigned int __fns(unsigned int mask, unsigned int base, int offset) {
  if (offset == 0) return base < 32 && (mask >> base & 1u) ? base : 0xffffffffu;
  const int step = offset > 0 ? 1 : -1;
  unsigned int count = static_cast<unsigned int>(offset > 0 ? offset : -offset) - 1;
  for (int pos = static_cast<int>(base); pos >= 0 && pos < 32; pos += step) {
    if (!(mask >> pos & 1u)) continue;
    if (count == 0) return static_cast<unsigned int>(pos);
    count--;
  }
  return 0xffffffffu;
}
inline int __clz(int x) { return x == 0 ? 32 : __builtin_clz(static_cast<unsigned int>(x)); }
inline int __clzll(long long x) { return x == 0 ? 64 : __builtin_clzll(static_cast<unsigned long long>(x)); }
inline unsigned int __brev(unsigned int x) {
  x = ((x >> 1) & 0x55555555u) | ((x & 0x55555555u) << 1);
  x = ((x >> 2) & 0x33333333u) | ((x & 0x33333333u) << 2);
  x = ((x >> 4) & 0x0f0f0f0fu) | ((x & 0x0f0f0f0fu) << 4);
  return __builtin_bswap32(x);
}
inline unsigned long long __brevll(unsigned long long x) {
  return (static_cast<unsigned long long>(__brev(static_cast<unsigned int>(x))) << 32) | __brev(static_cast<unsigned int>(x >> 32));
}
inline unsigned int __umulhi(unsigned int a, unsigned int b) { return static_cast<unsigned int>((uint64_t(a) * b) >> 32); }
inline int __mulhi(int a, int b) { return static_cast<int>((int64_t(a) * b) >> 32); }
inline unsigned long long __umul64hi(unsigned long long a, unsigned long long b) {
  return static_cast<unsigned long long>((static_cast<unsigned __int128>(a) * b) >> 64);
}
inline long long __mul64hi(long long a, long long b) { return static_cast<long long>((static_cast<__int128>(a) * b) >> 64); }
inline int __mul24(int a, int b) { return (a << 8 >> 8) * (b << 8 >> 8); }
inline unsigned int __umul24(unsigned int a, unsigned int b) { return (a & 0xffffffu) * (b & 0xffffffu); }
// Byte i of the result is byte (s >> 4i) & 7 of the 8 bytes y:x.
inline unsigned int __byte_perm(unsigned int x, unsigned int y, unsigned int s) {
  uint64_t bytes = (uint64_t(y) << 32) | x;
  unsigned int r = 0;
  for (int i = 0; i < 4; i++) r |= static_cast<unsigned int>((bytes >> (8 * ((s >> (4 * i)) & 7))) & 0xffu) << (8 * i);
  return r;
}
inline unsigned int __funnelshift_l(unsigned int lo, unsigned int hi, unsigned int shift) {
  return static_cast<unsigned int>((((uint64_t(hi) << 32) | lo) << (shift & 31)) >> 32);
}
inline unsigned int __funnelshift_r(unsigned int lo, unsigned int hi, unsigned int shift) {
  return static_cast<unsigned int>(((uint64_t(hi) << 32) | lo) >> (shift & 31));
}
inline unsigned int __funnelshift_lc(unsigned int lo, unsigned int hi, unsigned int shift) {
  return shift >= 32 ? lo : __funnelshift_l(lo, hi, shift);
}
inline unsigned int __funnelshift_rc(unsigned int lo, unsigned int hi, unsigned int shift) {
  return shift >= 32 ? hi : __funnelshift_r(lo, hi, shift);
}
// Four 8-bit products summed into c (llama.cpp's quantized dot products).
inline int __dp4a(int a, int b, int c) {
  for (int i = 0; i < 4; i++) c += static_cast<signed char>(a >> (8 * i)) * static_cast<signed char>(b >> (8 * i));
  return c;
}
inline unsigned int __dp4a(unsigned int a, unsigned int b, unsigned int c) {
  for (int i = 0; i < 4; i++) c += ((a >> (8 * i)) & 0xffu) * ((b >> (8 * i)) & 0xffu);
  return c;
}
inline int __dp4a(char4 a, char4 b, int c) { return c + a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w; }
inline unsigned int __dp4a(uchar4 a, uchar4 b, unsigned int c) {
  return c + unsigned(a.x) * b.x + unsigned(a.y) * b.y + unsigned(a.z) * b.z + unsigned(a.w) * b.w;
}
// Two 16-bit products with b's low (bytes 0, 1) or high (bytes 2, 3) pair, summed into c.
inline int __dp2a_lo(int a, int b, int c) {
  return c + static_cast<short>(a) * static_cast<signed char>(b) + static_cast<short>(a >> 16) * static_cast<signed char>(b >> 8);
}
inline int __dp2a_hi(int a, int b, int c) { return __dp2a_lo(a, b >> 16, c); }
inline unsigned int __dp2a_lo(unsigned int a, unsigned int b, unsigned int c) {
  return c + (a & 0xffffu) * (b & 0xffu) + (a >> 16) * ((b >> 8) & 0xffu);
}
inline unsigned int __dp2a_hi(unsigned int a, unsigned int b, unsigned int c) { return __dp2a_lo(a, b >> 16, c); }
inline int __dp2a_lo(short2 a, char4 b, int c) { return c + a.x * b.x + a.y * b.y; }
inline int __dp2a_hi(short2 a, char4 b, int c) { return c + a.x * b.z + a.y * b.w; }
inline unsigned int __dp2a_lo(ushort2 a, uchar4 b, unsigned int c) { return c + unsigned(a.x) * b.x + unsigned(a.y) * b.y; }
inline unsigned int __dp2a_hi(ushort2 a, uchar4 b, unsigned int c) { return c + unsigned(a.x) * b.z + unsigned(a.y) * b.w; }
inline int __sad(int x, int y, unsigned int z) { return static_cast<int>((x > y ? x - y : y - x) + z); }
inline unsigned int __usad(unsigned int x, unsigned int y, unsigned int z) { return (x > y ? x - y : y - x) + z; }
// Integer averages: half the sum without its overflow, rounded down (__hadd, __uhadd) or up (__rhadd, __urhadd).
inline int __hadd(int x, int y) { return static_cast<int>((static_cast<int64_t>(x) + y) >> 1); }
inline int __rhadd(int x, int y) { return static_cast<int>((static_cast<int64_t>(x) + y + 1) >> 1); }
inline unsigned int __uhadd(unsigned int x, unsigned int y) { return static_cast<unsigned int>((static_cast<uint64_t>(x) + y) >> 1); }
inline unsigned int __urhadd(unsigned int x, unsigned int y) { return static_cast<unsigned int>((static_cast<uint64_t>(x) + y + 1) >> 1); }

// ---- reinterpretations and conversions
inline int __float_as_int(float f) { return fl::emu::bit_cast<int>(&f); }
inline unsigned int __float_as_uint(float f) { return fl::emu::bit_cast<unsigned int>(&f); }
inline float __int_as_float(int i) { return fl::emu::bit_cast<float>(&i); }
inline float __uint_as_float(unsigned int i) { return fl::emu::bit_cast<float>(&i); }
inline long long __double_as_longlong(double d) { return fl::emu::bit_cast<long long>(&d); }
inline double __longlong_as_double(long long i) { return fl::emu::bit_cast<double>(&i); }
inline int __double2hiint(double d) { return static_cast<int>(__double_as_longlong(d) >> 32); }
inline int __double2loint(double d) { return static_cast<int>(__double_as_longlong(d)); }
inline double __hiloint2double(int hi, int lo) {
  return __longlong_as_double(static_cast<long long>((uint64_t(static_cast<unsigned int>(hi)) << 32) | static_cast<unsigned int>(lo)));
}
// Float and double to the integer types, each rounding, saturating as cvt
// does (NaN gives 0 from float, but 0x8000000000000000 for the 64-bit types;
// from double, INT_MIN and that, as the H100's and H200's cvt give them), and
// the integer types to float and double.
#define FL_FLOAT_TO_INTEGER(F, I, T, NAN_VALUE)                                                                  \
  inline T __##F##2##I##_rn(F v) { return v != v ? NAN_VALUE : fl_float_to_int<T>(rint(v)); }                    \
  inline T __##F##2##I##_rz(F v) { return v != v ? NAN_VALUE : fl_float_to_int<T>(trunc(v)); }                   \
  inline T __##F##2##I##_rd(F v) { return v != v ? NAN_VALUE : fl_float_to_int<T>(floor(v)); }                   \
  inline T __##F##2##I##_ru(F v) { return v != v ? NAN_VALUE : fl_float_to_int<T>(ceil(v)); }
#define FL_INTEGER_TO_FLOAT(I, T, F)                                                                              \
  inline F __##I##2##F##_rn(T v) { return fl_int_to_float<F>(v, FL_ROUND_NEAREST); }                             \
  inline F __##I##2##F##_rz(T v) { return fl_int_to_float<F>(v, FL_ROUND_ZERO); }                                \
  inline F __##I##2##F##_rd(T v) { return fl_int_to_float<F>(v, FL_ROUND_DOWN); }                                \
  inline F __##I##2##F##_ru(T v) { return fl_int_to_float<F>(v, FL_ROUND_UP); }
#define FL_INTEGER_TYPE(I, T, DOUBLE_NAN)          \
  FL_FLOAT_TO_INTEGER(float, I, T, fl_float_to_int<T>(v)) \
  FL_FLOAT_TO_INTEGER(double, I, T, DOUBLE_NAN)   \
  FL_INTEGER_TO_FLOAT(I, T, float)                \
  FL_INTEGER_TO_FLOAT(I, T, double)
FL_INTEGER_TYPE(int, int, std::numeric_limits<int>::min())
FL_INTEGER_TYPE(uint, unsigned int, 0u)
FL_INTEGER_TYPE(ll, long long, std::numeric_limits<long long>::min())
FL_INTEGER_TYPE(ull, unsigned long long, 1ull << 63)
#undef FL_INTEGER_TYPE
#undef FL_INTEGER_TO_FLOAT
#undef FL_FLOAT_TO_INTEGER
inline float __double2float_rn(double d) { return static_cast<float>(d); }
inline float __double2float_rz(double d) { return fl_int_to_float<float>(d, FL_ROUND_ZERO); }
inline float __double2float_rd(double d) { return fl_int_to_float<float>(d, FL_ROUND_DOWN); }
inline float __double2float_ru(double d) { return fl_int_to_float<float>(d, FL_ROUND_UP); }

// ---- float arithmetic with a named rounding (round to nearest: the host's own)
// Modules compile with -ffp-contract=fast, as a GPU's do; the `_rn` forms are
// never fused with the operation that feeds them or that they feed (PTX's
// `.rn` operations are not): the empty asm hides their operands and results.
template <typename T> inline T fl_unfused(T x) {
#if defined(__x86_64__)
  __asm__("" : "+x"(x));
#elif defined(__aarch64__)
  __asm__("" : "+w"(x));
#else
  __asm__("" : "+g"(x));
#endif
  return x;
}
inline float __fadd_rn(float a, float b) { return fl_unfused(fl_unfused(a) + fl_unfused(b)); }
inline float __fsub_rn(float a, float b) { return fl_unfused(fl_unfused(a) - fl_unfused(b)); }
inline float __fmul_rn(float a, float b) { return fl_unfused(fl_unfused(a) * fl_unfused(b)); }
inline float __fdiv_rn(float a, float b) { return a / b; }
inline float __fmaf_rn(float a, float b, float c) { return fmaf(a, b, c); }
inline float __frcp_rn(float a) { return 1.0f / a; }
inline float __fsqrt_rn(float a) { return sqrtf(a); }
inline float __frsqrt_rn(float a) { return 1.0f / sqrtf(a); }
inline double __dadd_rn(double a, double b) { return fl_unfused(fl_unfused(a) + fl_unfused(b)); }
inline double __dsub_rn(double a, double b) { return fl_unfused(fl_unfused(a) - fl_unfused(b)); }
inline double __dmul_rn(double a, double b) { return fl_unfused(fl_unfused(a) * fl_unfused(b)); }
inline double __ddiv_rn(double a, double b) { return a / b; }
inline double __fma_rn(double a, double b, double c) { return fma(a, b, c); }
inline double __drcp_rn(double a) { return 1.0 / a; }
inline double __dsqrt_rn(double a) { return sqrt(a); }

// ---- float and double arithmetic rounded toward zero, up or down: computed under the
// host's rounding mode for it. The empty asm (a memory clobber, as the mode's change is
// a call) keeps the operation between the change and the restoring; a stop that lands
// in between leaves a mode the worker restores before its next block (pool.cc).
template <typename T> inline void fl_pinned(T& x) {
#if defined(__x86_64__)
  __asm__ volatile("" : "+x"(x) : : "memory");
#elif defined(__aarch64__)
  __asm__ volatile("" : "+w"(x) : : "memory");
#else
  __asm__ volatile("" : "+g"(x) : : "memory");
#endif
}
template <typename T, typename Op, typename... A> inline T fl_rounded(int mode, Op op, A... args) {
  const int before = fegetround();
  fesetround(mode);
  (fl_pinned(args), ...);
  T result = op(args...);
  fl_pinned(result);
  fesetround(before);
  return result;
}
#define FL_DIRECTED(T, add, sub, mul, div, rcp, root, fused, suffix, mode)                                           \
  inline T add##_##suffix(T a, T b) { return fl_rounded<T>(mode, [](T x, T y) { return x + y; }, a, b); }            \
  inline T sub##_##suffix(T a, T b) { return fl_rounded<T>(mode, [](T x, T y) { return x - y; }, a, b); }            \
  inline T mul##_##suffix(T a, T b) { return fl_rounded<T>(mode, [](T x, T y) { return x * y; }, a, b); }            \
  inline T div##_##suffix(T a, T b) { return fl_rounded<T>(mode, [](T x, T y) { return x / y; }, a, b); }            \
  inline T rcp##_##suffix(T a) { return fl_rounded<T>(mode, [](T x) { return T(1) / x; }, a); }                      \
  inline T root##_##suffix(T a) { return fl_rounded<T>(mode, [](T x) { return std::sqrt(x); }, a); }                \
  inline T fused##_##suffix(T a, T b, T c) { return fl_rounded<T>(mode, [](T x, T y, T z) { return std::fma(x, y, z); }, a, b, c); }
#define FL_DIRECTED_BOTH(suffix, mode)                                                      \
  FL_DIRECTED(float, __fadd, __fsub, __fmul, __fdiv, __frcp, __fsqrt, __fmaf, suffix, mode) \
  FL_DIRECTED(double, __dadd, __dsub, __dmul, __ddiv, __drcp, __dsqrt, __fma, suffix, mode)
FL_DIRECTED_BOTH(rz, FE_TOWARDZERO)
FL_DIRECTED_BOTH(ru, FE_UPWARD)
FL_DIRECTED_BOTH(rd, FE_DOWNWARD)
#undef FL_DIRECTED_BOTH
#undef FL_DIRECTED
// The fma that keeps denormals under -ftz=true: the emulator never flushes them.
inline float __fmaf_ieee_rn(float a, float b, float c) { return __fmaf_rn(a, b, c); }
inline float __fmaf_ieee_rz(float a, float b, float c) { return __fmaf_rz(a, b, c); }
inline float __fmaf_ieee_ru(float a, float b, float c) { return __fmaf_ru(a, b, c); }
inline float __fmaf_ieee_rd(float a, float b, float c) { return __fmaf_rd(a, b, c); }
inline float __saturatef(float x) { return x != x ? 0.0f : x < 0.0f ? 0.0f : x > 1.0f ? 1.0f : x; }
inline float fdividef(float a, float b) { return a / b; }

// ---- fast math: the precise functions stand in for the GPU's approximations
inline float __sinf(float x) { return sinf(x); }
inline float __cosf(float x) { return cosf(x); }
inline float __tanf(float x) { return tanf(x); }
inline void __sincosf(float x, float* s, float* c) { *s = sinf(x); *c = cosf(x); }
inline float __powf(float x, float y) { return powf(x, y); }
inline float __exp10f(float x) { return exp10f(x); }
inline float __log2f(float x) { return log2f(x); }
inline float __log10f(float x) { return log10f(x); }
inline float __tanhf(float x) { return tanhf(x); }
// sin(pi x) and cos(pi x), reduced exactly first (x - n/2 for the nearest half n/2):
// exact zeros at integers (sin) and half-integers (cos), and exact ones, as CUDA gives.
// C23's sinpi and cospi, which glibc declares from 2.41 on, are the C library's there.
inline void sincospi(double x, double* s, double* c) {
  if (!__builtin_isfinite(x)) {
    *s = *c = x - x;
    return;
  }
  const double halves = __builtin_nearbyint(2.0 * x), rest = x - 0.5 * halves;  // |rest| <= 1/4, exact
  const double sr = sin(M_PI * rest), cr = cos(M_PI * rest);
  const long quarter = static_cast<long>(fmod(halves, 4.0) + 4.0) % 4;
  const double sin_x = quarter == 0 ? sr : quarter == 1 ? cr : quarter == 2 ? -sr : -cr;
  const double cos_x = quarter == 0 ? cr : quarter == 1 ? -sr : quarter == 2 ? -cr : sr;
  // sin(-0 pi) is -0, and an exact zero of sin(n pi) has x's sign, as C's sinpi defines it.
  *s = sin_x == 0.0 ? copysign(0.0, x) : sin_x;
  *c = cos_x == 0.0 ? 0.0 : cos_x;
}
#if !(defined(__GLIBC__) && __GLIBC_PREREQ(2, 41))
inline double sinpi(double x) { double s, c; sincospi(x, &s, &c); return s; }
inline double cospi(double x) { double s, c; sincospi(x, &s, &c); return c; }
inline float sinpif(float x) { return static_cast<float>(sinpi(x)); }
inline float cospif(float x) { return static_cast<float>(cospi(x)); }
#endif
inline void sincospif(float x, float* s, float* c) {
  double sd, cd;
  sincospi(x, &sd, &cd);
  *s = static_cast<float>(sd), *c = static_cast<float>(cd);
}
inline float rcbrtf(float x) { return 1.0f / cbrtf(x); }
inline double rcbrt(double x) { return 1.0 / cbrt(x); }
inline float rhypotf(float x, float y) { return 1.0f / hypotf(x, y); }
inline double rhypot(double x, double y) { return 1.0 / hypot(x, y); }
// Euclidean norms, scaled by the largest magnitude so that neither overflows nor
// underflows where the norm itself does not, as CUDA's do; the float forms in double.
inline double norm(int dim, const double* a) {
  double largest = 0.0;
  for (int i = 0; i < dim; i++) largest = fmax(largest, fabs(a[i]));
  if (largest == 0.0 || __builtin_isinf(largest)) return largest;
  double sum = 0.0;
  for (int i = 0; i < dim; i++) sum += (a[i] / largest) * (a[i] / largest);
  return largest * sqrt(sum);
}
inline double fl_squares(int dim, const float* a) {
  double sum = 0.0;
  for (int i = 0; i < dim; i++) sum += static_cast<double>(a[i]) * a[i];
  return sum;
}
inline float normf(int dim, const float* a) { return static_cast<float>(sqrt(fl_squares(dim, a))); }
inline float rnormf(int dim, const float* a) { return static_cast<float>(1.0 / sqrt(fl_squares(dim, a))); }
inline double rnorm(int dim, const double* a) { return 1.0 / norm(dim, a); }
inline double norm3d(double a, double b, double c) { const double v[3] = {a, b, c}; return norm(3, v); }
inline double norm4d(double a, double b, double c, double d) { const double v[4] = {a, b, c, d}; return norm(4, v); }
inline double rnorm3d(double a, double b, double c) { return 1.0 / norm3d(a, b, c); }
inline double rnorm4d(double a, double b, double c, double d) { return 1.0 / norm4d(a, b, c, d); }
inline float norm3df(float a, float b, float c) { const float v[3] = {a, b, c}; return normf(3, v); }
inline float norm4df(float a, float b, float c, float d) { const float v[4] = {a, b, c, d}; return normf(4, v); }
inline float rnorm3df(float a, float b, float c) { const float v[3] = {a, b, c}; return rnormf(3, v); }
inline float rnorm4df(float a, float b, float c, float d) { const float v[4] = {a, b, c, d}; return rnormf(4, v); }
inline float normcdff(float x) { return 0.5f * erfcf(-x * static_cast<float>(M_SQRT1_2)); }
inline double normcdf(double x) { return 0.5 * erfc(-x * M_SQRT1_2); }
constexpr double fl_sqrt_pi = 1.7724538509055159;
// The inverse error functions, by Newton's method on erfc from a first guess, in double:
// erfcinv(y) is erfinv(1 - y), with its tail (y near 0 or 2) kept exact.
inline double erfcinv(double y) {
  if (!(y > 0.0 && y < 2.0)) return y == 0.0 ? HUGE_VAL : y == 2.0 ? -HUGE_VAL : (y - y) / (y - y);
  if (y > 1.0) return -erfcinv(2.0 - y);
  // For y <= 1 the root is >= 0. A guess from erfc(x) ~ exp(-x^2) / (x sqrt(pi)), then Newton
  // on log(erfc(x)) - log(y), which keeps its precision where erfc(x) is tiny.
  double x = y > 0.5 ? (1.0 - y) * 0.886226925452758 : sqrt(fmax(-log(y * sqrt(-log(y)) * fl_sqrt_pi), 0.0));
  for (int i = 0; i < 60; i++) {
    const double e = erfc(x);
    if (e == 0.0) {
      x *= 0.99;
      continue;
    }
    const double step = (log(e) - log(y)) / (-2.0 / fl_sqrt_pi * exp(-x * x) / e);
    x -= step;
    if (fabs(step) <= 1e-16 * fabs(x)) break;
  }
  return x;
}
inline double erfinv(double y) {
  if (y == 0.0) return y;
  return y > 0.0 ? erfcinv(1.0 - y) : -erfcinv(1.0 + y);
}
inline float erfcinvf(float y) { return static_cast<float>(erfcinv(y)); }
inline float erfinvf(float y) { return static_cast<float>(erfinv(y)); }
inline double normcdfinv(double y) { return -M_SQRT2 * erfcinv(2.0 * y); }
inline float normcdfinvf(float y) { return static_cast<float>(normcdfinv(y)); }
// The modified Bessel functions of the first kind, orders 0 and 1 (I0 even, I1 odd).
inline double cyl_bessel_i0(double x) { return std::cyl_bessel_i(0.0, fabs(x)); }
inline double cyl_bessel_i1(double x) { return copysign(std::cyl_bessel_i(1.0, fabs(x)), x); }
inline float cyl_bessel_i0f(float x) { return static_cast<float>(cyl_bessel_i0(x)); }
inline float cyl_bessel_i1f(float x) { return static_cast<float>(cyl_bessel_i1(x)); }
// The scaled complementary error function, exp(x^2) erfc(x): from its asymptotic series far
// out, else exp(x^2), with x^2's rounding error carried, times erfc(x).
inline double erfcx(double x) {
  if (x > 26.0) {  // past where erfc(x) keeps its precision; the series' next term is below 1e-18
    const double r = 1.0 / (2.0 * x * x);
    const double series = 1.0 - r * (1.0 - 3.0 * r * (1.0 - 5.0 * r * (1.0 - 7.0 * r * (1.0 - 9.0 * r * (1.0 - 11.0 * r * (1.0 - 13.0 * r))))));
    return series / (x * fl_sqrt_pi);
  }
  const double square = x * x, error = fma(x, x, -square);
  return exp(square) * (1.0 + error) * erfc(x);
}
inline float erfcxf(float x) { return static_cast<float>(erfcx(x)); }
// CUDA's float overloads of the double names (crt/math_functions.h).
inline float exp10(float a) { return exp10f(a); }
inline float rcbrt(float a) { return rcbrtf(a); }
inline float sinpi(float a) { return sinpif(a); }
inline float cospi(float a) { return cospif(a); }
inline void sincospi(float a, float* s, float* c) { sincospif(a, s, c); }
inline void sincos(float a, float* s, float* c) { sincosf(a, s, c); }
inline float j0(float a) { return j0f(a); }
inline float j1(float a) { return j1f(a); }
inline float jn(int n, float a) { return jnf(n, a); }
inline float y0(float a) { return y0f(a); }
inline float y1(float a) { return y1f(a); }
inline float yn(int n, float a) { return ynf(n, a); }
inline float erfinv(float a) { return erfinvf(a); }
inline float erfcinv(float a) { return erfcinvf(a); }
inline float normcdfinv(float a) { return normcdfinvf(a); }
inline float normcdf(float a) { return normcdff(a); }
inline float erfcx(float a) { return erfcxf(a); }

// ---- loads and stores with cache hints: plain loads and stores here
// Each names its caller's line (default arguments are read where the call is), which
// check mode's report of a misaligned access through it gives instead of this file's.
#define FL_LOAD(name)                                                                                     \
  template <typename T>                                                                                   \
  inline T name(const T* p, const char* file = __builtin_FILE(), unsigned line = __builtin_LINE()) {       \
    FL_ACCESS_SITE(file, line);                                                                           \
    return *p;                                                                                            \
  }
#define FL_STORE(name)                                                                                    \
  template <typename T>                                                                                   \
  inline void name(T* p, T v, const char* file = __builtin_FILE(), unsigned line = __builtin_LINE()) {     \
    FL_ACCESS_SITE(file, line);                                                                           \
    *p = v;                                                                                               \
  }
FL_LOAD(__ldg) FL_LOAD(__ldcg) FL_LOAD(__ldca) FL_LOAD(__ldcs) FL_LOAD(__ldlu) FL_LOAD(__ldcv)
FL_STORE(__stcg) FL_STORE(__stcs) FL_STORE(__stwb) FL_STORE(__stwt)
#undef FL_LOAD
#undef FL_STORE

// ---- address-space conversions (sm_70): one address space on the CPU, so the
// address itself (asynchronous-copy code hands the result to PTX, whose
// statement stops the launch that reaches it)
#define FL_TO_SPACE(space) \
  inline size_t __cvta_generic_to_##space(const void* p) { return reinterpret_cast<size_t>(p); }
#define FL_FROM_SPACE(space) \
  inline void* __cvta_##space##_to_generic(size_t a) { return reinterpret_cast<void*>(a); }
FL_TO_SPACE(shared) FL_TO_SPACE(global) FL_TO_SPACE(constant) FL_TO_SPACE(local)
FL_FROM_SPACE(shared) FL_FROM_SPACE(global) FL_FROM_SPACE(constant) FL_FROM_SPACE(local)
#undef FL_TO_SPACE
#undef FL_FROM_SPACE
// Which space a generic address is in. __isConstant is left out: a __constant__
// variable is module data on the CPU, as a __device__ one is, and cannot be told apart.
inline unsigned __isShared(const void* p) { return fl::emu::is_shared_address(p); }
inline unsigned __isLocal(const void* p) { return fl::emu::is_local_address(p); }
inline unsigned __isGlobal(const void* p) { return !fl::emu::is_shared_address(p) && !fl::emu::is_local_address(p); }

// ---- the optimizer's hints nvcc takes (CUDA 11.2): g++ has no __builtin_assume;
// the condition is checked as an expression and, as clang leaves it, not evaluated
#if !defined(__clang__)
#define __builtin_assume(condition) ((void)sizeof(!(condition)))
#endif
#define __assume(condition) __builtin_assume(condition)

// ---- fences: blocks run on different OS threads
inline void __threadfence() { std::atomic_thread_fence(std::memory_order_seq_cst); }
inline void __threadfence_block() { std::atomic_thread_fence(std::memory_order_seq_cst); }
inline void __threadfence_system() { std::atomic_thread_fence(std::memory_order_seq_cst); }

// ---- atomics
// CUDA's wrapping counters: atomicInc counts up to val and wraps to 0,
// atomicDec counts down from val and wraps at 0 (or above val) to val.
inline unsigned int atomicInc(unsigned int* a, unsigned int val) {
  unsigned int old = __atomic_load_n(a, __ATOMIC_RELAXED);
  while (!__atomic_compare_exchange_n(a, &old, old >= val ? 0u : old + 1, true, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED)) {
  }
  return old;
}
inline unsigned int atomicDec(unsigned int* a, unsigned int val) {
  unsigned int old = __atomic_load_n(a, __ATOMIC_RELAXED);
  while (!__atomic_compare_exchange_n(a, &old, (old == 0 || old > val) ? val : old - 1, true, __ATOMIC_SEQ_CST,
                                      __ATOMIC_RELAXED)) {
  }
  return old;
}
namespace fl {
namespace emu {
// An atomic read-modify-write of any 2-, 4- or 8-byte value.
template <typename T, typename F> inline T atomic_update(T* address, F update) {
  using bits_t = std::conditional_t<sizeof(T) == 2, uint16_t, std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>>;
  bits_t* word = reinterpret_cast<bits_t*>(address);
  bits_t expected = __atomic_load_n(word, __ATOMIC_RELAXED);
  for (;;) {
    T old = bit_cast<T>(&expected);
    T updated = update(old);
    bits_t desired = bit_cast<bits_t>(&updated);
    if (__atomic_compare_exchange_n(word, &expected, desired, true, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED)) return old;
  }
}
}  // namespace emu
}  // namespace fl
FL_YIELDS_TO_SOURCE inline __half atomicAdd(__half* a, __half v) { return fl::emu::atomic_update(a, [v](__half x) { return __hadd(x, v); }); }
FL_YIELDS_TO_SOURCE inline __half2 atomicAdd(__half2* a, __half2 v) { return fl::emu::atomic_update(a, [v](__half2 x) { return __hadd2(x, v); }); }
FL_YIELDS_TO_SOURCE inline __nv_bfloat16 atomicAdd(__nv_bfloat16* a, __nv_bfloat16 v) {
  return fl::emu::atomic_update(a, [v](__nv_bfloat16 x) { return __hadd(x, v); });
}
FL_YIELDS_TO_SOURCE inline __nv_bfloat162 atomicAdd(__nv_bfloat162* a, __nv_bfloat162 v) {
  return fl::emu::atomic_update(a, [v](__nv_bfloat162 x) { return __hadd2(x, v); });
}

// Scoped atomics: every scope is the whole device here.
#define atomicAdd_block atomicAdd
#define atomicAdd_system atomicAdd
#define atomicSub_block atomicSub
#define atomicSub_system atomicSub
#define atomicExch_block atomicExch
#define atomicExch_system atomicExch
#define atomicMin_block atomicMin
#define atomicMin_system atomicMin
#define atomicMax_block atomicMax
#define atomicMax_system atomicMax
#define atomicInc_block atomicInc
#define atomicInc_system atomicInc
#define atomicDec_block atomicDec
#define atomicDec_system atomicDec
#define atomicCAS_block atomicCAS
#define atomicCAS_system atomicCAS
#define atomicAnd_block atomicAnd
#define atomicAnd_system atomicAnd
#define atomicOr_block atomicOr
#define atomicOr_system atomicOr
#define atomicXor_block atomicXor
#define atomicXor_system atomicXor

inline long long clock64() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

#endif
