// <curand_kernel.h> on the CPU emulator: cuRAND's device API for its default
// generator, XORWOW (curandState), for Philox4_32_10 and for MRG32k3a, giving
// the GPU's streams. curand(), curand4() and the uniform distributions are the
// GPU's bits: the generators are exact integer arithmetic, a uniform float of
// XORWOW or Philox is one fused multiply-add of the 32-bit draw, as the GPU's
// compiler contracts `x * 2^-32 + 2^-33`, and MRG32k3a's draws are the combined
// residue scaled in double, as cuRAND scales it. The normal distributions use
// the same draws through the Box-Muller transform, with the precise sine, cosine
// and logarithm where the GPU uses its fast approximations: they agree to a few
// units in the last place. The Sobol and MTGP32 generators (whose states the
// host API sets up) and the Poisson and discrete distributions are not here
// (compile() says so before the compiler runs).
#ifndef FUSELAB_EMULATOR_INCLUDE_CURAND_KERNEL_H
#define FUSELAB_EMULATOR_INCLUDE_CURAND_KERNEL_H
#include <fuselab/fuselab.h>
#include <curand.h>  // as the toolkit's includes it: the host API's types

#define CURAND_2POW32_INV (2.3283064e-10f)
#define CURAND_2POW32_INV_DOUBLE (2.3283064365386963e-10)
#define CURAND_2POW53_INV_DOUBLE (1.1102230246251565e-16)
#define CURAND_2POW32_INV_2PI (2.3283064e-10f * 6.2831855f)
#define CURAND_2PI (6.2831855f)
#define CURAND_PI_DOUBLE (3.1415926535897932)
#define EXTRA_FLAG_NORMAL 0x00000001
#define EXTRA_FLAG_LOG_NORMAL 0x00000002

// The layouts of the GPU's states, so that states kept in a tensor between launches have its bytes.
struct curandStateXORWOW {
  unsigned int d, v[5];
  int boxmuller_flag;
  int boxmuller_flag_double;
  float boxmuller_extra;
  double boxmuller_extra_double;
};
typedef struct curandStateXORWOW curandStateXORWOW_t;
typedef struct curandStateXORWOW curandState_t;
typedef struct curandStateXORWOW curandState;

struct curandStatePhilox4_32_10 {
  uint4 ctr;
  uint4 output;
  uint2 key;
  unsigned int STATE;
  int boxmuller_flag;
  int boxmuller_flag_double;
  float boxmuller_extra;
  double boxmuller_extra_double;
};
typedef struct curandStatePhilox4_32_10 curandStatePhilox4_32_10_t;

struct curandStateMRG32k3a {
  unsigned int s1[3];
  unsigned int s2[3];
  int boxmuller_flag;
  int boxmuller_flag_double;
  float boxmuller_extra;
  double boxmuller_extra_double;
};
typedef struct curandStateMRG32k3a curandStateMRG32k3a_t;

#define MRG32K3A_MOD1 4294967087.
#define MRG32K3A_MOD2 4294944443.
#define MRG32K3A_NORM (2.3283065498378288e-10)
#define MRG32K3A_BITS_NORM 1.000000048662
#define CURAND_2PI_DOUBLE (6.2831853071795860)

