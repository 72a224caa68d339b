// Rotary position embedding (RoPE): each pair (a, b) of a head's values turns by
// an angle that depends on the token's position and the pair's index,
//   a' = a cos - b sin,   b' = a sin + b cos.
// Which values pair up is the layout:
//   rope_i     interleaved: (x[2i], x[2i + 1]); x [b, h, t, d]
//   rope       halves d/2 apart ("neox"): (x[i], x[i + d/2]); x [b, h, t, d]
//   rope_thd   halves, with x [b, t, h, d]
// with cos and sin tables [t, d/2] (row = the token's time step); and the
// positions form, where each token names its row of a cos_sin_cache
// [max_pos, rot_dim] (cos in the first rot_dim/2 columns, sin in the rest) and
// only the first rot_dim values of a head turn, the rest copied
// (rope_positions_neox, rope_positions_interleaved).
//
// The table kernels take W pairs' worth of values a work item as 16-byte vectors
// when the head dim allows it and every pointer is aligned, else one pair. Every
// kernel is a grid-stride loop over its work items. Storage is f32, f16 or bf16;
// arithmetic is f32.
#include "fuselab/fuselab.h"

namespace fl::rope {

// (a, b) turned by the angle whose cosine is c and sine s.
__device__ __forceinline__ void rotate(float& a, float& b, float c, float s) {
  const float a0 = a;
  a = a0 * c - b * s;
  b = a0 * s + b * c;
}

__device__ __forceinline__ long long first_item() { return (long long)blockIdx.x * blockDim.x + threadIdx.x; }
__device__ __forceinline__ long long item_stride() { return (long long)gridDim.x * blockDim.x; }

// Interleaved pairs, rows of d = 2 * half values with time step row % t. A
// work item is W consecutive values (W / 2 pairs); W divides d.
template <typename T, int W>
__device__ void rope_interleaved_rows(T* out, const T* x, const T* cos, const T* sin, long long rows, int t, int half) {
  constexpr int P = W / 2 > 0 ? W / 2 : 1;  // pairs a work item
  const int d = 2 * half;
  const long long items_per_row = d / W;
  const long long items = rows * items_per_row;
  for (long long item = first_item(); item < items; item += item_stride()) {
    const long long row = item / items_per_row;
    const long long table = (row % t) * half / P + item % items_per_row;  // chunk of P in cos and sin
    float v[W], c[P], s[P];
    fl::load_floats<T, W>(x, item, v);
    fl::load_floats<T, P>(cos, table, c);
    fl::load_floats<T, P>(sin, table, s);
    for (int p = 0; p < P; ++p) rotate(v[2 * p], v[2 * p + 1], c[p], s[p]);
    fl::store_floats<T, W>(out, item, v);
  }
}

// Halves d/2 apart. A work item is W consecutive pair indices of one row; W
// divides half. kThd: rows are [b, t, h] (time step (row / h) % t), else [b, h, t].
template <typename T, int W, bool kThd>
__device__ void rope_halves_rows(T* out, const T* x, const T* cos, const T* sin, long long rows, int h, int t, int half) {
  const long long items_per_half = half / W;
  const long long items = rows * items_per_half;
  for (long long item = first_item(); item < items; item += item_stride()) {
    const long long row = item / items_per_half;
    const long long chunk = item % items_per_half;
    const long long step = kThd ? (row / h) % t : row % t;
    // Chunks of W: the first half of the row starts at chunk row * 2 * items_per_half.
    const long long lo = row * 2 * items_per_half + chunk, hi = lo + items_per_half;
    const long long table = step * items_per_half + chunk;
    float a[W], b[W], c[W], s[W];
    fl::load_floats<T, W>(x, lo, a);
    fl::load_floats<T, W>(x, hi, b);
    fl::load_floats<T, W>(cos, table, c);
    fl::load_floats<T, W>(sin, table, s);
    for (int j = 0; j < W; ++j) rotate(a[j], b[j], c[j], s[j]);
    fl::store_floats<T, W>(out, lo, a);
    fl::store_floats<T, W>(out, hi, b);
  }
}

template <typename T>
__device__ __forceinline__ bool all_aligned(const T* out, const T* x, const T* cos, const T* sin) {
  return fl::aligned16(out) && fl::aligned16(x) && fl::aligned16(cos) && fl::aligned16(sin);
}

// x [b, h, t, 2 * half]; cos, sin [t, half]; interleaved pairs.
template <typename T>
__global__ void rope_i(T* __restrict__ out, const T* __restrict__ x, const T* __restrict__ cos,
                       const T* __restrict__ sin, int b, int h, int t, int half) {
  constexpr int V = fl::vec16<T>::n;
  const long long rows = (long long)b * h * t;
  // A vector's pairs take half a vector of cos: both must stay aligned.
  if ((2 * half) % V == 0 && all_aligned(out, x, cos, sin)) rope_interleaved_rows<T, V>(out, x, cos, sin, rows, t, half);
  else rope_interleaved_rows<T, 2>(out, x, cos, sin, rows, t, half);
}

// x [b, h, t, 2 * half]; cos, sin [t, half]; halves.
template <typename T>
__global__ void rope(T* __restrict__ out, const T* __restrict__ x, const T* __restrict__ cos,
                     const T* __restrict__ sin, int b, int h, int t, int half) {
  constexpr int V = fl::vec16<T>::n;
  const long long rows = (long long)b * h * t;
  if (half % V == 0 && all_aligned(out, x, cos, sin)) rope_halves_rows<T, V, false>(out, x, cos, sin, rows, h, t, half);
  else rope_halves_rows<T, 1, false>(out, x, cos, sin, rows, h, t, half);
}

// x [b, t, h, 2 * half]; cos, sin [t, half]; halves.
template <typename T>
__global__ void rope_thd(T* __restrict__ out, const T* __restrict__ x, const T* __restrict__ cos,
                         const T* __restrict__ sin, int b, int h, int t, int half) {
  constexpr int V = fl::vec16<T>::n;
  const long long rows = (long long)b * t * h;
  if (half % V == 0 && all_aligned(out, x, cos, sin)) rope_halves_rows<T, V, true>(out, x, cos, sin, rows, h, t, half);
  else rope_halves_rows<T, 1, true>(out, x, cos, sin, rows, h, t, half);
}

// x [tokens, heads, 2 * half_head]; positions [tokens]; cache [max_pos, 2 * rot_half].
// A work item is one pair of a head: pair j < rot_half turns by its token's row
// of the cache; the pairs past the rotary dims are copied. A position outside
// the cache (which the launcher refuses before launching) makes its pairs NaN
// instead of reading out of bounds.
template <typename T, bool kNeox>
__global__ void rope_positions(T* __restrict__ out, const T* __restrict__ x, const int* __restrict__ positions,
                               const T* __restrict__ cache, int tokens, int heads, int half_head, int max_pos,
                               int rot_half) {
  // The launcher checks rot_half <= half_head; a direct launch with more must not reach past a head.
  rot_half = min(rot_half, half_head);
  const long long items = (long long)tokens * heads * half_head;
  for (long long item = first_item(); item < items; item += item_stride()) {
    const long long row = item / half_head;
    const int j = item % half_head;
    const long long base = row * 2 * half_head;
    if (j >= rot_half) {
      out[base + 2 * j] = x[base + 2 * j];
      out[base + 2 * j + 1] = x[base + 2 * j + 1];
      continue;
    }
    const long long lo = base + (kNeox ? j : 2 * j), hi = base + (kNeox ? j + rot_half : 2 * j + 1);
    const int pos = positions[row / heads];
    float a = fl::to_float(x[lo]), b = fl::to_float(x[hi]);
    if (pos >= 0 && pos < max_pos) {
      const T* cache_row = cache + (long long)pos * 2 * rot_half;
      rotate(a, b, fl::to_float(cache_row[j]), fl::to_float(cache_row[rot_half + j]));
    } else {
      a = b = __builtin_nanf("");
    }
    out[lo] = fl::from_float<T>(a);
    out[hi] = fl::from_float<T>(b);
  }
}

// ---- fused QK-norm + RoPE, and the column copies of its unfused chain ------------

// qkv [tokens, (q_heads + 2 * kv_heads) * d], d = 2 * half_head: every q and k
// head (the first q_heads + kv_heads of each token's heads) is RMS-normalised
// over its d values with q_weight or k_weight [d], then turned by RoPE at its
// token's position as rope_positions does, in place, in f32 throughout; the v
// heads are not touched. A row group (blockDim.x threads, a power of two up to
// warpSize) takes a head, blockDim.y heads a block. A thread reads its share of
// the head for the sum of squares, and after the group's sum (which every
// thread's reads precede) reads its work items again, from cache, to write
// them: no thread writes what another has yet to read.
//
// A work item is a pair (the scalar form), or, when the head dim and rot_half
// are whole 16-byte vectors and every pointer is aligned, W = 16 / sizeof(T)
// values: neox, a chunk of the first rot_half values and its partner chunk
// rot_half on, or one chunk past 2 * rot_half (normalised only); interleaved,
// one chunk of W / 2 pairs, all turned or none (rot_half is a multiple of W).

// The head's normalised and turned values a work item, W values a chunk.
template <typename T, bool kNeox, int W>
__device__ void norm_rope_head_vec(T* x, const T* weight, const T* cache_row, bool in_cache, int d, int rot_half,
                                   float inv_rms) {
  const int rot_chunks = rot_half / W;
  const int items = kNeox ? d / W - rot_chunks : d / W;
  for (int item = threadIdx.x; item < items; item += blockDim.x) {
    float a[W], wa[W];
    if (kNeox && item < rot_chunks) {
      float b[W], wb[W], c[W], s[W];
      fl::load_floats<T, W>(x, item, a);
      fl::load_floats<T, W>(x, item + rot_chunks, b);
      fl::load_floats<T, W>(weight, item, wa);
      fl::load_floats<T, W>(weight, item + rot_chunks, wb);
      fl::load_floats<T, W>(cache_row, item, c);
      fl::load_floats<T, W>(cache_row, item + rot_chunks, s);
      for (int k = 0; k < W; ++k) {
        a[k] *= inv_rms * wa[k];
        b[k] *= inv_rms * wb[k];
        // A position outside the cache (refused by the launcher) gives NaN, never a read out of bounds.
        if (in_cache) rotate(a[k], b[k], c[k], s[k]);
        else a[k] = b[k] = __builtin_nanf("");
      }
      fl::store_floats<T, W>(x, item, a);
      fl::store_floats<T, W>(x, item + rot_chunks, b);
      continue;
    }
    const int chunk = kNeox ? item + rot_chunks : item;
    fl::load_floats<T, W>(x, chunk, a);
    fl::load_floats<T, W>(weight, chunk, wa);
    for (int k = 0; k < W; ++k) a[k] *= inv_rms * wa[k];
    if (!kNeox && chunk * (W / 2) < rot_half) {
      constexpr int P = W / 2;
      float c[P], s[P];
      fl::load_floats<T, P>(cache_row, chunk, c);
      fl::load_floats<T, P>(cache_row + rot_half, chunk, s);
      for (int p = 0; p < P; ++p) {
        if (in_cache) rotate(a[2 * p], a[2 * p + 1], c[p], s[p]);
        else a[2 * p] = a[2 * p + 1] = __builtin_nanf("");
      }
    }
    fl::store_floats<T, W>(x, chunk, a);
  }
}

// The same, a pair a work item (any even head dim, any rot_half, any alignment).
template <typename T, bool kNeox>
__device__ void norm_rope_head_pairs(T* x, const T* weight, const T* cache_row, bool in_cache, int half_head,
                                     int rot_half, float inv_rms) {
  for (int j = threadIdx.x; j < half_head; j += blockDim.x) {
    const int lo = kNeox && j < rot_half ? j : 2 * j, hi = kNeox && j < rot_half ? j + rot_half : 2 * j + 1;
    float a = fl::to_float(x[lo]) * inv_rms * fl::to_float(weight[lo]);
    float b = fl::to_float(x[hi]) * inv_rms * fl::to_float(weight[hi]);
    if (j < rot_half) {
      if (in_cache) rotate(a, b, fl::to_float(cache_row[j]), fl::to_float(cache_row[rot_half + j]));
      else a = b = __builtin_nanf("");
    }
    x[lo] = fl::from_float<T>(a);
    x[hi] = fl::from_float<T>(b);
  }
}

// The sum of squares of a thread's share of a head's d values, W values a chunk
// (W divides d). Two chunks are read before either is used, so both reads are
// in flight at once rather than one round trip after the other (on an H100,
// bf16 heads 5.6% (neox) and 8.8% (interleaved) faster; four at once cost more
// in registers than it saved).
template <typename T, int W>
__device__ __forceinline__ float head_sum_sq(const T* x, int d) {
  using Chunk = fl::vec<T, W>;
  const Chunk* chunks = reinterpret_cast<const Chunk*>(x);
  const int count = d / W;
  float sum_sq = 0.0f;
  for (int first = threadIdx.x; first < count; first += 2 * blockDim.x) {
    const int second = first + blockDim.x;
    const Chunk one = chunks[first];
    Chunk two;
    if (second < count) two = chunks[second];
    for (int k = 0; k < W; ++k) sum_sq += fl::to_float(one.v[k]) * fl::to_float(one.v[k]);
    if (second < count) {
      for (int k = 0; k < W; ++k) sum_sq += fl::to_float(two.v[k]) * fl::to_float(two.v[k]);
    }
  }
  return sum_sq;
}

// One head, W values a chunk (1: the pair form): the row group's sum of squares,
// then the head normalised and turned. Every thread of the group calls it, valid
// or not, for the group's sum.
template <typename T, bool kNeox, int W>
__device__ __forceinline__ void norm_rope_head(T* x, const T* weight, int pos, const T* cache, bool valid, int d,
                                               int max_pos, int rot_half, int width, float eps) {
  float sum_sq = valid ? head_sum_sq<T, W>(x, d) : 0.0f;
  for (int mask = width / 2; mask > 0; mask >>= 1) sum_sq += __shfl_xor(sum_sq, mask, width);
  if (!valid) return;
  const float inv_rms = rsqrtf(sum_sq / d + eps);
  const bool in_cache = pos >= 0 && pos < max_pos;
  const T* cache_row = cache + (in_cache ? (long long)pos * 2 * rot_half : 0);
  if constexpr (W > 1) norm_rope_head_vec<T, kNeox, W>(x, weight, cache_row, in_cache, d, rot_half, inv_rms);
  else norm_rope_head_pairs<T, kNeox>(x, weight, cache_row, in_cache, d / 2, rot_half, inv_rms);
}

// The pair form out of line: its registers then do not count against the vector
// form's, which a launch of aligned heads runs at higher occupancy.
template <typename T, bool kNeox>
__device__ __noinline__ void norm_rope_head_pairs_call(T* x, const T* weight, int pos, const T* cache, bool valid,
                                                       int d, int max_pos, int rot_half, int width, float eps) {
  norm_rope_head<T, kNeox, 1>(x, weight, pos, cache, valid, d, max_pos, rot_half, width, eps);
}

template <typename T, bool kNeox>
__global__ void qk_norm_rope(T* __restrict__ qkv, const T* __restrict__ q_weight, const T* __restrict__ k_weight,
                             const int* __restrict__ positions, const T* __restrict__ cache, int tokens, int q_heads,
                             int kv_heads, int half_head, int max_pos, int rot_half, float eps) {
  constexpr int V = fl::vec16<T>::n;
  rot_half = min(rot_half, half_head);
  const int d = 2 * half_head;
  const bool vectors = d % V == 0 && rot_half % V == 0 && fl::aligned16(qkv) && fl::aligned16(q_weight) &&
                       fl::aligned16(k_weight) && fl::aligned16(cache);
  const int heads_per_token = q_heads + kv_heads;
  const long long normed_heads = (long long)tokens * heads_per_token;
  const int width = blockDim.x < (unsigned)warpSize ? (int)blockDim.x : warpSize;
  for (long long base = (long long)blockIdx.x * blockDim.y; base < normed_heads; base += (long long)gridDim.x * blockDim.y) {
    const long long head = base + threadIdx.y;
    const bool valid = head < normed_heads;
    const long long token = valid ? head / heads_per_token : 0;
    const int h = valid ? head % heads_per_token : 0;
    T* x = qkv + (token * (q_heads + 2LL * kv_heads) + h) * d;
    const T* weight = h < q_heads ? q_weight : k_weight;
    const int pos = valid ? positions[token] : -1;
    if (vectors) norm_rope_head<T, kNeox, V>(x, weight, pos, cache, valid, d, max_pos, rot_half, width, eps);
    else norm_rope_head_pairs_call<T, kNeox>(x, weight, pos, cache, valid, d, max_pos, rot_half, width, eps);
  }
}

// out[r, c] = x[r, start + c] for c < width: a column range copied out (a framework's .contiguous() of a view).
template <typename T>
__global__ void take_columns(T* __restrict__ out, const T* __restrict__ x, int rows, int cols, int start, int width) {
  if (start < 0 || width < 0 || (long long)start + width > cols) return;
  for (long long r = (long long)blockIdx.y * blockDim.y + threadIdx.y; r < rows; r += (long long)gridDim.y * blockDim.y) {
    for (long long c = (long long)blockIdx.x * blockDim.x + threadIdx.x; c < width; c += (long long)gridDim.x * blockDim.x) {
      out[r * width + c] = x[r * cols + start + c];
    }
  }
}

// out[r, start + c] = x[r, c] for c < width: a column range written back in place.
template <typename T>
__global__ void put_columns(T* __restrict__ out, const T* __restrict__ x, int rows, int cols, int start, int width) {
  if (start < 0 || width < 0 || (long long)start + width > cols) return;
  for (long long r = (long long)blockIdx.y * blockDim.y + threadIdx.y; r < rows; r += (long long)gridDim.y * blockDim.y) {
    for (long long c = (long long)blockIdx.x * blockDim.x + threadIdx.x; c < width; c += (long long)gridDim.x * blockDim.x) {
      out[r * cols + start + c] = x[r * width + c];
    }
  }
}

FL_EXPORT_DTYPES(rope_i, "out[b*h*t*2*half] x[b*h*t*2*half] cos[t*half] sin[t*half] b h t half", rope_i)
FL_EXPORT_DTYPES(rope, "out[b*h*t*2*half] x[b*h*t*2*half] cos[t*half] sin[t*half] b h t half", rope)
FL_EXPORT_DTYPES(rope_thd, "out[b*h*t*2*half] x[b*h*t*2*half] cos[t*half] sin[t*half] b h t half", rope_thd)
FL_EXPORT_DTYPES(rope_positions_neox,
                 "out[tokens*heads*2*half_head] x[tokens*heads*2*half_head] positions[tokens] cache[max_pos*2*rot_half] "
                 "tokens heads half_head max_pos rot_half",
                 rope_positions, true)
FL_EXPORT_DTYPES(rope_positions_interleaved,
                 "out[tokens*heads*2*half_head] x[tokens*heads*2*half_head] positions[tokens] cache[max_pos*2*rot_half] "
                 "tokens heads half_head max_pos rot_half",
                 rope_positions, false)

#define FL_QK_NORM_ROPE_PARAMS                                                                                   \
  "qkv[tokens*(q_heads+2*kv_heads)*2*half_head] q_weight[2*half_head] k_weight[2*half_head] positions[tokens] " \
  "cache[max_pos*2*rot_half] tokens q_heads kv_heads half_head max_pos rot_half eps"
FL_EXPORT_DTYPES(qk_norm_rope_neox, FL_QK_NORM_ROPE_PARAMS, qk_norm_rope, true)
FL_EXPORT_DTYPES(qk_norm_rope_interleaved, FL_QK_NORM_ROPE_PARAMS, qk_norm_rope, false)
FL_EXPORT_DTYPES(take_columns, "out[rows*width] x[rows*cols] rows cols start width", take_columns)
FL_EXPORT_DTYPES(put_columns, "out[rows*cols] x[rows*width] rows cols start width", put_columns)

}  // namespace fl::rope
