// Row normalisations: rms_norm, layer_norm, and the fused add_rms_norm.
//
// One block normalises one row (rows along blockIdx.x; a block takes row +
// gridDim.x next when there are more rows than blocks). Each thread reads its
// share of the row once from global memory and keeps it in registers (up to
// kCachedChunks chunks a thread), so the passes after the first reduction read
// registers, not memory; the share beyond that, which only rows too long for the
// block take, is read again (from L1/L2). Storage is f32, f16 or bf16; all
// arithmetic is f32.
//
// A chunk is W consecutive elements loaded as one access: 16 bytes (W = 16 /
// sizeof(T)) when the row length is a multiple of that and every pointer is
// 16-byte aligned, else one element (W = 1).
#include "fuselab/fuselab.h"

namespace fl::norm {

// Chunks a thread keeps in registers. src/ops/norm.ts sizes the block so that a
// row fits when it can; the kernels are correct for any block size.
constexpr int kCachedChunks = 4;

// A block has at most 1024 threads, hence at most 32 warps (of 32 lanes; 16 of 64).
constexpr int kMaxWarps = 32;

__device__ __forceinline__ float warp_sum(float v) {
  for (int mask = warpSize / 2; mask > 0; mask >>= 1) v += __shfl_xor(v, mask);
  return v;
}

// The sum of v over the block, returned to every thread. warp_sums is a
// __shared__ array of kMaxWarps floats. blockDim.x must be a multiple of
// warpSize. Every warp adds up the per-warp sums itself, so no second broadcast
// is needed; the closing barrier lets the next call reuse warp_sums.
__device__ __forceinline__ float block_sum(float v, float* warp_sums) {
  const int lane = threadIdx.x % warpSize;
  const int warp = threadIdx.x / warpSize;
  const int warps = blockDim.x / warpSize;
  v = warp_sum(v);
  if (lane == 0) warp_sums[warp] = v;
  __syncthreads();
  v = lane < warps ? warp_sums[lane] : 0.0f;
  v = warp_sum(v);
  __syncthreads();
  return v;
}

// Chunk k of this thread's cached share, and where its uncached share starts.
__device__ __forceinline__ int cached_chunk(int k) { return threadIdx.x + k * blockDim.x; }
__device__ __forceinline__ int first_uncached_chunk() { return threadIdx.x + kCachedChunks * blockDim.x; }

// out = f * inv_rms [* weight], stored as chunk c of out.
template <typename T, int W, bool kWeight>
__device__ __forceinline__ void store_rms_scaled(T* out, const T* weight, int c, const float (&f)[W], float inv_rms) {
  float w[W];
  if (kWeight) fl::load_floats<T, W>(weight, c, w);
  float y[W];
  for (int j = 0; j < W; ++j) y[j] = kWeight ? f[j] * inv_rms * w[j] : f[j] * inv_rms;
  fl::store_floats<T, W>(out, c, y);
}

template <typename T, int W, bool kWeight>
__device__ void rms_norm_row(T* out, const T* x, const T* weight, int cols, float eps, float* warp_sums) {
  const int chunks = cols / W;
  float cached[kCachedChunks][W];
  float sum_sq = 0.0f;
  for (int k = 0; k < kCachedChunks; ++k) {
    if (cached_chunk(k) < chunks) {
      fl::load_floats<T, W>(x, cached_chunk(k), cached[k]);
      for (int j = 0; j < W; ++j) sum_sq += cached[k][j] * cached[k][j];
    }
  }
  for (int c = first_uncached_chunk(); c < chunks; c += blockDim.x) {
    float f[W];
    fl::load_floats<T, W>(x, c, f);
    for (int j = 0; j < W; ++j) sum_sq += f[j] * f[j];
  }
  const float inv_rms = rsqrtf(block_sum(sum_sq, warp_sums) / cols + eps);
  for (int k = 0; k < kCachedChunks; ++k) {
    if (cached_chunk(k) < chunks) store_rms_scaled<T, W, kWeight>(out, weight, cached_chunk(k), cached[k], inv_rms);
  }
  for (int c = first_uncached_chunk(); c < chunks; c += blockDim.x) {
    float f[W];
    fl::load_floats<T, W>(x, c, f);
    store_rms_scaled<T, W, kWeight>(out, weight, c, f, inv_rms);
  }
}

template <typename T, bool kWeight>
__device__ void rms_norm_rows(T* out, const T* x, const T* weight, int rows, int cols, float eps, float* warp_sums) {
  constexpr int V = fl::vec16<T>::n;
  const bool vectorized = cols % V == 0 && fl::aligned16(out) && fl::aligned16(x) && (!kWeight || fl::aligned16(weight));
  for (long long row = blockIdx.x; row < rows; row += gridDim.x) {
    const long long offset = row * cols;
    if (vectorized) rms_norm_row<T, V, kWeight>(out + offset, x + offset, weight, cols, eps, warp_sums);
    else rms_norm_row<T, 1, kWeight>(out + offset, x + offset, weight, cols, eps, warp_sums);
  }
}

// out[r, :] = x[r, :] / sqrt(mean(x[r, :]^2) + eps)
template <typename T>
__global__ void rms_norm(T* __restrict__ out, const T* __restrict__ x, int rows, int cols, float eps) {
  __shared__ float warp_sums[kMaxWarps];
  rms_norm_rows<T, false>(out, x, nullptr, rows, cols, eps, warp_sums);
}

// out[r, :] = x[r, :] / sqrt(mean(x[r, :]^2) + eps) * weight
template <typename T>
__global__ void rms_norm_weight(T* __restrict__ out, const T* __restrict__ x, const T* __restrict__ weight,
                                int rows, int cols, float eps) {
  __shared__ float warp_sums[kMaxWarps];
  rms_norm_rows<T, true>(out, x, weight, rows, cols, eps, warp_sums);
}

// out = (f - mean) * inv_std [* gamma] [+ beta], stored as chunk c of out.
template <typename T, int W, bool kGamma, bool kBeta>
__device__ __forceinline__ void store_standardized(T* out, const T* gamma, const T* beta, int c, const float (&f)[W],
                                                   float mean, float inv_std) {
  float g[W], b[W];
  if (kGamma) fl::load_floats<T, W>(gamma, c, g);
  if (kBeta) fl::load_floats<T, W>(beta, c, b);
  float y[W];
  for (int j = 0; j < W; ++j) {
    y[j] = (f[j] - mean) * inv_std;
    if (kGamma) y[j] *= g[j];
    if (kBeta) y[j] += b[j];
  }
  fl::store_floats<T, W>(out, c, y);
}

// Mean first, then the mean of squared deviations from it: the one-pass
// E[x^2] - E[x]^2 loses every digit when the mean is large against the spread.
template <typename T, int W, bool kGamma, bool kBeta>
__device__ void layer_norm_row(T* out, const T* x, const T* gamma, const T* beta, int cols, float eps,
                               float* warp_sums) {
  const int chunks = cols / W;
  float cached[kCachedChunks][W];
  float sum = 0.0f;
  for (int k = 0; k < kCachedChunks; ++k) {
    if (cached_chunk(k) < chunks) {
      fl::load_floats<T, W>(x, cached_chunk(k), cached[k]);
      for (int j = 0; j < W; ++j) sum += cached[k][j];
    }
  }
  for (int c = first_uncached_chunk(); c < chunks; c += blockDim.x) {
    float f[W];
    fl::load_floats<T, W>(x, c, f);
    for (int j = 0; j < W; ++j) sum += f[j];
  }
  const float mean = block_sum(sum, warp_sums) / cols;

  float sum_sq_dev = 0.0f;
  for (int k = 0; k < kCachedChunks; ++k) {
    if (cached_chunk(k) < chunks) {
      for (int j = 0; j < W; ++j) sum_sq_dev += (cached[k][j] - mean) * (cached[k][j] - mean);
    }
  }
  for (int c = first_uncached_chunk(); c < chunks; c += blockDim.x) {
    float f[W];
    fl::load_floats<T, W>(x, c, f);
    for (int j = 0; j < W; ++j) sum_sq_dev += (f[j] - mean) * (f[j] - mean);
  }
  const float inv_std = rsqrtf(block_sum(sum_sq_dev, warp_sums) / cols + eps);

  for (int k = 0; k < kCachedChunks; ++k) {
    if (cached_chunk(k) < chunks) {
      store_standardized<T, W, kGamma, kBeta>(out, gamma, beta, cached_chunk(k), cached[k], mean, inv_std);
    }
  }
  for (int c = first_uncached_chunk(); c < chunks; c += blockDim.x) {
    float f[W];
    fl::load_floats<T, W>(x, c, f);
    store_standardized<T, W, kGamma, kBeta>(out, gamma, beta, c, f, mean, inv_std);
  }
}

// The one template behind the four layer_norm kernels; gamma and beta are read
// only when kGamma and kBeta say so.
template <typename T, bool kGamma, bool kBeta>
__device__ void layer_norm_rows(T* out, const T* x, const T* gamma, const T* beta, int rows, int cols, float eps,
                                float* warp_sums) {
  constexpr int V = fl::vec16<T>::n;
  const bool vectorized = cols % V == 0 && fl::aligned16(out) && fl::aligned16(x) && (!kGamma || fl::aligned16(gamma)) &&
                          (!kBeta || fl::aligned16(beta));
  for (long long row = blockIdx.x; row < rows; row += gridDim.x) {
    const long long offset = row * cols;
    if (vectorized) {
      layer_norm_row<T, V, kGamma, kBeta>(out + offset, x + offset, gamma, beta, cols, eps, warp_sums);
    } else {
      layer_norm_row<T, 1, kGamma, kBeta>(out + offset, x + offset, gamma, beta, cols, eps, warp_sums);
    }
  }
}

// out[r, :] = (x[r, :] - mean) / sqrt(var + eps), with the biased variance.
template <typename T>
__global__ void layer_norm(T* __restrict__ out, const T* __restrict__ x, int rows, int cols, float eps) {
  __shared__ float warp_sums[kMaxWarps];
  layer_norm_rows<T, false, false>(out, x, nullptr, nullptr, rows, cols, eps, warp_sums);
}

// ... * gamma
template <typename T>
__global__ void layer_norm_gamma(T* __restrict__ out, const T* __restrict__ x, const T* __restrict__ gamma,
                                 int rows, int cols, float eps) {
  __shared__ float warp_sums[kMaxWarps];
  layer_norm_rows<T, true, false>(out, x, gamma, nullptr, rows, cols, eps, warp_sums);
}

// ... + beta
template <typename T>
__global__ void layer_norm_beta(T* __restrict__ out, const T* __restrict__ x, const T* __restrict__ beta,
                                int rows, int cols, float eps) {
  __shared__ float warp_sums[kMaxWarps];
  layer_norm_rows<T, false, true>(out, x, nullptr, beta, rows, cols, eps, warp_sums);
}

// ... * gamma + beta
template <typename T>
__global__ void layer_norm_gamma_beta(T* __restrict__ out, const T* __restrict__ x, const T* __restrict__ gamma,
                                      const T* __restrict__ beta, int rows, int cols, float eps) {
  __shared__ float warp_sums[kMaxWarps];
  layer_norm_rows<T, true, true>(out, x, gamma, beta, rows, cols, eps, warp_sums);
}

// residual = x + residual, rounded to T as an unfused add would store it; the
// stored value is what gets normalised, so the result equals add then rms_norm.
template <typename T, int W>
__device__ __forceinline__ void add_into_residual(T* residual, const T* x, int c, float (&sum)[W]) {
  float a[W];
  fl::load_floats<T, W>(x, c, a);
  fl::load_floats<T, W>(residual, c, sum);
  for (int j = 0; j < W; ++j) sum[j] = fl::to_float(fl::from_float<T>(a[j] + sum[j]));
  fl::store_floats<T, W>(residual, c, sum);
}

template <typename T, int W>
__device__ void add_rms_norm_row(T* out, T* residual, const T* x, const T* weight, int cols, float eps,
                                 float* warp_sums) {
  const int chunks = cols / W;
  float cached[kCachedChunks][W];
  float sum_sq = 0.0f;
  for (int k = 0; k < kCachedChunks; ++k) {
    if (cached_chunk(k) < chunks) {
      add_into_residual<T, W>(residual, x, cached_chunk(k), cached[k]);
      for (int j = 0; j < W; ++j) sum_sq += cached[k][j] * cached[k][j];
    }
  }
  for (int c = first_uncached_chunk(); c < chunks; c += blockDim.x) {
    float f[W];
    add_into_residual<T, W>(residual, x, c, f);
    for (int j = 0; j < W; ++j) sum_sq += f[j] * f[j];
  }
  const float inv_rms = rsqrtf(block_sum(sum_sq, warp_sums) / cols + eps);
  for (int k = 0; k < kCachedChunks; ++k) {
    if (cached_chunk(k) < chunks) store_rms_scaled<T, W, true>(out, weight, cached_chunk(k), cached[k], inv_rms);
  }
  // This thread wrote these chunks of residual above: reading them back needs no barrier.
  for (int c = first_uncached_chunk(); c < chunks; c += blockDim.x) {
    float f[W];
    fl::load_floats<T, W>(residual, c, f);
    store_rms_scaled<T, W, true>(out, weight, c, f, inv_rms);
  }
}

// residual[r, :] += x[r, :] (in place); out[r, :] = rms_norm(residual[r, :]) * weight
template <typename T>
__global__ void add_rms_norm(T* __restrict__ out, T* __restrict__ residual, const T* __restrict__ x,
                             const T* __restrict__ weight, int rows, int cols, float eps) {
  __shared__ float warp_sums[kMaxWarps];
  constexpr int V = fl::vec16<T>::n;
  const bool vectorized =
      cols % V == 0 && fl::aligned16(out) && fl::aligned16(residual) && fl::aligned16(x) && fl::aligned16(weight);
  for (long long row = blockIdx.x; row < rows; row += gridDim.x) {
    const long long offset = row * cols;
    if (vectorized) {
      add_rms_norm_row<T, V>(out + offset, residual + offset, x + offset, weight, cols, eps, warp_sums);
    } else {
      add_rms_norm_row<T, 1>(out + offset, residual + offset, x + offset, weight, cols, eps, warp_sums);
    }
  }
}

FL_EXPORT_DTYPES(rms_norm, "out[rows*cols] x[rows*cols] rows cols eps", rms_norm)
FL_EXPORT_DTYPES(rms_norm_weight, "out[rows*cols] x[rows*cols] weight[cols] rows cols eps", rms_norm_weight)
FL_EXPORT_DTYPES(layer_norm, "out[rows*cols] x[rows*cols] rows cols eps", layer_norm)
FL_EXPORT_DTYPES(layer_norm_gamma, "out[rows*cols] x[rows*cols] gamma[cols] rows cols eps", layer_norm_gamma)
FL_EXPORT_DTYPES(layer_norm_beta, "out[rows*cols] x[rows*cols] beta[cols] rows cols eps", layer_norm_beta)
FL_EXPORT_DTYPES(layer_norm_gamma_beta, "out[rows*cols] x[rows*cols] gamma[cols] beta[cols] rows cols eps", layer_norm_gamma_beta)
FL_EXPORT_DTYPES(add_rms_norm, "out[rows*cols] residual[rows*cols] x[rows*cols] weight[cols] rows cols eps", add_rms_norm)

}  // namespace fl::norm