namespace fl {
namespace emu {

// XORWOW's xorshift part is linear over GF(2) on its 160 bits v[0..4]: a jump
// of n steps is the n-th power of the one-step matrix. A matrix is kept as the
// images of the 160 unit vectors; the powers 2^k (offsets) and 2^(67+k)
// (subsequences, each 2^67 draws long) are made once, on first use.
struct xorwow_matrix {
  uint32_t rows[160][5];
};

inline void xorwow_step(uint32_t v[5]) {
  const uint32_t t = v[0] ^ (v[0] >> 2);
  v[0] = v[1];
  v[1] = v[2];
  v[2] = v[3];
  v[3] = v[4];
  v[4] = (v[4] ^ (v[4] << 4)) ^ (t ^ (t << 1));
}

inline void xorwow_apply(const xorwow_matrix& m, uint32_t v[5]) {
  uint32_t r[5] = {0, 0, 0, 0, 0};
  for (int i = 0; i < 160; i++)
    if (v[i / 32] >> (i % 32) & 1)
      for (int j = 0; j < 5; j++) r[j] ^= m.rows[i][j];
  for (int j = 0; j < 5; j++) v[j] = r[j];
}

struct xorwow_jumps {
  xorwow_matrix offset[64];    // 2^k steps
  xorwow_matrix sequence[64];  // 2^(67+k) steps
  xorwow_jumps() {
    xorwow_matrix m;
    for (int i = 0; i < 160; i++) {
      uint32_t v[5] = {0, 0, 0, 0, 0};
      v[i / 32] = 1u << (i % 32);
      xorwow_step(v);
      for (int j = 0; j < 5; j++) m.rows[i][j] = v[j];
    }
    for (int k = 0; k < 67 + 64; k++) {
      if (k < 64) offset[k] = m;
      if (k >= 67) sequence[k - 67] = m;
      xorwow_matrix squared = m;
      for (auto& row : squared.rows) xorwow_apply(m, row);
      m = squared;
    }
  }
};

// Made when the module loads (400 KiB, some milliseconds), not in a kernel: a
// launch stopped by its time limit cannot leave it half made.
inline const xorwow_jumps xorwow_tables{};

inline void xorwow_jump(const xorwow_matrix* powers, unsigned long long n, uint32_t v[5]) {
  for (int k = 0; n != 0; k++, n >>= 1)
    if (n & 1) xorwow_apply(powers[k], v);
}

// A fresh state holds no second normal of a Box-Muller pair.
template <typename State>
inline void forget_extra_normals(State* state) {
  state->boxmuller_flag = 0;
  state->boxmuller_flag_double = 0;
  state->boxmuller_extra = 0.f;
  state->boxmuller_extra_double = 0.;
}

// MRG32k3a (L'Ecuyer, 1999): two recurrences of order 3, modulo m1 and m2,
// combined. Each is linear, so a jump of n steps is the n-th power of its
// one-step matrix modulo its m: the powers 2^k (offsets), 2^(76+k)
// (subsequences, each 2^76 draws) and 2^(127+k) (sequences) are made once.
struct mrg_matrix {
  uint64_t a[3][3];
};
constexpr uint64_t mrg_m1 = 4294967087u, mrg_m2 = 4294944443u;

inline mrg_matrix mrg_product(const mrg_matrix& x, const mrg_matrix& y, uint64_t m) {
  mrg_matrix r{};
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      unsigned __int128 sum = 0;
      for (int k = 0; k < 3; k++) sum += static_cast<unsigned __int128>(x.a[i][k]) * y.a[k][j];
      r.a[i][j] = static_cast<uint64_t>(sum % m);
    }
  return r;
}

inline void mrg_apply(const mrg_matrix& t, unsigned int v[3], uint64_t m) {
  uint64_t r[3];
  for (int i = 0; i < 3; i++) {
    unsigned __int128 sum = 0;
    for (int k = 0; k < 3; k++) sum += static_cast<unsigned __int128>(t.a[i][k]) * v[k];
    r[i] = static_cast<uint64_t>(sum % m);
  }
  for (int i = 0; i < 3; i++) v[i] = static_cast<unsigned int>(r[i]);
}

struct mrg_jumps {
  mrg_matrix first[191], second[191];  // [k]: 2^k steps of each recurrence
  mrg_jumps() {
    // s1' = (s1[1], s1[2], 1403580 s1[1] - 810728 s1[0]); s2' = (s2[1], s2[2], 527612 s2[2] - 1370589 s2[0]).
    first[0] = {{{0, 1, 0}, {0, 0, 1}, {mrg_m1 - 810728u, 1403580u, 0}}};
    second[0] = {{{0, 1, 0}, {0, 0, 1}, {mrg_m2 - 1370589u, 0, 527612u}}};
    for (int k = 1; k < 191; k++) {
      first[k] = mrg_product(first[k - 1], first[k - 1], mrg_m1);
      second[k] = mrg_product(second[k - 1], second[k - 1], mrg_m2);
    }
  }
};
inline const mrg_jumps mrg_tables{};

// n steps, times 2^shift.
inline void mrg_jump(curandStateMRG32k3a_t* s, unsigned long long n, int shift) {
  for (int k = 0; n != 0; k++, n >>= 1)
    if (n & 1) {
      mrg_apply(mrg_tables.first[shift + k], s->s1, mrg_m1);
      mrg_apply(mrg_tables.second[shift + k], s->s2, mrg_m2);
    }
}

// One step of both recurrences: the combined residue, in (0, m1], as a double.
inline double mrg_next(curandStateMRG32k3a_t* s) {
  const uint64_t p1 = (1403580ull * s->s1[1] + 810728ull * (mrg_m1 - s->s1[0])) % mrg_m1;
  s->s1[0] = s->s1[1];
  s->s1[1] = s->s1[2];
  s->s1[2] = static_cast<unsigned int>(p1);
  const uint64_t p2 = (527612ull * s->s2[2] + 1370589ull * (mrg_m2 - s->s2[0])) % mrg_m2;
  s->s2[0] = s->s2[1];
  s->s2[1] = s->s2[2];
  s->s2[2] = static_cast<unsigned int>(p2);
  return static_cast<double>(p1 > p2 ? p1 - p2 : p1 + mrg_m1 - p2);
}

// Philox4x32-10 (Salmon et al., 2011): ten rounds of two 32-bit multiplies, the key bumped between them.
inline uint4 philox4x32_10(uint4 c, uint2 k) {
  for (int round = 0; round < 10; round++) {
    if (round > 0) {
      k.x += 0x9E3779B9u;
      k.y += 0xBB67AE85u;
    }
    const uint64_t p0 = uint64_t(0xD2511F53u) * c.x, p1 = uint64_t(0xCD9E8D57u) * c.z;
    c = make_uint4(static_cast<uint32_t>(p1 >> 32) ^ c.y ^ k.x, static_cast<uint32_t>(p1),
                   static_cast<uint32_t>(p0 >> 32) ^ c.w ^ k.y, static_cast<uint32_t>(p0));
  }
  return c;
}

// The 128-bit counter: n added to its low half, or to its high half (a subsequence).
inline void philox_advance(curandStatePhilox4_32_10_t* s, unsigned long long n) {
  const unsigned long long low = (static_cast<unsigned long long>(s->ctr.y) << 32 | s->ctr.x) + n;
  const bool carry = low < n;
  s->ctr.x = static_cast<uint32_t>(low);
  s->ctr.y = static_cast<uint32_t>(low >> 32);
  if (carry && ++s->ctr.z == 0) ++s->ctr.w;
}
inline void philox_advance_high(curandStatePhilox4_32_10_t* s, unsigned long long n) {
  const unsigned long long high = (static_cast<unsigned long long>(s->ctr.w) << 32 | s->ctr.z) + n;
  s->ctr.z = static_cast<uint32_t>(high);
  s->ctr.w = static_cast<uint32_t>(high >> 32);
}

// A uniform float in (0, 1] from 32 bits, rounded once as the GPU's fused multiply-add rounds it.
inline float uniform_of(unsigned int x) { return fmaf(static_cast<float>(x), CURAND_2POW32_INV, CURAND_2POW32_INV / 2.0f); }
inline double uniform_double_of(unsigned int x, unsigned int y) {
  const unsigned long long z = static_cast<unsigned long long>(x) ^ (static_cast<unsigned long long>(y) << (53 - 32));
  return static_cast<double>(z) * CURAND_2POW53_INV_DOUBLE + (CURAND_2POW53_INV_DOUBLE / 2.0);
}
// The two normals of a uniform u in (0, 1] and an angle v, as cuRAND's Box-Muller gives them.
inline float2 polar_normals(float u, float v) {
  const float s = sqrtf(-2.0f * logf(u));
  float2 r;
  __sincosf(v, &r.x, &r.y);
  r.x *= s;
  r.y *= s;
  return r;
}
inline float2 box_muller(unsigned int x, unsigned int y) {
  return polar_normals(uniform_of(x), fmaf(static_cast<float>(y), CURAND_2POW32_INV_2PI, CURAND_2POW32_INV_2PI / 2.0f));
}
inline double2 box_muller_double(unsigned int x0, unsigned int x1, unsigned int y0, unsigned int y1) {
  const double u = uniform_double_of(x0, x1);
  const unsigned long long zy = static_cast<unsigned long long>(y0) ^ (static_cast<unsigned long long>(y1) << (53 - 32));
  const double v = static_cast<double>(zy) * (CURAND_2POW53_INV_DOUBLE * 2.0) + CURAND_2POW53_INV_DOUBLE;
  const double s = sqrt(-2.0 * log(u));
  return make_double2(sin(v * CURAND_PI_DOUBLE) * s, cos(v * CURAND_PI_DOUBLE) * s);
}

}  // namespace emu
}  // namespace fl

