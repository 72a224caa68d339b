// Q4_0 quantized weights, as GGML stores them: quantize_q4_0, dequantize_q4_0,
// and dequantization fused with RMSNorm in the two forms of one row kernel.
//
// A Q4_0 block holds 32 values in 18 bytes: an f16 scale d (little-endian), then
// 16 bytes of 4-bit codes q. Value j (0-15) is the low nibble of byte j, value
// j + 16 its high nibble; each value is (q - 8) * d. A row of cols values
// (a multiple of 32) is cols / 32 blocks, one after the other, and rows follow
// each other with no padding.
//
// Alignment. Blocks are 18 bytes, so a block starts 2-byte aligned (18 * b is
// even) and, as a rule, not 16-byte aligned: no 16-byte load fits a block. The
// kernels read blocks in 16-bit words instead, the scale as one and the codes of
// a chunk of W values as W / 2 (W bytes at an even offset in the block, since W
// divides 16); the lanes of a warp read neighbouring chunks of the same few
// blocks, so each line of blocks comes from memory once and the cache serves the
// other lanes. The values, f32, f16 or bf16, are read and written as 16-byte
// vectors of W = 16 / sizeof(T): a chunk starts at a multiple of W values, rows
// hold a multiple of 32 values, and buffers start 256-byte aligned, so every
// chunk is aligned.
//
// Storage of the values is f32, f16 or bf16; all arithmetic is f32.
#include "fuselab/fuselab.h"

