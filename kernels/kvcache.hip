// The KV cache append: each new token's K and V heads written into the cache
// at the slot of its position, K turned by RoPE on the way (the positions form
// of rope.hip: a row of cos_sin [max_pos, 2 * rot_half] a position, cosines
// then sines; only the first 2 * rot_half values of a head turn, the rest are
// copied; pairs rot_half apart, "neox", or interleaved), as ROCmForge's
// fused_rope_kvappend kernels do:
//   rope_k_append    K turned into its cache
//   cache_append     V (or any rows) copied into its cache
//   rope_kv_append   both in one launch
// and each serves a decode step (one new token a sequence) and a prompt (many
// tokens a sequence) alike.
//
// Shapes: x (k or v) [tokens, heads, d] holds per_seq = tokens / seqs new
// tokens of each of seqs sequences, one sequence after another; a cache is
// [seqs, max_seq, heads, d]; positions [seqs] is where each sequence's first
// new token goes (the sequence's length so far). Token t of sequence b goes to
// slot positions[b] + t and turns by that position.
//
// A token whose slot lies outside the cache, or whose position has no row in
// cos_sin, is skipped: nothing of it is written. The launcher refuses such
// positions before launching; the skip keeps a direct launch in bounds. Sizes
// that do not fit together (tokens not a multiple of seqs, rot_half past
// half_head) write nothing.
//
// Work items take 16-byte vectors when every access they make is aligned (the
// kernel decides, once a launch), else single values. Storage is f32, f16 or
// bf16; RoPE's arithmetic is f32, rounded once; copied values are copied as
// they are stored.
#include "fuselab/fuselab.h"