// ---- XORWOW

inline unsigned int curand(curandStateXORWOW_t* state) {
  fl::emu::xorwow_step(state->v);
  state->d += 362437;
  return state->v[4] + state->d;
}

inline void skipahead(unsigned long long n, curandStateXORWOW_t* state) {
  fl::emu::xorwow_jump(fl::emu::xorwow_tables.offset, n, state->v);
  state->d += 362437u * static_cast<unsigned int>(n);
}

// Each subsequence is 2^67 draws; d moves by a multiple of 2^32 over it, so not at all.
inline void skipahead_sequence(unsigned long long n, curandStateXORWOW_t* state) {
  fl::emu::xorwow_jump(fl::emu::xorwow_tables.sequence, n, state->v);
}

inline void curand_init(unsigned long long seed, unsigned long long subsequence, unsigned long long offset, curandStateXORWOW_t* state) {
  const unsigned int s0 = static_cast<unsigned int>(seed) ^ 0xaad26b49u;
  const unsigned int s1 = static_cast<unsigned int>(seed >> 32) ^ 0xf7dcefddu;
  const unsigned int t0 = 1099087573u * s0;
  const unsigned int t1 = 2591861531u * s1;
  state->d = 6615241u + t1 + t0;
  state->v[0] = 123456789u + t0;
  state->v[1] = 362436069u ^ t0;
  state->v[2] = 521288629u + t1;
  state->v[3] = 88675123u ^ t1;
  state->v[4] = 5783321u + t0;
  skipahead_sequence(subsequence, state);
  skipahead(offset, state);
  fl::emu::forget_extra_normals(state);
}