namespace fl::quant {

constexpr int kBlockValues = 32;
constexpr int kBlockBytes = 18;
constexpr int kScaleBytes = 2;

// Chunks a thread of the RMSNorm kernels keeps in registers, so that a row that
// fits is decoded once; longer rows decode their blocks a second time.
constexpr int kCachedChunks = 4;

// A block has at most 1024 threads, hence at most 32 warps (of 32 lanes; 16 of 64).
constexpr int kMaxWarps = 32;

// ---- one block: decode and encode ------------------------------------------------

__device__ __forceinline__ float block_scale(const unsigned char* block) {
  return fl::to_float(*reinterpret_cast<const __half*>(block));
}

// The W values j .. j + W - 1 of a block (j a multiple of W, W dividing 16, so a
// chunk lies within the low or within the high nibbles). A 16-bit word holds
// two code bytes; shifting it by 4 moves both high nibbles down at once.
template <int W>
__device__ __forceinline__ void decode_chunk(const unsigned char* block, int j, float (&f)[W]) {
  static_assert(W % 2 == 0 && 16 % W == 0, "a chunk is whole 16-bit words within one half of a block");
  const float d = block_scale(block);
  const unsigned char* codes = block + kScaleBytes + (j % 16);
  const int shift = j < 16 ? 0 : 4;
  const unsigned short* words = reinterpret_cast<const unsigned short*>(codes);
  for (int k = 0; k < W / 2; ++k) {
    const unsigned word = words[k] >> shift;
    f[2 * k] = static_cast<float>(static_cast<int>(word & 0xF) - 8) * d;
    f[2 * k + 1] = static_cast<float>(static_cast<int>((word >> 8) & 0xF) - 8) * d;
  }
}

// Chunk c (W values) of a row of Q4_0 blocks.
template <int W>
__device__ __forceinline__ void decode_row_chunk(const unsigned char* row, long long c, float (&f)[W]) {
  constexpr int kChunksPerBlock = kBlockValues / W;
  decode_chunk<W>(row + (c / kChunksPerBlock) * kBlockBytes, static_cast<int>(c % kChunksPerBlock) * W, f);
}

// GGML's code for x: x * id rounded to f32 on its own (as GGML's C computes it,
// never fused into one rounding with the add), plus 8.5, truncated, at most 15.
// Clamping before the truncation gives the same codes for finite values (x * id
// lies in [-8, 8]) and a defined 0 for NaN.
__device__ __forceinline__ unsigned code_of(float x, float id) {
  const float shifted = fl::mul_rn(x, id) + 8.5f;
  return static_cast<unsigned>(fminf(15.0f, fmaxf(0.0f, shifted)));
}

// One block of 32 values, as GGML's quantize_row_q4_0: d = the value of largest
// magnitude (the first such, sign kept) / -8, codes from x / d. A NaN among the
// values makes d NaN, so the whole block decodes to NaN rather than hiding it.
__device__ __forceinline__ void encode_block(unsigned char* block, const float (&x)[kBlockValues]) {
  float amax = 0.0f, max = 0.0f;
  bool nan = false;
  float nan_value = 0.0f;
  for (int k = 0; k < kBlockValues; ++k) {
    if (amax < fabsf(x[k])) {
      amax = fabsf(x[k]);
      max = x[k];
    }
    if (x[k] != x[k]) {
      nan = true;
      nan_value = x[k];
    }
  }
  const float d = nan ? nan_value : max / -8.0f;
  const float id = d != 0.0f ? 1.0f / d : 0.0f;
  // Stored as 16-bit words: a block is 2-byte aligned.
  unsigned short* words = reinterpret_cast<unsigned short*>(block);
  const __half scale = fl::from_float<__half>(d);
  words[0] = *reinterpret_cast<const unsigned short*>(&scale);
  for (int k = 0; k < 8; ++k) {
    const unsigned lo = code_of(x[2 * k], id) | code_of(x[2 * k + 16], id) << 4;
    const unsigned hi = code_of(x[2 * k + 1], id) | code_of(x[2 * k + 17], id) << 4;
    words[1 + k] = static_cast<unsigned short>(lo | hi << 8);
  }
}

// ---- quantize_q4_0 and dequantize_q4_0: flat over the blocks ------------------------

// q[b] = the Q4_0 block of x[32 b .. 32 b + 31]. One thread a block: 32 values
// read as 16-byte chunks, 18 bytes written.
template <typename T>
__global__ void quantize_q4_0(unsigned char* __restrict__ q, const T* __restrict__ x, int blocks) {
  constexpr int W = fl::vec16<T>::n;
  for (long long b = (long long)blockIdx.x * blockDim.x + threadIdx.x; b < blocks; b += (long long)gridDim.x * blockDim.x) {
    float values[kBlockValues];
    for (int c = 0; c < kBlockValues / W; ++c) {
      float f[W];
      fl::load_floats<T, W>(x + b * kBlockValues, c, f);
      for (int k = 0; k < W; ++k) values[c * W + k] = f[k];
    }
    encode_block(q + b * kBlockBytes, values);
  }
}

// out[32 b + j] = value j of block b. One thread a chunk of W values, so that
// consecutive threads write consecutive 16 bytes.
template <typename T>
__global__ void dequantize_q4_0(T* __restrict__ out, const unsigned char* __restrict__ q, int blocks) {
  constexpr int W = fl::vec16<T>::n;
  const long long chunks = (long long)blocks * (kBlockValues / W);
  for (long long c = (long long)blockIdx.x * blockDim.x + threadIdx.x; c < chunks; c += (long long)gridDim.x * blockDim.x) {
    float f[W];
    decode_row_chunk<W>(q, c, f);
    fl::store_floats<T, W>(out, c, f);
  }
}

// ---- dequantize + RMSNorm: one row a row group --------------------------------------
//
// A row group is the blockDim.x threads of a block that share a row, reduced by
// one of two sums, which make the two kernels:
//   q4_0_rms_norm        one row a block (blockDim.x a multiple of warpSize,
//                        blockDim.y 1): warp shuffles, then the warps' sums
//                        through shared memory. For long rows.
//   q4_0_rms_norm_batch  blockDim.y rows a block, each row a team of blockDim.x
//                        lanes (a power of two up to warpSize) inside one warp:
//                        shuffles only, no barrier. For short rows, which the
//                        first form would leave most of a block's threads idle on.
// Blocks take rows blockIdx.x * blockDim.y + threadIdx.y, then gridDim.x *
// blockDim.y further on. Every thread goes round that loop the same number of
// times, also past the last row, so every thread of a warp reaches each shuffle.

struct BlockSum {
  __device__ float operator()(float v, float* warp_sums) const {
    const int lane = threadIdx.x % warpSize;
    const int warp = threadIdx.x / warpSize;
    const int warps = blockDim.x / warpSize;
    for (int mask = warpSize / 2; mask > 0; mask >>= 1) v += __shfl_xor(v, mask);
    if (lane == 0) warp_sums[warp] = v;
    __syncthreads();
    v = lane < warps ? warp_sums[lane] : 0.0f;
    for (int mask = warpSize / 2; mask > 0; mask >>= 1) v += __shfl_xor(v, mask);
    // warp_sums is read by every warp before the next row writes it.
    __syncthreads();
    return v;
  }
};

struct TeamSum {
  __device__ float operator()(float v, float* warp_sums) const {
    // A team of whole warps (one row a block, which src/ops/quant.ts never
    // launches in this form) is summed as the row form sums.
    if (blockDim.x > (unsigned)warpSize) return BlockSum{}(v, warp_sums);
    const int team = blockDim.x;
    for (int mask = team / 2; mask > 0; mask >>= 1) v += __shfl_xor(v, mask, team);
    return v;
  }
};

// out = f * inv_rms * weight, stored as chunk c of out.
template <typename T, int W>
__device__ __forceinline__ void store_normalized(T* out, const T* weight, long long c, const float (&f)[W], float inv_rms) {
  float w[W];
  fl::load_floats<T, W>(weight, c, w);
  float y[W];
  for (int k = 0; k < W; ++k) y[k] = f[k] * inv_rms * w[k];
  fl::store_floats<T, W>(out, c, y);
}

// One row: each thread decodes its chunks (the first kCachedChunks kept in
// registers), the group sums the squares, and the normalised values are written;
// chunks past the cached ones are decoded again.
template <typename T, int W, typename Sum>
__device__ void q4_0_rms_norm_row(T* out, const unsigned char* q, const T* weight, int cols, float eps, bool valid,
                                  float* scratch) {
  const int chunks = cols / W;
  float cached[kCachedChunks][W];
  float sum_sq = 0.0f;
  if (valid) {
    for (int k = 0; k < kCachedChunks; ++k) {
      const int c = threadIdx.x + k * blockDim.x;
      if (c < chunks) {
        decode_row_chunk<W>(q, c, cached[k]);
        for (int j = 0; j < W; ++j) sum_sq += cached[k][j] * cached[k][j];
      }
    }
    for (int c = threadIdx.x + kCachedChunks * blockDim.x; c < chunks; c += blockDim.x) {
      float f[W];
      decode_row_chunk<W>(q, c, f);
      for (int j = 0; j < W; ++j) sum_sq += f[j] * f[j];
    }
  }
  const float inv_rms = rsqrtf(Sum{}(sum_sq, scratch) / cols + eps);
  if (!valid) return;
  for (int k = 0; k < kCachedChunks; ++k) {
    const int c = threadIdx.x + k * blockDim.x;
    if (c < chunks) store_normalized<T, W>(out, weight, c, cached[k], inv_rms);
  }
  for (int c = threadIdx.x + kCachedChunks * blockDim.x; c < chunks; c += blockDim.x) {
    float f[W];
    decode_row_chunk<W>(q, c, f);
    store_normalized<T, W>(out, weight, c, f, inv_rms);
  }
}

// out[r, :] = rms_norm(dequantize(q[r, :])) * weight, with the row length
// cols = 32 * blocks_per_row.
template <typename T, typename Sum>
__global__ void q4_0_rms_norm_rows(T* __restrict__ out, const unsigned char* __restrict__ q, const T* __restrict__ weight,
                                   int rows, int blocks_per_row, float eps) {
  __shared__ float scratch[kMaxWarps];
  constexpr int V = fl::vec16<T>::n;
  const int cols = blocks_per_row * kBlockValues;
  for (long long base = (long long)blockIdx.x * blockDim.y; base < rows; base += (long long)gridDim.x * blockDim.y) {
    const long long row = base + threadIdx.y;
    const bool valid = row < rows;
    const long long r = valid ? row : 0;
    q4_0_rms_norm_row<T, V, Sum>(out + r * cols, q + r * blocks_per_row * kBlockBytes, weight, cols, eps, valid, scratch);
  }
}

FL_EXPORT_DTYPES(quantize_q4_0, "q[blocks*18] x[blocks*32] blocks", quantize_q4_0)
FL_EXPORT_DTYPES(dequantize_q4_0, "out[blocks*32] q[blocks*18] blocks", dequantize_q4_0)
FL_EXPORT_DTYPES(q4_0_rms_norm,
                 "out[rows*blocks_per_row*32] q[rows*blocks_per_row*18] weight[blocks_per_row*32] rows blocks_per_row eps",
                 q4_0_rms_norm_rows, BlockSum)
FL_EXPORT_DTYPES(q4_0_rms_norm_batch,
                 "out[rows*blocks_per_row*32] q[rows*blocks_per_row*18] weight[blocks_per_row*32] rows blocks_per_row eps",
                 q4_0_rms_norm_rows, TeamSum)

}  // namespace fl::quant