namespace fl::kvcache {

__device__ __forceinline__ long long first_item() { return (long long)blockIdx.x * blockDim.x + threadIdx.x; }
__device__ __forceinline__ long long item_stride() { return (long long)gridDim.x * blockDim.x; }

// a / b for an index a >= 0 and b > 0: in 32 bits when the launch's indices all
// fit (`narrow`, decided once a launch), where a 64-bit division costs tens of
// instructions, more than a work item's own arithmetic.
__device__ __forceinline__ long long quotient(long long a, long long b, bool narrow) {
  return narrow ? (long long)((unsigned)a / (unsigned)b) : a / b;
}

// (a, b) turned by the angle whose cosine is c and sine s.
__device__ __forceinline__ void rotate(float& a, float& b, float c, float s) {
  const float a0 = a;
  a = a0 * c - b * s;
  b = a0 * s + b * c;
}

// W values moved from `from` to `to` as stored, in one access.
template <typename T, int W>
__device__ __forceinline__ void copy_run(T* to, const T* from) {
  *reinterpret_cast<fl::vec<T, W>*>(to) = *reinterpret_cast<const fl::vec<T, W>*>(from);
}

// Where token `token` goes: its position (the first new token of sequence
// token / per_seq at positions[seq], the next ones after it) and the first
// element of its slot in a cache of rows of `row` values, or -1 when the slot
// lies outside the cache or the position past `max_pos`.
__device__ __forceinline__ long long slot_of(const int* positions, long long token, long long per_seq, int max_seq,
                                             int max_pos, long long row, bool narrow, long long& position) {
  const long long seq = quotient(token, per_seq, narrow);
  position = (long long)positions[seq] + (token - seq * per_seq);
  if (position < 0 || position >= max_seq || position >= max_pos) return -1;
  return (seq * max_seq + position) * row;
}

// Each token's row of `row` values copied into its slot, W values a work item
// (W divides row); tokens at max_pos or past it are skipped, as the turn skips them.
template <typename T, int W>
__device__ void append_rows(T* cache, const T* x, const int* positions, long long tokens, long long per_seq,
                            long long row, int max_seq, int max_pos) {
  const long long chunks = row / W, items = tokens * chunks;
  const bool narrow = items <= 0xffffffffLL;
  for (long long item = first_item(); item < items; item += item_stride()) {
    const long long token = quotient(item, chunks, narrow), offset = (item - token * chunks) * W;
    long long position;
    const long long slot = slot_of(positions, token, per_seq, max_seq, max_pos, row, narrow, position);
    if (slot >= 0) copy_run<T, W>(cache + slot + offset, x + token * row + offset);
  }
}

// Each head of k turned at its token's position and written into its slot,
// neox. A work item is W consecutive pair indices j of one head (W divides
// rot_half and half_head): a pair below rot_half turns by the position's row of
// cos_sin, (j, j + rot_half); past it, the pair's values 2j and 2j + 1 are
// copied. Neighbouring lanes take neighbouring chunks of each half.
template <typename T, int W>
__device__ void append_rotated_neox(T* cache, const T* k, const int* positions, const T* cos_sin, long long tokens,
                                    long long per_seq, int heads, int half_head, int max_seq, int max_pos, int rot_half) {
  const long long d = 2LL * half_head, row = heads * d;
  const long long chunks = half_head / W, items = tokens * heads * chunks;
  const bool narrow = items <= 0xffffffffLL;
  for (long long item = first_item(); item < items; item += item_stride()) {
    const long long head = quotient(item, chunks, narrow), token = quotient(head, heads, narrow);
    const int j = (item - head * chunks) * W;
    long long position;
    const long long slot = slot_of(positions, token, per_seq, max_seq, max_pos, row, narrow, position);
    if (slot < 0) continue;
    const T* from = k + head * d;
    T* to = cache + slot + (head - token * heads) * d;
    if (j >= rot_half) {
      copy_run<T, W>(to + 2 * j, from + 2 * j);
      copy_run<T, W>(to + 2 * j + W, from + 2 * j + W);
      continue;
    }
    const T* angle = cos_sin + position * 2 * rot_half;
    float c[W], s[W], a[W], b[W];
    fl::load_floats<T, W>(angle + j, 0, c);
    fl::load_floats<T, W>(angle + rot_half + j, 0, s);
    fl::load_floats<T, W>(from + j, 0, a);
    fl::load_floats<T, W>(from + j + rot_half, 0, b);
    for (int p = 0; p < W; ++p) rotate(a[p], b[p], c[p], s[p]);
    fl::store_floats<T, W>(to + j, 0, a);
    fl::store_floats<T, W>(to + j + rot_half, 0, b);
  }
}

// A chunk of W values of an interleaved head whose first pair is j: its W / 2
// pairs turned by the angle row when below rot_half, else as they are.
template <typename T, int W>
__device__ __forceinline__ fl::vec<T, W> turn_interleaved(fl::vec<T, W> x, int j, const T* angle, int rot_half) {
  constexpr int P = W / 2;
  if (j >= rot_half) return x;
  float c[P], s[P];
  fl::load_floats<T, P>(angle + j, 0, c);
  fl::load_floats<T, P>(angle + rot_half + j, 0, s);
  for (int p = 0; p < P; ++p) {
    float a = fl::to_float(x.v[2 * p]), b = fl::to_float(x.v[2 * p + 1]);
    rotate(a, b, c[p], s[p]);
    x.v[2 * p] = fl::from_float<T>(a);
    x.v[2 * p + 1] = fl::from_float<T>(b);
  }
  return x;
}

// The same, interleaved. A chunk is W consecutive values of one head, its W / 2
// pairs (2j, 2j + 1) all below rot_half (turned) or all past it (copied): W
// divides the head dim and W / 2 divides rot_half. A work item is chunk i of
// the head's first half of chunks and chunk i of its second half (if the head
// has that many): neighbouring lanes take neighbouring chunks in both, and a
// launch has half as many items, each dividing its index once. Both chunks are
// read before either is written: the compiler cannot tell that the cache does
// not alias k, and would otherwise wait out one read after the other (on an
// H100, a bf16 prompt of 4096 tokens of 32 heads of 128 took 0.042 ms that way
// and 0.029 ms reading first, as long as the neox form takes).
template <typename T, int W>
__device__ void append_rotated_interleaved(T* cache, const T* k, const int* positions, const T* cos_sin,
                                           long long tokens, long long per_seq, int heads, int half_head, int max_seq,
                                           int max_pos, int rot_half) {
  constexpr int P = W / 2;
  using Chunk = fl::vec<T, W>;
  const long long d = 2LL * half_head, row = heads * d;
  const int chunks = d / W, items_per_head = (chunks + 1) / 2;
  const long long items = tokens * heads * items_per_head;
  const bool narrow = items <= 0xffffffffLL;
  for (long long item = first_item(); item < items; item += item_stride()) {
    const long long head = quotient(item, items_per_head, narrow), token = quotient(head, heads, narrow);
    const int first = item - head * items_per_head, second = first + items_per_head;
    const Chunk* from = reinterpret_cast<const Chunk*>(k + head * d);
    const Chunk a = from[first];
    Chunk b;
    if (second < chunks) b = from[second];
    long long position;
    const long long slot = slot_of(positions, token, per_seq, max_seq, max_pos, row, narrow, position);
    if (slot < 0) continue;
    const T* angle = cos_sin + position * 2 * rot_half;
    Chunk* to = reinterpret_cast<Chunk*>(cache + slot + (head - token * heads) * d);
    to[first] = turn_interleaved<T, W>(a, first * P, angle, rot_half);
    if (second < chunks) to[second] = turn_interleaved<T, W>(b, second * P, angle, rot_half);
  }
}

// Sizes that describe a launch the kernels can serve.
__device__ __forceinline__ bool sizes_fit(int tokens, int seqs, int half_head, int rot_half) {
  return seqs > 0 && tokens % seqs == 0 && rot_half > 0 && rot_half <= half_head;
}

// Whether a head's work items can be 16-byte vectors of V values, every one of
// them then aligned in k, in the cache and in cos_sin: neox, chunks of V pairs
// of each half (V divides half_head and rot_half); interleaved, chunks of V / 2
// pairs (V / 2 divides both).
template <typename T, bool kNeox>
__device__ __forceinline__ bool rotation_vectorizable(int half_head, int rot_half, const T* cache, const T* k,
                                                      const T* cos_sin) {
  constexpr int V = fl::vec16<T>::n;
  constexpr int pairs = kNeox ? V : V / 2;
  return half_head % pairs == 0 && rot_half % pairs == 0 && fl::aligned16(cache) && fl::aligned16(k) &&
         fl::aligned16(cos_sin);
}

template <typename T, bool kNeox>
__device__ void append_k(T* cache, const T* k, const int* positions, const T* cos_sin, int tokens, int seqs, int heads,
                         int half_head, int max_seq, int max_pos, int rot_half) {
  constexpr int V = fl::vec16<T>::n;
  const long long per_seq = tokens / seqs;
  const bool vectors = rotation_vectorizable<T, kNeox>(half_head, rot_half, cache, k, cos_sin);
  if (kNeox && vectors) {
    append_rotated_neox<T, V>(cache, k, positions, cos_sin, tokens, per_seq, heads, half_head, max_seq, max_pos, rot_half);
  } else if (kNeox) {
    append_rotated_neox<T, 1>(cache, k, positions, cos_sin, tokens, per_seq, heads, half_head, max_seq, max_pos, rot_half);
  } else if (vectors) {
    append_rotated_interleaved<T, V>(cache, k, positions, cos_sin, tokens, per_seq, heads, half_head, max_seq, max_pos,
                                     rot_half);
  } else {
    append_rotated_interleaved<T, 2>(cache, k, positions, cos_sin, tokens, per_seq, heads, half_head, max_seq, max_pos,
                                     rot_half);
  }
}

template <typename T>
__device__ void append_v(T* cache, const T* v, const int* positions, int tokens, int seqs, long long row, int max_seq,
                         int max_pos) {
  constexpr int V = fl::vec16<T>::n;
  const long long per_seq = tokens / seqs;
  if (row % V == 0 && fl::aligned16(cache) && fl::aligned16(v)) {
    append_rows<T, V>(cache, v, positions, tokens, per_seq, row, max_seq, max_pos);
  } else {
    append_rows<T, 1>(cache, v, positions, tokens, per_seq, row, max_seq, max_pos);
  }
}

// x [tokens, heads, d] copied into cache [seqs, max_seq, heads, d] (V alone).
template <typename T>
__global__ void cache_append(T* __restrict__ cache, const T* __restrict__ x, const int* __restrict__ positions,
                             int tokens, int seqs, int heads, int d, int max_seq) {
  if (seqs <= 0 || tokens % seqs != 0) return;
  append_v(cache, x, positions, tokens, seqs, (long long)heads * d, max_seq, max_seq);
}

// k [tokens, heads, 2 * half_head] turned and written into k_cache [seqs, max_seq, heads, 2 * half_head].
template <typename T, bool kNeox>
__global__ void rope_k_append(T* __restrict__ k_cache, const T* __restrict__ k, const int* __restrict__ positions,
                              const T* __restrict__ cos_sin, int tokens, int seqs, int heads, int half_head, int max_seq,
                              int max_pos, int rot_half) {
  if (!sizes_fit(tokens, seqs, half_head, rot_half)) return;
  append_k<T, kNeox>(k_cache, k, positions, cos_sin, tokens, seqs, heads, half_head, max_seq, max_pos, rot_half);
}

// rope_k_append and cache_append of v, in one launch: every thread takes its
// share of k's work items, then of v's.
template <typename T, bool kNeox>
__global__ void rope_kv_append(T* __restrict__ k_cache, T* __restrict__ v_cache, const T* __restrict__ k,
                               const T* __restrict__ v, const int* __restrict__ positions, const T* __restrict__ cos_sin,
                               int tokens, int seqs, int heads, int half_head, int max_seq, int max_pos, int rot_half) {
  if (!sizes_fit(tokens, seqs, half_head, rot_half)) return;
  append_k<T, kNeox>(k_cache, k, positions, cos_sin, tokens, seqs, heads, half_head, max_seq, max_pos, rot_half);
  append_v(v_cache, v, positions, tokens, seqs, heads * 2LL * half_head, max_seq, max_pos);
}

FL_EXPORT_DTYPES(cache_append, "cache[seqs*max_seq*heads*d] x[tokens*heads*d] positions[seqs] tokens seqs heads d max_seq",
                 cache_append)

#define FL_ROPE_K_APPEND_PARAMS                                                                                  \
  "k_cache[seqs*max_seq*heads*2*half_head] k[tokens*heads*2*half_head] positions[seqs] cos_sin[max_pos*2*rot_half] " \
  "tokens seqs heads half_head max_seq max_pos rot_half"
FL_EXPORT_DTYPES(rope_k_append_neox, FL_ROPE_K_APPEND_PARAMS, rope_k_append, true)
FL_EXPORT_DTYPES(rope_k_append_interleaved, FL_ROPE_K_APPEND_PARAMS, rope_k_append, false)

#define FL_ROPE_KV_APPEND_PARAMS                                                                                 \
  "k_cache[seqs*max_seq*heads*2*half_head] v_cache[seqs*max_seq*heads*2*half_head] k[tokens*heads*2*half_head] " \
  "v[tokens*heads*2*half_head] positions[seqs] cos_sin[max_pos*2*rot_half] "                                      \
  "tokens seqs heads half_head max_seq max_pos rot_half"
FL_EXPORT_DTYPES(rope_kv_append_neox, FL_ROPE_KV_APPEND_PARAMS, rope_kv_append, true)
FL_EXPORT_DTYPES(rope_kv_append_interleaved, FL_ROPE_KV_APPEND_PARAMS, rope_kv_append, false)

}  // namespace fl::kvcache