// ---- Philox4_32_10: four draws a counter; STATE says which of them is next.

inline void skipahead(unsigned long long n, curandStatePhilox4_32_10_t* state) {
  state->STATE += static_cast<unsigned int>(n & 3);
  n /= 4;
  if (state->STATE > 3) {
    n += 1;
    state->STATE -= 4;
  }
  fl::emu::philox_advance(state, n);
  state->output = fl::emu::philox4x32_10(state->ctr, state->key);
}

inline void skipahead_sequence(unsigned long long n, curandStatePhilox4_32_10_t* state) {
  fl::emu::philox_advance_high(state, n);
  state->output = fl::emu::philox4x32_10(state->ctr, state->key);
}

inline void curand_init(unsigned long long seed, unsigned long long subsequence, unsigned long long offset,
                        curandStatePhilox4_32_10_t* state) {
  state->ctr = make_uint4(0, 0, 0, 0);
  state->key = make_uint2(static_cast<unsigned int>(seed), static_cast<unsigned int>(seed >> 32));
  state->STATE = 0;
  fl::emu::forget_extra_normals(state);
  skipahead_sequence(subsequence, state);
  skipahead(offset, state);
}

inline unsigned int curand(curandStatePhilox4_32_10_t* state) {
  const unsigned int words[4] = {state->output.x, state->output.y, state->output.z, state->output.w};
  const unsigned int r = words[state->STATE & 3];
  if (++state->STATE == 4) {
    fl::emu::philox_advance(state, 1);
    state->output = fl::emu::philox4x32_10(state->ctr, state->key);
    state->STATE = 0;
  }
  return r;
}

// The next four draws; STATE stays where it was.
inline uint4 curand4(curandStatePhilox4_32_10_t* state) {
  const uint4 now = state->output;
  fl::emu::philox_advance(state, 1);
  state->output = fl::emu::philox4x32_10(state->ctr, state->key);
  const unsigned int words[8] = {now.x, now.y, now.z, now.w, state->output.x, state->output.y, state->output.z, state->output.w};
  const unsigned int k = state->STATE & 3;
  return make_uint4(words[k], words[k + 1], words[k + 2], words[k + 3]);
}

