// Row reductions over the last dim and softmax: row_max, row_sum, row_mean; the
// row-broadcast steps sub_rows and div_rows (x[r, :] - v[r], x[r, :] / v[r]),
// which with row_max, exp and row_sum make softmax's unfused chain; and the fused
// softmax, one read of each row and one write.
//
// A row group is the blockDim.x threads of a block that share a row: either a
// power of two up to warpSize, with blockDim.y rows in a block, reduced with
// shuffles inside each group's lanes; or a multiple of warpSize with one row a
// block (blockDim.y == 1), reduced through shared memory. src/ops/reduce.ts
// picks one by the row length. Blocks take rows (blockIdx.x * blockDim.y +
// threadIdx.y), then the rows gridDim.x * blockDim.y further on. Every thread of
// a block goes round that loop the same number of times, also those past the
// last row, so that every reduction is reached by all of a block's threads.
//
// A chunk is W consecutive elements loaded as one access: 16 bytes when the row
// length is a multiple of that and every pointer is 16-byte aligned, else one
// element. Storage is f32, f16 or bf16; all arithmetic is f32.
#include "fuselab/fuselab.h"

namespace fl::reduce {

// Chunks a softmax thread keeps in registers, as loaded, so that a row that
// fits is read from memory once; longer rows are read a second time for the
// write. Four 16-byte chunks: 16 values of f32, 32 of 16-bit types.
constexpr int kCachedChunks = 4;

// A block has at most 1024 threads, hence at most 32 warps (of 32 lanes; 16 of 64).
constexpr int kMaxWarps = 32;

constexpr float kNegInf = -__builtin_huge_valf();

// A max that keeps NaN, as PyTorch's amax does (fmaxf drops it).
struct MaxOp {
  __device__ static float identity() { return kNegInf; }
  __device__ float operator()(float a, float b) const { return (a > b || a != a) ? a : b; }
};
struct SumOp {
  __device__ static float identity() { return 0.0f; }
  __device__ float operator()(float a, float b) const { return a + b; }
};

// op over the values of a row group, returned to each of its threads. scratch is
// a __shared__ array of kMaxWarps floats, free again when this returns.
template <typename Op>
__device__ __forceinline__ float group_reduce(float v, float* scratch, Op op) {
  const int warp_size = fl::warp_size();
  const int width = blockDim.x < (unsigned)warp_size ? (int)blockDim.x : warp_size;
  for (int mask = width / 2; mask > 0; mask >>= 1) v = op(v, __shfl_xor(v, mask, width));
  if (blockDim.x <= (unsigned)warp_size) return v;
  const int lane = threadIdx.x % warp_size;
  const int warp = threadIdx.x / warp_size;
  const int warps = blockDim.x / warp_size;
  if (lane == 0) scratch[warp] = v;
  __syncthreads();
  v = lane < warps ? scratch[lane] : Op::identity();
  for (int mask = warp_size / 2; mask > 0; mask >>= 1) v = op(v, __shfl_xor(v, mask));
  __syncthreads();
  return v;
}

// The first row of this block's current turn, and the stride between turns.
__device__ __forceinline__ long long first_row_base() { return (long long)blockIdx.x * blockDim.y; }
__device__ __forceinline__ long long row_base_stride() { return (long long)gridDim.x * blockDim.y; }

// ---- row_max, row_sum, row_mean -----------------------------------------------

// op over this thread's chunks of a row (the identity when it has none).
template <typename T, int W, typename Op>
__device__ __forceinline__ float reduce_own_chunks(const T* x, int chunks, bool valid, Op op) {
  float acc = Op::identity();
  if (!valid) return acc;
  for (int c = threadIdx.x; c < chunks; c += blockDim.x) {
    float f[W];
    fl::load_floats<T, W>(x, c, f);
    for (int j = 0; j < W; ++j) acc = op(acc, f[j]);
  }
  return acc;
}

// out[r] = op over x[r, :] (divided by cols when kMean).
template <typename T, typename Op, bool kMean>
__global__ void row_reduce(T* __restrict__ out, const T* __restrict__ x, int rows, int cols) {
  __shared__ float scratch[kMaxWarps];
  constexpr int V = fl::vec16<T>::n;
  const bool vectorized = cols % V == 0 && fl::aligned16(x);
  for (long long base = first_row_base(); base < rows; base += row_base_stride()) {
    const long long row = base + threadIdx.y;
    const bool valid = row < rows;
    const T* xr = x + (valid ? row * cols : 0);
    float acc = vectorized ? reduce_own_chunks<T, V>(xr, cols / V, valid, Op{})
                           : reduce_own_chunks<T, 1>(xr, cols, valid, Op{});
    acc = group_reduce(acc, scratch, Op{});
    if (valid && threadIdx.x == 0) out[row] = fl::from_float<T>(kMean ? acc / cols : acc);
  }
}

// ---- sub_rows, div_rows: x[r, c] op v[r] -----------------------------------------

struct SubFn { __device__ float operator()(float x, float v) const { return x - v; } };
struct DivFn { __device__ float operator()(float x, float v) const { return x / v; } };

// out[r, c] = f(x[r, c], v[r]): x along the row (threadIdx.x), y over rows, grid-stride both ways.
template <int W, typename T, typename F>
__device__ __forceinline__ void map_rows_scalar(T* __restrict__ out, const T* __restrict__ x, const T* __restrict__ v,
                                                int rows, int cols, F f) {
  const long long chunks = cols / W;
  for (long long r = (long long)blockIdx.y * blockDim.y + threadIdx.y; r < rows; r += (long long)gridDim.y * blockDim.y) {
    const float s = fl::to_float(v[r]);
    for (long long c = (long long)blockIdx.x * blockDim.x + threadIdx.x; c < chunks; c += (long long)gridDim.x * blockDim.x) {
      float a[W];
      fl::load_floats<T, W>(x + r * cols, c, a);
      for (int j = 0; j < W; ++j) a[j] = f(a[j], s);
      fl::store_floats<T, W>(out + r * cols, c, a);
    }
  }
}

template <typename T, typename F>
__global__ void broadcast_rows(T* __restrict__ out, const T* __restrict__ x, const T* __restrict__ v, int rows, int cols) {
  constexpr int V = fl::vec16<T>::n;
  if (cols % V == 0 && fl::aligned16(out) && fl::aligned16(x)) map_rows_scalar<V>(out, x, v, rows, cols, F{});
  else map_rows_scalar<1>(out, x, v, rows, cols, F{});
}

// ---- softmax ----------------------------------------------------------------------

// exp in a softmax of T. 16-bit types take the fast exp (ex2 of x log2(e): a
// relative error near 1e-6 for the exponents a softmax meets, far below their
// rounding, and a few instructions instead of expf's many, which bounded bf16
// softmax by the issue rate); f32 keeps the accurate one.
template <typename T>
__device__ __forceinline__ float softmax_exp(float x) {
  return sizeof(T) == 4 ? expf(x) : __expf(x);
}

// Adds a chunk to a running (max m, sum s of exp(x - m)): the sum is rescaled
// when the max grows (online softmax), so one pass finds both. While every value
// seen is -inf the sum stays 0 (exp(-inf - -inf) would be NaN); +inf or NaN make
// the sum NaN, and with it the row, as PyTorch gives.
template <typename T, int W>
__device__ __forceinline__ void online_add(const float (&f)[W], float& m, float& s) {
  float chunk_max = f[0];
  for (int j = 1; j < W; ++j) chunk_max = fmaxf(chunk_max, f[j]);
  if (chunk_max > m) {
    s *= softmax_exp<T>(m - chunk_max);
    m = chunk_max;
  }
  if (m != kNegInf) {
    for (int j = 0; j < W; ++j) s += softmax_exp<T>(f[j] - m);
  } else {
    // Only -inf and NaN so far: a NaN must still reach the sum.
    for (int j = 0; j < W; ++j) if (f[j] != f[j]) s = f[j];
  }
}

template <typename T, int W>
__device__ __forceinline__ void store_softmax(T* out, long long c, const float (&f)[W], float row_max, float inv_sum) {
  float y[W];
  for (int j = 0; j < W; ++j) y[j] = softmax_exp<T>(f[j] - row_max) * inv_sum;
  fl::store_floats<T, W>(out, c, y);
}

// A row that fits in its group's registers: the chunks kept as loaded (packed,
// two 16-bit values a register), their max, the sum of their exps, then each
// exp again, scaled, stored. Two exps an element let the registers that held 16
// f32 exps hold 32 bf16 values, so a group of half the threads holds a row.
template <typename T, int W>
__device__ void softmax_row_cached(T* __restrict__ out, const T* __restrict__ x, int chunks, bool valid, float* scratch) {
  using Chunk = fl::vec<T, W>;
  const Chunk* xc = reinterpret_cast<const Chunk*>(x);
  // Every load is issued before any value is used: with the max in the same loop
  // the loads went out one after the other, each waiting for the one before.
  Chunk cached[kCachedChunks];
  for (int k = 0; k < kCachedChunks; ++k) {
    const int c = threadIdx.x + k * blockDim.x;
    if (valid && c < chunks) cached[k] = xc[c];
  }
  float m = kNegInf;
  for (int k = 0; k < kCachedChunks; ++k) {
    const int c = threadIdx.x + k * blockDim.x;
    if (valid && c < chunks) {
      for (int j = 0; j < W; ++j) m = MaxOp{}(m, fl::to_float(cached[k].v[j]));
    }
  }
  // -inf when the row is all -inf, NaN when it holds NaN or +inf: the exps are then NaN, as PyTorch gives.
  const float row_max = group_reduce(m, scratch, MaxOp{});
  float s = 0.0f;
  for (int k = 0; k < kCachedChunks; ++k) {
    const int c = threadIdx.x + k * blockDim.x;
    if (valid && c < chunks) {
      for (int j = 0; j < W; ++j) s += softmax_exp<T>(fl::to_float(cached[k].v[j]) - row_max);
    }
  }
  const float inv_sum = 1.0f / group_reduce(s, scratch, SumOp{});
  if (!valid) return;
  Chunk* oc = reinterpret_cast<Chunk*>(out);
  for (int k = 0; k < kCachedChunks; ++k) {
    const int c = threadIdx.x + k * blockDim.x;
    if (c < chunks) {
      Chunk y;
      for (int j = 0; j < W; ++j) y.v[j] = fl::from_float<T>(softmax_exp<T>(fl::to_float(cached[k].v[j]) - row_max) * inv_sum);
      oc[c] = y;
    }
  }
}

// A longer row: one pass folds every chunk into the thread's (max, sum), the
// group combines them, and a second pass reads the row again (from L2: a block's
// row is at most a few hundred KB) to write it. Keeping chunks in registers here
// too raised the whole kernel to 128 registers a thread, short rows' path with it.
template <typename T, int W>
__device__ void softmax_row(T* out, const T* x, int cols, bool valid, float* scratch) {
  const int chunks = cols / W;
  if (chunks <= kCachedChunks * (int)blockDim.x) {
    softmax_row_cached<T, W>(out, x, chunks, valid, scratch);
    return;
  }
  float m = kNegInf, s = 0.0f;
  if (valid) {
    for (int c = threadIdx.x; c < chunks; c += blockDim.x) {
      float f[W];
      fl::load_floats<T, W>(x, c, f);
      online_add<T>(f, m, s);
    }
  }
  const float row_max = group_reduce(m, scratch, MaxOp{});
  // A thread whose values were all -inf (or that had none) adds 0, also when the row's max is -inf.
  const float row_sum = group_reduce(s == 0.0f ? 0.0f : s * softmax_exp<T>(m - row_max), scratch, SumOp{});
  if (!valid) return;
  const float inv_sum = 1.0f / row_sum;
  for (int c = threadIdx.x; c < chunks; c += blockDim.x) {
    float f[W];
    fl::load_floats<T, W>(x, c, f);
    store_softmax<T, W>(out, c, f, row_max, inv_sum);
  }
}

// out[r, :] = exp(x[r, :] - max) / sum(exp(x[r, :] - max))
// At most 512 threads a block (src/ops/reduce.ts), two blocks an SM: registers
// are capped so that a group of 512 keeping its row does not hold an SM alone.
template <typename T>
__global__ void __launch_bounds__(512, 2) softmax(T* __restrict__ out, const T* __restrict__ x, int rows, int cols) {
  __shared__ float scratch[kMaxWarps];
  constexpr int V = fl::vec16<T>::n;
  const bool vectorized = cols % V == 0 && fl::aligned16(out) && fl::aligned16(x);
  for (long long base = first_row_base(); base < rows; base += row_base_stride()) {
    const long long row = base + threadIdx.y;
    const bool valid = row < rows;
    const long long offset = valid ? row * cols : 0;
    if (vectorized) softmax_row<T, V>(out + offset, x + offset, cols, valid, scratch);
    else softmax_row<T, 1>(out + offset, x + offset, cols, valid, scratch);
  }
}

FL_EXPORT_DTYPES(row_max, "out[rows] x[rows*cols] rows cols", row_reduce, MaxOp, false)
FL_EXPORT_DTYPES(row_sum, "out[rows] x[rows*cols] rows cols", row_reduce, SumOp, false)
FL_EXPORT_DTYPES(row_mean, "out[rows] x[rows*cols] rows cols", row_reduce, SumOp, true)
FL_EXPORT_DTYPES(sub_rows, "out[rows*cols] x[rows*cols] v[rows] rows cols", broadcast_rows, SubFn)
FL_EXPORT_DTYPES(div_rows, "out[rows*cols] x[rows*cols] v[rows] rows cols", broadcast_rows, DivFn)
FL_EXPORT_DTYPES(softmax, "out[rows*cols] x[rows*cols] rows cols", softmax)

}  // namespace fl::reduce
