// AMD's device side on the CPU emulator: what hipcc gives a HIP source compiled
// for a CDNA GPU (64-lane wavefronts), which the emulator runs on a 64-lane device.
//  - clang's __builtin_amdgcn_* that HIP sources call: the cross-lane moves
//    (readfirstlane, readlane, ds_bpermute, ds_swizzle, DPP), lane counts, the
//    barriers and fences, work-item ids, the dot products and bit fields, the
//    hardware's math instructions;
//  - clang's __hip_atomic_* with their memory orders and scopes, and HIP's
//    unsafeAtomicAdd family;
//  - HIP's own names for the cross-lane moves (__hip_ds_bpermute, __hip_move_dpp).
// The cross-lane moves are shuffles of the wavefront's live lanes: a source lane
// that is not live gives 0, as ds_bpermute and DPP read a disabled lane.
// The semantics follow AMD's Vega and CDNA3 instruction set references.
#ifndef FUSELAB_EMULATOR_AMDGCN_H
#define FUSELAB_EMULATOR_AMDGCN_H

#include <math.h>
#include <stdint.h>

#include <type_traits>

#include "intrinsics.h"
#include "runtime.h"

namespace fl::emu::amdgcn {

[[noreturn]] __attribute__((noinline, cold)) inline void refuse(int line, const char* builtin, const char* why, unsigned value) {
  block_state& b = current_block();
  const fl_emu_where& w = b.state->where;
  fail(b, "kernel '%s': %s on line %d: %s, got 0x%x (block (%u,%u,%u), thread (%u,%u,%u))", b.launch->desc->kernel, builtin, line, why,
       value, w.block.x, w.block.y, w.block.z, w.thread.x, w.thread.y, w.thread.z);
  abandon_block(b);
}

inline uint32_t lane() { return __lane_id(); }

// Each live lane's `v` from the lane `source` it names.
template <typename T> inline T gather(int line, T v, uint32_t source) {
  return shuffle_op(warp_op::shfl, line, v, source, kWholeWarp, kLiveLanes);
}

template <typename T> inline T readlane(int line, T v, int source) { return gather(line, v, static_cast<uint32_t>(source) & 63); }

// The lanes running with this one (the GPU's exec mask): those that reached
// this call together, as __activemask() finds them. A branch's lanes read only each other.
inline uint64_t exec_mask(int line) { return warp_exchange(warp_op::activemask, line, 0, 0, kWholeWarp); }

inline uint64_t ballot(int line, bool p) {
  const uint64_t exec = exec_mask(line);
  return warp_exchange(warp_op::ballot, line, p ? 1 : 0, 0, kWholeWarp, exec);
}

// HIP's votes on AMD: over the lanes running with this one.
inline int vote_all(int line, bool p) {
  const uint64_t exec = exec_mask(line);
  return warp_exchange(warp_op::ballot, line, p ? 1 : 0, 0, kWholeWarp, exec) == exec;
}

// The value of the lowest lane running with this one.
template <typename T> inline T readfirstlane(int line, T v) {
  const uint64_t exec = exec_mask(line);
  return shuffle_op(warp_op::shfl, line, v, static_cast<uint32_t>(__builtin_ctzll(exec)), kWholeWarp, exec);
}

// ds_permute: each lane writes its `v` to lane (address / 4); a lane no one
// writes gets 0, one several write the highest writer's.
inline int ds_permute(int line, int address, int v) {
  return static_cast<int>(warp_exchange(warp_op::permute, line, static_cast<uint32_t>(v), (static_cast<uint32_t>(address) >> 2) & 63,
                                        kWholeWarp, kLiveLanes));
}

// ds_bpermute: each lane reads lane (address / 4) of the wavefront (clang's
// builtin moves an int; HIP's __hip_ds_bpermutef a float's bits).
template <typename T> inline T ds_bpermute(int line, int address, T v) {
  return gather(line, v, (static_cast<uint32_t>(address) >> 2) & 63);
}

// ds_swizzle, in each half of 32 lanes: offset bit 15 set, each lane of a quad
// reads the quad's lane the offset's 2-bit field names; else the lane
// ((lane & and) | or) ^ xor, the masks in offset bits 0-4, 5-9 and 10-14.
template <typename T> inline T ds_swizzle(int line, T v, int pattern) {
  const uint32_t offset = static_cast<uint32_t>(pattern) & 0xffff, self = lane();
  uint32_t source;
  if (offset & 0x8000) {
    source = (self & ~3u) | ((offset >> (2 * (self & 3))) & 3);
  } else {
    const uint32_t and_mask = offset & 31, or_mask = (offset >> 5) & 31, xor_mask = (offset >> 10) & 31;
    source = (self & 32) | ((((self & 31) & and_mask) | or_mask) ^ xor_mask);
  }
  return gather(line, v, source);
}

// The lane a DPP control reads for `self`, or -1 where it has none (past a row's
// or the wavefront's end); rows are 16 lanes.
inline int dpp_source(int line, uint32_t control, uint32_t self) {
  const uint32_t row = self & ~15u, in_row = self & 15;
  if (control <= 0xff) return static_cast<int>((self & ~3u) | ((control >> (2 * (self & 3))) & 3));  // quad_perm
  if (control >= 0x101 && control <= 0x10f) {  // row_shl:n
    const uint32_t n = control & 15;
    return in_row + n < 16 ? static_cast<int>(self + n) : -1;
  }
  if (control >= 0x111 && control <= 0x11f) {  // row_shr:n
    const uint32_t n = control & 15;
    return in_row >= n ? static_cast<int>(self - n) : -1;
  }
  if (control >= 0x121 && control <= 0x12f) return static_cast<int>(row + ((in_row - (control & 15)) & 15));  // row_ror:n
  switch (control) {
    case 0x130: return self < 63 ? static_cast<int>(self + 1) : -1;    // wave_shl:1
    case 0x134: return static_cast<int>((self + 1) & 63);               // wave_rol:1
    case 0x138: return self > 0 ? static_cast<int>(self - 1) : -1;     // wave_shr:1
    case 0x13c: return static_cast<int>((self - 1) & 63);               // wave_ror:1
    case 0x140: return static_cast<int>(row + 15 - in_row);            // row_mirror
    case 0x141: return static_cast<int>((self & ~7u) + 7 - (self & 7)); // row_half_mirror
    case 0x142: return row >= 16 ? static_cast<int>(row - 1) : -1;     // row_bcast:15, lane 15 of the row before
    case 0x143: return row >= 32 ? 31 : -1;                            // row_bcast:31, lane 31 to rows 2 and 3
    default: refuse(line, "a DPP move", "dpp_ctrl must be one of gfx9's controls (quad_perm 0x00-0xff, row_shl/shr/ror 0x101-0x12f, "
                                        "wave_shl/rol/shr/ror 0x130/0x134/0x138/0x13c, row_mirror 0x140/0x141, row_bcast 0x142/0x143)", control);
  }
}

// update_dpp: `v` moved by the control; a lane outside row_mask and bank_mask
// keeps `old`, one the control gives no source gets 0 with bound_ctrl, else `old`.
template <typename T, typename Old> inline T update_dpp(int line, Old old_value, T v, int control, int row_mask, int bank_mask, bool bound_ctrl) {
  const T old = static_cast<T>(old_value);
  const uint32_t self = lane();
  const int source = dpp_source(line, static_cast<uint32_t>(control), self);
  const T moved = gather(line, v, source < 0 ? self : static_cast<uint32_t>(source));
  const bool enabled = (row_mask >> (self >> 4) & 1) && (bank_mask >> ((self >> 2) & 3) & 1);
  if (!enabled) return old;
  if (source < 0) return bound_ctrl ? T{} : old;
  return moved;
}

// mov_dpp: update_dpp with no old value (LLVM leaves it undefined): 0 here.
template <typename T> inline T mov_dpp(int line, T v, int control, int row_mask, int bank_mask, bool bound_ctrl) {
  return update_dpp(line, T{}, v, control, row_mask, bank_mask, bound_ctrl);
}

// The upper half of a 64-lane wavefront swapped with the lower (gfx11's permlane64).
template <typename T> inline T permlane64(int line, T v) {
  return gather(line, v, lane() ^ 32);
}

// icmp / uicmp: the ballot of an LLVM integer comparison (its predicate numbers).
template <typename A, typename B> inline uint64_t compare_ballot(int line, A a, B b, int predicate) {
  using S = std::make_signed_t<std::common_type_t<A, B>>;
  using U = std::make_unsigned_t<std::common_type_t<A, B>>;
  const U ua = static_cast<U>(a), ub = static_cast<U>(b);
  const S sa = static_cast<S>(a), sb = static_cast<S>(b);
  bool p;
  switch (predicate) {
    case 32: p = ua == ub; break;
    case 33: p = ua != ub; break;
    case 34: p = ua > ub; break;
    case 35: p = ua >= ub; break;
    case 36: p = ua < ub; break;
    case 37: p = ua <= ub; break;
    case 38: p = sa > sb; break;
    case 39: p = sa >= sb; break;
    case 40: p = sa < sb; break;
    case 41: p = sa <= sb; break;
    default: refuse(line, "__builtin_amdgcn_icmp", "the predicate must be an LLVM integer comparison, 32 (eq) to 41 (sle)", static_cast<unsigned>(predicate));
  }
  return ballot(line, p);
}

// Dot products of packed signed / unsigned bytes and nibbles, plus c; with
// clamp, saturated to 32 bits instead of wrapped.
template <bool Signed, int Bits> inline int64_t packed_dot(uint32_t a, uint32_t b) {
  int64_t sum = 0;
  for (int i = 0; i < 32 / Bits; i++) {
    const uint32_t ua = (a >> (i * Bits)) & ((1u << Bits) - 1), ub = (b >> (i * Bits)) & ((1u << Bits) - 1);
    const int64_t x = Signed && (ua >> (Bits - 1)) ? int64_t(ua) - (int64_t(1) << Bits) : int64_t(ua);
    const int64_t y = Signed && (ub >> (Bits - 1)) ? int64_t(ub) - (int64_t(1) << Bits) : int64_t(ub);
    sum += x * y;
  }
  return sum;
}
inline int dot_signed(int64_t exact, bool clamp) {
  if (clamp) exact = exact > INT32_MAX ? INT32_MAX : exact < INT32_MIN ? INT32_MIN : exact;
  return static_cast<int>(static_cast<uint32_t>(static_cast<uint64_t>(exact)));
}
inline unsigned dot_unsigned(int64_t exact, bool clamp) {
  if (clamp && exact > UINT32_MAX) return UINT32_MAX;
  return static_cast<unsigned>(static_cast<uint64_t>(exact));
}
template <int Bits> inline int sdot(int a, int b, int c, bool clamp) {
  return dot_signed(packed_dot<true, Bits>(static_cast<uint32_t>(a), static_cast<uint32_t>(b)) + c, clamp);
}
template <int Bits> inline unsigned udot(unsigned a, unsigned b, unsigned c, bool clamp) {
  return dot_unsigned(packed_dot<false, Bits>(a, b) + int64_t(c), clamp);
}
// sudot4: each operand's bytes signed or not as its flag says.
inline int sudot4(bool a_signed, int a, bool b_signed, int b, int c, bool clamp) {
  int64_t sum = c;
  for (int i = 0; i < 4; i++) {
    const uint32_t ua = (static_cast<uint32_t>(a) >> (8 * i)) & 0xff, ub = (static_cast<uint32_t>(b) >> (8 * i)) & 0xff;
    sum += (a_signed ? int64_t(int8_t(ua)) : int64_t(ua)) * (b_signed ? int64_t(int8_t(ub)) : int64_t(ub));
  }
  return dot_signed(sum, clamp);
}

// v_perm_b32: byte i of the result from selector byte i over the 8 bytes a:b
// (0-7 a byte, 8-11 a sign of bytes 1, 3, 5, 7 spread, 12 zero, above 0xff).
inline unsigned perm(unsigned a, unsigned b, unsigned selector) {
  const uint64_t bytes = (uint64_t(a) << 32) | b;
  unsigned r = 0;
  for (int i = 0; i < 4; i++) {
    const unsigned s = (selector >> (8 * i)) & 0xff;
    unsigned byte;
    if (s <= 7) byte = (bytes >> (8 * s)) & 0xff;
    else if (s <= 11) byte = (bytes >> (16 * (s - 8) + 15)) & 1 ? 0xff : 0;
    else byte = s == 12 ? 0 : 0xff;
    r |= byte << (8 * i);
  }
  return r;
}
inline unsigned alignbit(unsigned hi, unsigned lo, unsigned shift) {
  return static_cast<unsigned>(((uint64_t(hi) << 32) | lo) >> (shift & 31));
}
inline unsigned alignbyte(unsigned hi, unsigned lo, unsigned shift) {
  return static_cast<unsigned>(((uint64_t(hi) << 32) | lo) >> (8 * (shift & 3)));
}
inline int sbfe(int v, unsigned offset, unsigned width) {
  offset &= 31, width &= 31;
  if (width == 0) return 0;
  const uint32_t field = (static_cast<uint32_t>(v) >> offset) & ((width == 32 ? 0u : (1u << width)) - 1);
  return static_cast<int>(field << (32 - width)) >> (32 - width);
}
// v_sad_u8, v_sad_u16, v_msad_u8: the sums of absolute differences of the
// bytes or halves, plus c; msad leaves out the bytes where b's is 0.
template <int Bits, bool Masked = false> inline unsigned sad(unsigned a, unsigned b, unsigned c) {
  unsigned sum = c;
  for (int i = 0; i < 32; i += Bits) {
    const int x = static_cast<int>((a >> i) & ((1u << Bits) - 1)), y = static_cast<int>((b >> i) & ((1u << Bits) - 1));
    if (!Masked || y != 0) sum += static_cast<unsigned>(x > y ? x - y : y - x);
  }
  return sum;
}
// v_lerp_u8: the rounded mean of each byte pair, rounding up where c's byte is odd.
inline unsigned lerp(unsigned a, unsigned b, unsigned c) {
  unsigned r = 0;
  for (int i = 0; i < 32; i += 8) r |= ((((a >> i) & 0xff) + ((b >> i) & 0xff) + ((c >> i) & 1)) >> 1) << i;
  return r;
}

// The hardware's math instructions, here exact: the GPU's approximations differ
// in the last bits. sin and cos take revolutions; log and exp2 are base 2.
inline float fmed3(float a, float b, float c) { return fmaxf(fminf(a, b), fminf(fmaxf(a, b), c)); }
inline float fract(float x) { return isinf(x) ? 0.0f : fminf(x - floorf(x), 0x1.fffffep-1f); }
inline double fract(double x) { return isinf(x) ? 0.0 : fmin(x - floor(x), 0x1.fffffffffffffp-1); }
inline float frexp_mant(float x) { int e; return frexpf(x, &e); }
inline double frexp_mant(double x) { int e; return frexp(x, &e); }
inline int frexp_exp(float x) { int e; frexpf(x, &e); return isfinite(x) ? e : 0; }
inline int frexp_exp(double x) { int e; frexp(x, &e); return isfinite(x) ? e : 0; }
inline float fmul_legacy(float a, float b) { return a == 0.0f || b == 0.0f ? 0.0f : a * b; }

// clang's __hip_atomic_load, _store and _compare_exchange on any 1- to 8-byte value.
template <typename T> inline T atomic_load(T* address) {
  std::remove_cv_t<T> v;
  __atomic_load(address, &v, __ATOMIC_SEQ_CST);
  return v;
}
template <typename T, typename V> inline void atomic_store(T* address, V v) {
  T value = static_cast<T>(v);
  __atomic_store(address, &value, __ATOMIC_SEQ_CST);
}
template <typename T, typename V> inline bool atomic_compare_exchange(T* address, T* expected, V desired) {
  T value = static_cast<T>(desired);
  return __atomic_compare_exchange(address, expected, &value, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
}

}  // namespace fl::emu::amdgcn

// clang's builtins, as functions (a template argument's comma, a leading ::),
// the calling line from __builtin_LINE() where a message names it.
namespace fl_amdgcn = ::fl::emu::amdgcn;
template <typename T> inline T __builtin_amdgcn_readfirstlane(T v, int line = __builtin_LINE()) { return fl_amdgcn::readfirstlane(line, v); }
template <typename T> inline T __builtin_amdgcn_readlane(T v, int lane, int line = __builtin_LINE()) { return fl_amdgcn::readlane(line, v, lane); }
inline int __builtin_amdgcn_ds_bpermute(int address, int v, int line = __builtin_LINE()) { return fl_amdgcn::ds_bpermute(line, address, v); }
inline int __builtin_amdgcn_ds_permute(int address, int v, int line = __builtin_LINE()) { return fl_amdgcn::ds_permute(line, address, v); }
inline int __builtin_amdgcn_ds_swizzle(int v, int pattern, int line = __builtin_LINE()) { return fl_amdgcn::ds_swizzle(line, v, pattern); }
template <typename T>
inline T __builtin_amdgcn_mov_dpp(T v, int control, int rows, int banks, bool bound, int line = __builtin_LINE()) {
  return fl_amdgcn::mov_dpp(line, v, control, rows, banks, bound);
}
template <typename T, typename Old>
inline T __builtin_amdgcn_update_dpp(Old old, T v, int control, int rows, int banks, bool bound, int line = __builtin_LINE()) {
  return fl_amdgcn::update_dpp(line, old, v, control, rows, banks, bound);
}
template <typename T> inline T __builtin_amdgcn_permlane64(T v, int line = __builtin_LINE()) { return fl_amdgcn::permlane64(line, v); }
// mbcnt and ubfe are HIP's own __mbcnt_lo/hi and __bitextract_u32 (fuselab/hip_spellings.h).
inline unsigned __builtin_amdgcn_mbcnt_lo(unsigned mask, unsigned base) { return __mbcnt_lo(mask, base); }
inline unsigned __builtin_amdgcn_mbcnt_hi(unsigned mask, unsigned base) { return __mbcnt_hi(mask, base); }
inline unsigned long long __builtin_amdgcn_ballot_w64(bool p, int line = __builtin_LINE()) { return fl_amdgcn::ballot(line, p); }
inline unsigned long long __builtin_amdgcn_read_exec(int line = __builtin_LINE()) { return fl_amdgcn::exec_mask(line); }
inline unsigned __builtin_amdgcn_read_exec_lo(int line = __builtin_LINE()) { return static_cast<unsigned>(fl_amdgcn::exec_mask(line)); }
inline unsigned __builtin_amdgcn_read_exec_hi(int line = __builtin_LINE()) { return static_cast<unsigned>(fl_amdgcn::exec_mask(line) >> 32); }
template <typename A, typename B> inline unsigned long long __builtin_amdgcn_icmp(A a, B b, int predicate, int line = __builtin_LINE()) {
  return fl_amdgcn::compare_ballot(line, a, b, predicate);
}
template <typename A, typename B> inline unsigned long long __builtin_amdgcn_uicmp(A a, B b, int predicate, int line = __builtin_LINE()) {
  return fl_amdgcn::compare_ballot(line, a, b, predicate);
}
template <typename A, typename B> inline unsigned long long __builtin_amdgcn_icmpl(A a, B b, int predicate, int line = __builtin_LINE()) {
  return fl_amdgcn::compare_ballot(line, a, b, predicate);
}
template <typename A, typename B> inline unsigned long long __builtin_amdgcn_uicmpl(A a, B b, int predicate, int line = __builtin_LINE()) {
  return fl_amdgcn::compare_ballot(line, a, b, predicate);
}
inline int __builtin_amdgcn_wavefrontsize() { return warpSize; }
// The barriers, fences and scheduling hints. The wavefront's lanes move
// together on the GPU; here wave_barrier makes them meet, as the code after it
// relies on (shared memory written before it, read after).
inline void __builtin_amdgcn_s_barrier(int line = __builtin_LINE()) { ::fl::emu::syncthreads(line); }
inline void __builtin_amdgcn_wave_barrier(int line = __builtin_LINE()) { ::fl::emu::syncwarp(line); }
template <typename... A> inline void __builtin_amdgcn_fence(A...) { __threadfence(); }
template <typename... A> inline void __builtin_amdgcn_s_waitcnt(A...) {}
template <typename... A> inline void __builtin_amdgcn_s_sleep(A...) {}
template <typename... A> inline void __builtin_amdgcn_s_setprio(A...) {}
template <typename... A> inline void __builtin_amdgcn_sched_barrier(A...) {}
template <typename... A> inline void __builtin_amdgcn_sched_group_barrier(A...) {}
template <typename... A> inline void __builtin_amdgcn_iglp_opt(A...) {}
inline unsigned long __builtin_amdgcn_s_memtime() { return static_cast<unsigned long>(clock64()); }
inline unsigned long __builtin_amdgcn_s_memrealtime() { return static_cast<unsigned long>(clock64()); }
inline unsigned __builtin_amdgcn_workitem_id_x() { return threadIdx.x; }
inline unsigned __builtin_amdgcn_workitem_id_y() { return threadIdx.y; }
inline unsigned __builtin_amdgcn_workitem_id_z() { return threadIdx.z; }
inline unsigned __builtin_amdgcn_workgroup_id_x() { return blockIdx.x; }
inline unsigned __builtin_amdgcn_workgroup_id_y() { return blockIdx.y; }
inline unsigned __builtin_amdgcn_workgroup_id_z() { return blockIdx.z; }
inline unsigned short __builtin_amdgcn_workgroup_size_x() { return static_cast<unsigned short>(blockDim.x); }
inline unsigned short __builtin_amdgcn_workgroup_size_y() { return static_cast<unsigned short>(blockDim.y); }
inline unsigned short __builtin_amdgcn_workgroup_size_z() { return static_cast<unsigned short>(blockDim.z); }
// Integer instructions.
inline int __builtin_amdgcn_sdot4(int a, int b, int c, bool clamp) { return fl_amdgcn::sdot<8>(a, b, c, clamp); }
inline unsigned __builtin_amdgcn_udot4(unsigned a, unsigned b, unsigned c, bool clamp) { return fl_amdgcn::udot<8>(a, b, c, clamp); }
inline int __builtin_amdgcn_sdot8(int a, int b, int c, bool clamp) { return fl_amdgcn::sdot<4>(a, b, c, clamp); }
inline unsigned __builtin_amdgcn_udot8(unsigned a, unsigned b, unsigned c, bool clamp) { return fl_amdgcn::udot<4>(a, b, c, clamp); }
inline int __builtin_amdgcn_sudot4(bool as, int a, bool bs, int b, int c, bool clamp) { return fl_amdgcn::sudot4(as, a, bs, b, c, clamp); }
// HIP's amd_mixed_dot (amd_device_functions.h): those instructions on packed 16-bit,
// 8-bit and 4-bit integers, plus c, saturated when asked.
inline int amd_mixed_dot(short2 a, short2 b, int c, bool saturate) {
  return fl_amdgcn::sdot<16>(static_cast<uint16_t>(a.x) | static_cast<uint16_t>(a.y) << 16, static_cast<uint16_t>(b.x) | static_cast<uint16_t>(b.y) << 16, c, saturate);
}
inline unsigned amd_mixed_dot(ushort2 a, ushort2 b, unsigned c, bool saturate) {
  return fl_amdgcn::udot<16>(a.x | static_cast<unsigned>(a.y) << 16, b.x | static_cast<unsigned>(b.y) << 16, c, saturate);
}
inline int amd_mixed_dot(char4 a, char4 b, int c, bool saturate) {
  const auto bytes = [](char4 v) { return static_cast<int>(static_cast<uint8_t>(v.x) | static_cast<uint8_t>(v.y) << 8 | static_cast<uint8_t>(v.z) << 16 | static_cast<uint32_t>(static_cast<uint8_t>(v.w)) << 24); };
  return fl_amdgcn::sdot<8>(bytes(a), bytes(b), c, saturate);
}
inline unsigned amd_mixed_dot(uchar4 a, uchar4 b, unsigned c, bool saturate) {
  const auto bytes = [](uchar4 v) { return static_cast<unsigned>(v.x | v.y << 8 | v.z << 16 | static_cast<unsigned>(v.w) << 24); };
  return fl_amdgcn::udot<8>(bytes(a), bytes(b), c, saturate);
}
inline int amd_mixed_dot(int a, int b, int c, bool saturate) { return fl_amdgcn::sdot<4>(a, b, c, saturate); }
inline unsigned amd_mixed_dot(unsigned a, unsigned b, unsigned c, bool saturate) { return fl_amdgcn::udot<4>(a, b, c, saturate); }
inline unsigned __builtin_amdgcn_perm(unsigned a, unsigned b, unsigned selector) { return fl_amdgcn::perm(a, b, selector); }
// v_cvt_pk_u8_f32: the float rounded to the nearest integer (ties to even), held to 0..255
// (NaN as 0), into byte `byte` (0..3) of `old`, the others kept (rpp and MIVisionX pack pixels so).
inline unsigned __builtin_amdgcn_cvt_pk_u8_f32(float value, unsigned byte, unsigned old) {
  const float held = value != value ? 0.0f : fminf(fmaxf(rintf(value), 0.0f), 255.0f);
  const unsigned shift = 8 * (byte & 3);
  return (old & ~(0xffu << shift)) | (static_cast<unsigned>(held) << shift);
}
inline unsigned __builtin_amdgcn_alignbit(unsigned hi, unsigned lo, unsigned shift) { return fl_amdgcn::alignbit(hi, lo, shift); }
inline unsigned __builtin_amdgcn_alignbyte(unsigned hi, unsigned lo, unsigned shift) { return fl_amdgcn::alignbyte(hi, lo, shift); }
inline unsigned __builtin_amdgcn_ubfe(unsigned v, unsigned offset, unsigned width) { return __bitextract_u32(v, offset, width); }
inline int __builtin_amdgcn_sbfe(int v, unsigned offset, unsigned width) { return fl_amdgcn::sbfe(v, offset, width); }
inline unsigned __builtin_amdgcn_lerp(unsigned a, unsigned b, unsigned c) { return fl_amdgcn::lerp(a, b, c); }
inline unsigned __builtin_amdgcn_sad_u8(unsigned a, unsigned b, unsigned c) { return fl_amdgcn::sad<8>(a, b, c); }
inline unsigned __builtin_amdgcn_msad_u8(unsigned a, unsigned b, unsigned c) { return fl_amdgcn::sad<8, true>(a, b, c); }
inline unsigned __builtin_amdgcn_sad_u16(unsigned a, unsigned b, unsigned c) { return fl_amdgcn::sad<16>(a, b, c); }
// Math instructions.
inline float __builtin_amdgcn_fmed3f(float a, float b, float c) { return fl_amdgcn::fmed3(a, b, c); }
inline float __builtin_amdgcn_rcpf(float x) { return 1.0f / x; }
inline double __builtin_amdgcn_rcp(double x) { return 1.0 / x; }
inline float __builtin_amdgcn_rsqf(float x) { return 1.0f / sqrtf(x); }
inline double __builtin_amdgcn_rsq(double x) { return 1.0 / sqrt(x); }
inline float __builtin_amdgcn_sqrtf(float x) { return sqrtf(x); }
inline double __builtin_amdgcn_sqrt(double x) { return sqrt(x); }
inline float __builtin_amdgcn_exp2f(float x) { return exp2f(x); }
inline float __builtin_amdgcn_logf(float x) { return log2f(x); }
inline float __builtin_amdgcn_sinf(float x) { return sinf(6.283185307179586f * x); }
inline float __builtin_amdgcn_cosf(float x) { return cosf(6.283185307179586f * x); }
inline float __builtin_amdgcn_ldexpf(float x, int e) { return ldexpf(x, e); }
inline double __builtin_amdgcn_ldexp(double x, int e) { return ldexp(x, e); }
inline float __builtin_amdgcn_frexp_mantf(float x) { return fl_amdgcn::frexp_mant(x); }
inline double __builtin_amdgcn_frexp_mant(double x) { return fl_amdgcn::frexp_mant(x); }
inline int __builtin_amdgcn_frexp_expf(float x) { return fl_amdgcn::frexp_exp(x); }
inline int __builtin_amdgcn_frexp_exp(double x) { return fl_amdgcn::frexp_exp(x); }
inline float __builtin_amdgcn_fractf(float x) { return fl_amdgcn::fract(x); }
inline double __builtin_amdgcn_fract(double x) { return fl_amdgcn::fract(x); }
inline float __builtin_amdgcn_fmul_legacy(float a, float b) { return fl_amdgcn::fmul_legacy(a, b); }
inline float __builtin_amdgcn_global_atomic_fadd_f32(float* address, float v) { return atomicAdd(address, v); }
inline double __builtin_amdgcn_global_atomic_fadd_f64(double* address, double v) { return atomicAdd(address, v); }
template <typename... A> inline float __builtin_amdgcn_ds_faddf(float* address, float v, A...) { return atomicAdd(address, v); }

// HIP's votes read the exec mask on AMD: in a branch, the branch's lanes
// (the fuselab.h forms wait for every live lane of the warp).
#undef __ballot
#undef __any
#undef __all
inline unsigned long long __ballot(int p, int line = __builtin_LINE()) { return fl_amdgcn::ballot(line, p != 0); }
inline int __any(int p, int line = __builtin_LINE()) { return fl_amdgcn::ballot(line, p != 0) != 0; }
inline int __all(int p, int line = __builtin_LINE()) { return fl_amdgcn::vote_all(line, p != 0); }
// HIP's lane masks (amd_device_functions.h): the running lanes below and above this one, and itself.
inline uint64_t __lanemask_lt(int line = __builtin_LINE()) {
  return ((uint64_t(1) << fl_amdgcn::lane()) - 1) & fl_amdgcn::ballot(line, true);
}
inline uint64_t __lanemask_gt(int line = __builtin_LINE()) {
  const uint32_t lane = fl_amdgcn::lane();
  const uint64_t running = fl_amdgcn::ballot(line, true);
  return lane == 63 ? 0 : (~uint64_t(0) << (lane + 1)) & running;
}
inline uint64_t __lanemask_eq() { return uint64_t(1) << fl_amdgcn::lane(); }

// HIP's names for the cross-lane moves (amd_warp_functions.h).
inline int __hip_ds_bpermute(int index, int v, int line = __builtin_LINE()) { return fl_amdgcn::ds_bpermute(line, index, v); }
inline float __hip_ds_bpermutef(int index, float v, int line = __builtin_LINE()) { return fl_amdgcn::ds_bpermute(line, index, v); }
inline int __hip_ds_permute(int index, int v, int line = __builtin_LINE()) { return fl_amdgcn::ds_permute(line, index, v); }
inline int __hip_ds_swizzle(int v, int pattern, int line = __builtin_LINE()) { return fl_amdgcn::ds_swizzle(line, v, pattern); }
inline float __hip_ds_swizzlef(float v, int pattern, int line = __builtin_LINE()) { return fl_amdgcn::ds_swizzle(line, v, pattern); }
inline int __hip_move_dpp(int v, int control, int rows, int banks, bool bound, int line = __builtin_LINE()) {
  return fl_amdgcn::mov_dpp(line, v, control, rows, banks, bound);
}

// clang's HIP atomics (__hip_atomic_*): the scopes' names, and each operation
// with its memory order and scope, which the emulator's one device ignores
// (its atomics are sequentially consistent).
#define __HIP_MEMORY_SCOPE_SINGLETHREAD 1
#define __HIP_MEMORY_SCOPE_WAVEFRONT 2
#define __HIP_MEMORY_SCOPE_WORKGROUP 3
#define __HIP_MEMORY_SCOPE_AGENT 4
#define __HIP_MEMORY_SCOPE_SYSTEM 5
template <typename T> inline T __hip_atomic_load(T* address, int, int) { return fl_amdgcn::atomic_load(address); }
template <typename T, typename V> inline void __hip_atomic_store(T* address, V v, int, int) { fl_amdgcn::atomic_store(address, v); }
template <typename T, typename V> inline T __hip_atomic_exchange(T* address, V v, int, int) { return atomicExch(address, static_cast<T>(v)); }
template <typename T, typename V> inline T __hip_atomic_fetch_add(T* address, V v, int, int) { return atomicAdd(address, static_cast<T>(v)); }
template <typename T, typename V> inline T __hip_atomic_fetch_sub(T* address, V v, int, int) { return atomicSub(address, static_cast<T>(v)); }
template <typename T, typename V> inline T __hip_atomic_fetch_and(T* address, V v, int, int) { return atomicAnd(address, static_cast<T>(v)); }
template <typename T, typename V> inline T __hip_atomic_fetch_or(T* address, V v, int, int) { return atomicOr(address, static_cast<T>(v)); }
template <typename T, typename V> inline T __hip_atomic_fetch_xor(T* address, V v, int, int) { return atomicXor(address, static_cast<T>(v)); }
template <typename T, typename V> inline T __hip_atomic_fetch_min(T* address, V v, int, int) { return atomicMin(address, static_cast<T>(v)); }
template <typename T, typename V> inline T __hip_atomic_fetch_max(T* address, V v, int, int) { return atomicMax(address, static_cast<T>(v)); }
template <typename T, typename V>
inline bool __hip_atomic_compare_exchange_strong(T* address, T* expected, V desired, int, int, int) {
  return fl_amdgcn::atomic_compare_exchange(address, expected, desired);
}
template <typename T, typename V>
inline bool __hip_atomic_compare_exchange_weak(T* address, T* expected, V desired, int, int, int) {
  return fl_amdgcn::atomic_compare_exchange(address, expected, desired);
}

// HIP's atomicMin and atomicMax on floats, which CUDA lacks.
FL_YIELDS_TO_SOURCE inline float atomicMax(float* a, float v) { return fl::emu::atomic_update(a, [v](float x) { return x < v ? v : x; }); }
FL_YIELDS_TO_SOURCE inline double atomicMax(double* a, double v) { return fl::emu::atomic_update(a, [v](double x) { return x < v ? v : x; }); }
FL_YIELDS_TO_SOURCE inline float atomicMin(float* a, float v) { return fl::emu::atomic_update(a, [v](float x) { return v < x ? v : x; }); }
FL_YIELDS_TO_SOURCE inline double atomicMin(double* a, double v) { return fl::emu::atomic_update(a, [v](double x) { return v < x ? v : x; }); }

// HIP's floating-point atomics on AMD: "unsafe" ones use the hardware's
// instruction where it has one (not on fine-grained memory), "safe" ones a CAS
// loop; one and the same on the emulator.
template <typename T> inline T unsafeAtomicAdd(T* address, T v) { return atomicAdd(address, v); }
template <typename T> inline T safeAtomicAdd(T* address, T v) { return atomicAdd(address, v); }
template <typename T> inline T unsafeAtomicMax(T* address, T v) { return atomicMax(address, v); }
template <typename T> inline T safeAtomicMax(T* address, T v) { return atomicMax(address, v); }
template <typename T> inline T unsafeAtomicMin(T* address, T v) { return atomicMin(address, v); }
template <typename T> inline T safeAtomicMin(T* address, T v) { return atomicMin(address, v); }
template <typename T> inline void atomicAddNoRet(T* address, T v) { atomicAdd(address, v); }

// AMD's device library (OCML), whose __ocml_<name>_f32 and _f64 functions HIP's
// math is built on and sources call directly (aiter's activations:
// __ocml_exp_f32): the C library's functions of the same names.
#define FL_OCML_1(name, f32, f64) \
  inline float __ocml_##name##_f32(float x) { return f32(x); } \
  inline double __ocml_##name##_f64(double x) { return f64(x); }
#define FL_OCML_2(name, f32, f64) \
  inline float __ocml_##name##_f32(float x, float y) { return f32(x, y); } \
  inline double __ocml_##name##_f64(double x, double y) { return f64(x, y); }
FL_OCML_1(acos, acosf, acos) FL_OCML_1(acosh, acoshf, acosh) FL_OCML_1(asin, asinf, asin) FL_OCML_1(asinh, asinhf, asinh)
FL_OCML_1(atan, atanf, atan) FL_OCML_1(atanh, atanhf, atanh) FL_OCML_1(cbrt, cbrtf, cbrt) FL_OCML_1(ceil, ceilf, ceil)
FL_OCML_1(cos, cosf, cos) FL_OCML_1(cosh, coshf, cosh) FL_OCML_1(erf, erff, erf) FL_OCML_1(erfc, erfcf, erfc)
FL_OCML_1(exp, expf, exp) FL_OCML_1(exp2, exp2f, exp2) FL_OCML_1(exp10, exp10f, exp10) FL_OCML_1(expm1, expm1f, expm1)
FL_OCML_1(fabs, fabsf, fabs) FL_OCML_1(floor, floorf, floor) FL_OCML_1(lgamma, lgammaf, lgamma) FL_OCML_1(log, logf, log)
FL_OCML_1(log10, log10f, log10) FL_OCML_1(log1p, log1pf, log1p) FL_OCML_1(log2, log2f, log2) FL_OCML_1(logb, logbf, logb)
FL_OCML_1(nearbyint, nearbyintf, nearbyint) FL_OCML_1(rint, rintf, rint) FL_OCML_1(round, roundf, round)
FL_OCML_1(sin, sinf, sin) FL_OCML_1(sinh, sinhf, sinh) FL_OCML_1(sqrt, sqrtf, sqrt) FL_OCML_1(tan, tanf, tan)
FL_OCML_1(tanh, tanhf, tanh) FL_OCML_1(tgamma, tgammaf, tgamma) FL_OCML_1(trunc, truncf, trunc)
FL_OCML_2(atan2, atan2f, atan2) FL_OCML_2(copysign, copysignf, copysign) FL_OCML_2(fdim, fdimf, fdim)
FL_OCML_2(fmax, fmaxf, fmax) FL_OCML_2(fmin, fminf, fmin) FL_OCML_2(fmod, fmodf, fmod) FL_OCML_2(hypot, hypotf, hypot)
FL_OCML_2(pow, powf, pow) FL_OCML_2(remainder, remainderf, remainder)
#undef FL_OCML_1
#undef FL_OCML_2
inline float __ocml_rsqrt_f32(float x) { return 1.0f / sqrtf(x); }
inline double __ocml_rsqrt_f64(double x) { return 1.0 / sqrt(x); }
inline float __ocml_rcbrt_f32(float x) { return 1.0f / cbrtf(x); }
inline double __ocml_rcbrt_f64(double x) { return 1.0 / cbrt(x); }
inline float __ocml_fma_f32(float x, float y, float z) { return fmaf(x, y, z); }
inline double __ocml_fma_f64(double x, double y, double z) { return fma(x, y, z); }
inline float __ocml_pown_f32(float x, int n) { return powf(x, static_cast<float>(n)); }
inline double __ocml_pown_f64(double x, int n) { return pow(x, static_cast<double>(n)); }
inline float __ocml_sincos_f32(float x, float* c) { *c = cosf(x); return sinf(x); }
inline double __ocml_sincos_f64(double x, double* c) { *c = cos(x); return sin(x); }
inline int __ocml_isnan_f32(float x) { return isnan(x); }
inline int __ocml_isinf_f32(float x) { return isinf(x); }
inline int __ocml_isfinite_f32(float x) { return isfinite(x); }
inline int __ocml_isnan_f64(double x) { return isnan(x); }
inline int __ocml_isinf_f64(double x) { return isinf(x); }
inline int __ocml_isfinite_f64(double x) { return isfinite(x); }
// The hardware's approximations, as their precise twins here.
inline float __ocml_native_recip_f32(float x) { return 1.0f / x; }
inline float __ocml_native_sqrt_f32(float x) { return sqrtf(x); }
inline float __ocml_native_rsqrt_f32(float x) { return 1.0f / sqrtf(x); }
inline float __ocml_native_exp_f32(float x) { return expf(x); }
inline float __ocml_native_exp2_f32(float x) { return exp2f(x); }
inline float __ocml_native_log_f32(float x) { return logf(x); }
inline float __ocml_native_log2_f32(float x) { return log2f(x); }
inline float __ocml_native_sin_f32(float x) { return sinf(x); }
inline float __ocml_native_cos_f32(float x) { return cosf(x); }

#endif