// ---- MRG32k3a: the seed's halves multiply the published starting state.

inline void skipahead(unsigned long long n, curandStateMRG32k3a_t* state) { fl::emu::mrg_jump(state, n, 0); }
// Each subsequence is 2^76 draws; n is taken modulo 2^51, as cuRAND takes it.
inline void skipahead_subsequence(unsigned long long n, curandStateMRG32k3a_t* state) {
  fl::emu::mrg_jump(state, n & ((1ull << 51) - 1), 76);
}
inline void skipahead_sequence(unsigned long long n, curandStateMRG32k3a_t* state) { fl::emu::mrg_jump(state, n, 127); }

inline void curand_init(unsigned long long seed, unsigned long long subsequence, unsigned long long offset, curandStateMRG32k3a_t* state) {
  for (int i = 0; i < 3; i++) state->s1[i] = state->s2[i] = 12345u;
  if (seed != 0) {
    const uint64_t x1 = static_cast<unsigned int>(seed) ^ 0x55555555u, x2 = static_cast<unsigned int>(seed >> 32) ^ 0xAAAAAAAAu;
    const uint64_t mul1[3] = {x1, x2, x1}, mul2[3] = {x2, x1, x2};
    for (int i = 0; i < 3; i++) {
      state->s1[i] = static_cast<unsigned int>(mul1[i] * state->s1[i] % fl::emu::mrg_m1);
      state->s2[i] = static_cast<unsigned int>(mul2[i] * state->s2[i] % fl::emu::mrg_m2);
    }
  }
  skipahead_subsequence(subsequence, state);
  skipahead(offset, state);
  fl::emu::forget_extra_normals(state);
}

// The residue scaled to 32 bits; the largest saturates, as the GPU's conversion does.
inline unsigned int curand(curandStateMRG32k3a_t* state) {
  const double scaled = fl::emu::mrg_next(state) * MRG32K3A_BITS_NORM;
  return scaled >= 4294967295.0 ? 0xFFFFFFFFu : static_cast<unsigned int>(scaled);
}

// ---- distributions, for each generator

// Each distribution is a plain function of each generator's state, as cuRAND declares
// them, so that a source's own declaration (`__device__ float curand_uniform(curandState_t*);`)
// names the same function.
inline float curand_uniform(curandStateXORWOW_t* state) { return fl::emu::uniform_of(curand(state)); }
inline float curand_uniform(curandStatePhilox4_32_10_t* state) { return fl::emu::uniform_of(curand(state)); }
inline float curand_uniform(curandStateMRG32k3a_t* state) { return static_cast<float>(fl::emu::mrg_next(state) * MRG32K3A_NORM); }
inline double curand_uniform_double(curandStateMRG32k3a_t* state) { return fl::emu::mrg_next(state) * MRG32K3A_NORM; }

inline double curand_uniform_double(curandStateXORWOW_t* state) {
  const unsigned int x = curand(state);
  const unsigned int y = curand(state);
  return fl::emu::uniform_double_of(x, y);
}
inline double curand_uniform_double(curandStatePhilox4_32_10_t* state) {
  return curand(state) * CURAND_2POW32_INV_DOUBLE + CURAND_2POW32_INV_DOUBLE;
}
inline float4 curand_uniform4(curandStatePhilox4_32_10_t* state) {
  const uint4 x = curand4(state);
  return make_float4(fl::emu::uniform_of(x.x), fl::emu::uniform_of(x.y), fl::emu::uniform_of(x.z), fl::emu::uniform_of(x.w));
}
inline double2 curand_uniform2_double(curandStatePhilox4_32_10_t* state) {
  const uint4 x = curand4(state);
  return make_double2(fl::emu::uniform_double_of(x.x, x.y), fl::emu::uniform_double_of(x.z, x.w));
}

namespace fl {
namespace emu {
// MRG32k3a's Box-Muller takes two of its uniforms, as cuRAND's does.
inline float2 box_muller_mrg(curandStateMRG32k3a_t* state) {
  const float x = curand_uniform(state);
  const float y = curand_uniform(state) * CURAND_2PI;
  return polar_normals(x, y);
}
inline double2 box_muller_mrg_double(curandStateMRG32k3a_t* state) {
  const double x = curand_uniform_double(state);
  const double y = curand_uniform_double(state) * 2.0;
  const double s = sqrt(-2.0 * log(x));
  return make_double2(sin(y * CURAND_PI_DOUBLE) * s, cos(y * CURAND_PI_DOUBLE) * s);
}
// The next pair of normals: two 32-bit draws through Box-Muller, or MRG32k3a's own.
template <typename State>
inline float2 normal_pair(State* state) {
  const unsigned int x = curand(state);
  const unsigned int y = curand(state);
  return box_muller(x, y);
}
inline float2 normal_pair(curandStateMRG32k3a_t* state) { return box_muller_mrg(state); }
// The four draws of a double Box-Muller pair: XORWOW's next four, Philox's curand4.
inline uint4 four_draws(curandStateXORWOW_t* state) {
  const unsigned int a = curand(state), b = curand(state), c = curand(state);
  return make_uint4(a, b, c, curand(state));
}
inline uint4 four_draws(curandStatePhilox4_32_10_t* state) { return curand4(state); }
// The next pair of double normals: four draws through Box-Muller, or MRG32k3a's own.
template <typename State>
inline double2 normal_pair_double(State* state) {
  const uint4 x = four_draws(state);
  return box_muller_double(x.x, x.y, x.z, x.w);
}
inline double2 normal_pair_double(curandStateMRG32k3a_t* state) { return box_muller_mrg_double(state); }
// Box-Muller gives two normals: one is returned, the other kept for the next call.
template <typename State>
inline float normal(State* state) {
  if (state->boxmuller_flag != EXTRA_FLAG_NORMAL) {
    const float2 v = normal_pair(state);
    state->boxmuller_extra = v.y;
    state->boxmuller_flag = EXTRA_FLAG_NORMAL;
    return v.x;
  }
  state->boxmuller_flag = 0;
  return state->boxmuller_extra;
}
template <typename State>
inline double normal_double(State* state) {
  if (state->boxmuller_flag_double != EXTRA_FLAG_NORMAL) {
    const double2 v = normal_pair_double(state);
    state->boxmuller_extra_double = v.y;
    state->boxmuller_flag_double = EXTRA_FLAG_NORMAL;
    return v.x;
  }
  state->boxmuller_flag_double = 0;
  return state->boxmuller_extra_double;
}
}  // namespace emu
}  // namespace fl

inline float4 curand_normal4(curandStatePhilox4_32_10_t* state) {
  const uint4 x = curand4(state);
  const float2 a = fl::emu::box_muller(x.x, x.y), b = fl::emu::box_muller(x.z, x.w);
  return make_float4(a.x, a.y, b.x, b.y);
}

#define FL_CURAND_NORMALS(State)                                                                                 \
  inline float curand_normal(State* state) { return fl::emu::normal(state); }                                  \
  inline float2 curand_normal2(State* state) { return fl::emu::normal_pair(state); }                           \
  inline double2 curand_normal2_double(State* state) { return fl::emu::normal_pair_double(state); }            \
  inline double curand_normal_double(State* state) { return fl::emu::normal_double(state); }                   \
  inline float curand_log_normal(State* state, float mean, float stddev) {                                     \
    return expf(mean + stddev * curand_normal(state));                                                         \
  }                                                                                                            \
  inline float2 curand_log_normal2(State* state, float mean, float stddev) {                                   \
    const float2 v = curand_normal2(state);                                                                    \
    return make_float2(expf(mean + stddev * v.x), expf(mean + stddev * v.y));                                  \
  }                                                                                                            \
  inline double curand_log_normal_double(State* state, double mean, double stddev) {                           \
    return exp(mean + stddev * curand_normal_double(state));                                                   \
  }
FL_CURAND_NORMALS(curandStateXORWOW_t)
FL_CURAND_NORMALS(curandStatePhilox4_32_10_t)
FL_CURAND_NORMALS(curandStateMRG32k3a_t)
#undef FL_CURAND_NORMALS
inline float4 curand_log_normal4(curandStatePhilox4_32_10_t* state, float mean, float stddev) {
  const float4 v = curand_normal4(state);
  return make_float4(expf(mean + stddev * v.x), expf(mean + stddev * v.y), expf(mean + stddev * v.z), expf(mean + stddev * v.w));
}

#endif
