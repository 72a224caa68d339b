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
// kernels decode blocks in 16-bit words instead, the scale as one and the codes
// of a chunk of W values as W / 2 (W bytes at an even offset in the block, since
// W divides 16). Eight blocks, though, are nine 16-byte lines: the RMSNorm
// kernels copy rows of whole lines into shared memory with 16-byte loads first
// and decode there. The values, f32, f16 or bf16, are read and written as
// 16-byte vectors of W = 16 / sizeof(T): a chunk starts at a multiple of W
// values, rows hold a multiple of 32 values, and buffers start 256-byte
// aligned, so every chunk is aligned.
//
// Storage of the values is f32, f16 or bf16; all arithmetic is f32.
#include "fuselab/fuselab.h"

namespace fl::quant {

constexpr int kBlockValues = 32;
constexpr int kBlockBytes = 18;
constexpr int kScaleBytes = 2;

// Chunks whose codes a thread of the RMSNorm kernels keeps between the passes
// (as src/ops/quant.ts sizes its launches: a row's chunks over its threads).
constexpr int kCodeChunks = 4;

// Shared memory a block stages its rows' blocks in: one row of up to 14563
// values (8192 / 18 blocks), or several shorter rows.
constexpr int kStageBytes = 8192;

// A block has at most 1024 threads, hence at most 32 warps (of 32 lanes; 16 of 64).
constexpr int kMaxWarps = 32;

// ---- one block: decode and encode ------------------------------------------------

__device__ __forceinline__ float block_scale(const unsigned char* block) {
  return fl::to_float(*reinterpret_cast<const __half*>(block));
}

// The codes of a chunk of W values (W dividing 16 and a multiple of 4), one a
// byte, four a word, with their block's scale: what a chunk decodes from, small
// enough to keep in registers between a row's two passes.
template <int W>
struct ChunkCodes {
  static_assert(W % 4 == 0 && 16 % W == 0, "a chunk is whole 32-bit words of codes within one half of a block");
  unsigned bytes[W / 4];
  float d;
};

// The codes of values j .. j + W - 1 of a block (j a multiple of W, so a chunk
// lies within the low or within the high nibbles). A 16-bit word holds two code
// bytes; shifting it by 4 moves both high nibbles down at once.
template <int W>
__device__ __forceinline__ ChunkCodes<W> chunk_codes(const unsigned char* block, int j) {
  ChunkCodes<W> codes;
  codes.d = block_scale(block);
  const unsigned short* words = reinterpret_cast<const unsigned short*>(block + kScaleBytes + (j % 16));
  const int shift = j < 16 ? 0 : 4;
  for (int k = 0; k < W / 4; ++k) {
    const unsigned pair = words[2 * k] | static_cast<unsigned>(words[2 * k + 1]) << 16;
    codes.bytes[k] = (pair >> shift) & 0x0F0F0F0Fu;
  }
  return codes;
}

// Chunk c (W values) of a row of Q4_0 blocks.
template <int W>
__device__ __forceinline__ ChunkCodes<W> row_chunk_codes(const unsigned char* row, long long c) {
  constexpr int kChunksPerBlock = kBlockValues / W;
  return chunk_codes<W>(row + (c / kChunksPerBlock) * kBlockBytes, static_cast<int>(c % kChunksPerBlock) * W);
}

// (q - 8) * scale for each code q (scale: the block's d, or d times a row's
// 1 / rms, one multiply a value either way), without an int-to-float
// conversion (a slow instruction on GPUs, which bounded the RMSNorm kernels when
// they decoded every value twice): the byte permute makes the float 2^23 + q,
// and 2^23 + 8 is exact, so q - 8 is too.
template <int W>
__device__ __forceinline__ void decode(const ChunkCodes<W>& codes, float scale, float (&f)[W]) {
  for (int k = 0; k < W / 4; ++k) {
    for (int b = 0; b < 4; ++b) {
      const unsigned bits = __byte_perm(codes.bytes[k], 0x4B000000u, 0x7650u | b);
      f[4 * k + b] = (__uint_as_float(bits) - 8388616.0f) * scale;
    }
  }
}

// The sum of squares of a chunk's values, d^2 * sum((q - 8)^2), from integer
// sums of its codes: sum(q^2) - 16 sum(q) + 64 W, two byte dot products a word.
// Exact until the one rounding of the product (d^2 of an f16 fits in f32), and
// a handful of instructions where decoding the values first takes four a value.
template <int W>
__device__ __forceinline__ float chunk_sum_sq(const ChunkCodes<W>& codes) {
  unsigned squares = 0, sum = 0;
  for (int k = 0; k < W / 4; ++k) {
    squares = fl_dot4(codes.bytes[k], codes.bytes[k], squares);
    sum = fl_dot4(codes.bytes[k], 0x01010101u, sum);
  }
  const int centred = static_cast<int>(squares) - 16 * static_cast<int>(sum) + 64 * W;
  return codes.d * codes.d * static_cast<float>(centred);
}

template <int W>
__device__ __forceinline__ void decode_row_chunk(const unsigned char* row, long long c, float (&f)[W]) {
  const ChunkCodes<W> codes = row_chunk_codes<W>(row, c);
  decode<W>(codes, codes.d, f);
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

// Chunk c of out: the chunk's values decoded with d * inv_rms (one multiply a
// value for both), times the weights.
template <typename T, int W>
__device__ __forceinline__ void store_normalized(T* out, const T* weight, long long c, const ChunkCodes<W>& codes, float inv_rms) {
  float w[W];
  fl::load_floats<T, W>(weight, c, w);
  float y[W];
  decode<W>(codes, codes.d * inv_rms, y);
  for (int k = 0; k < W; ++k) y[k] *= w[k];
  fl::store_floats<T, W>(out, c, y);
}

// One row: each thread reads its chunks' codes and sums their squares in integers
// (chunk_sum_sq), the group sums those, and each thread decodes its chunks to
// write them normalised: the first kCodeChunks from codes kept in registers, any
// further ones read from q (shared memory, or the cache) again.
template <typename T, int W, typename Sum>
__device__ void q4_0_rms_norm_row(T* out, const unsigned char* q, const T* weight, int cols, float eps, bool valid,
                                  float* scratch) {
  const int chunks = cols / W;
  ChunkCodes<W> kept[kCodeChunks];
  float sum_sq = 0.0f;
  if (valid) {
    for (int k = 0; k < kCodeChunks; ++k) {
      const int c = threadIdx.x + k * blockDim.x;
      if (c < chunks) {
        kept[k] = row_chunk_codes<W>(q, c);
        sum_sq += chunk_sum_sq<W>(kept[k]);
      }
    }
    for (int c = threadIdx.x + kCodeChunks * blockDim.x; c < chunks; c += blockDim.x) {
      sum_sq += chunk_sum_sq<W>(row_chunk_codes<W>(q, c));
    }
  }
  const float inv_rms = rsqrtf(Sum{}(sum_sq, scratch) / cols + eps);
  if (!valid) return;
  for (int k = 0; k < kCodeChunks; ++k) {
    const int c = threadIdx.x + k * blockDim.x;
    if (c < chunks) store_normalized<T, W>(out, weight, c, kept[k], inv_rms);
  }
  for (int c = threadIdx.x + kCodeChunks * blockDim.x; c < chunks; c += blockDim.x) {
    store_normalized<T, W>(out, weight, c, row_chunk_codes<W>(q, c), inv_rms);
  }
}

// A row's 16-byte lines, as a thread copies them into the stage (lines
// threadIdx.x, + blockDim.x, ...): its first kPrefetchLines are loaded into
// registers ahead, all at once, and stored after the barrier. As
// src/ops/quant.ts launches the row form, that is every line of a row (0.14
// lines a chunk of values, 1.1 a thread for 16-bit types). On the H100, loading
// a line and storing it before loading the next made the bf16 kernel wait for
// memory once a line; and loading them where the kernel starts, before its
// index arithmetic, rather than after it was faster again.
constexpr int kPrefetchLines = 2;
using Line = fl::vec<unsigned int, 4>;

struct RowLines {
  Line line[kPrefetchLines];
};

__device__ __forceinline__ RowLines load_row_lines(const unsigned char* q_row, int row_bytes) {
  RowLines r;
  for (int k = 0; k < kPrefetchLines; ++k) {
    const int i = threadIdx.x + k * blockDim.x;
    if (i < row_bytes / 16) r.line[k] = reinterpret_cast<const Line*>(q_row)[i];
  }
  return r;
}

// A row's blocks written into `stage`: the lines loaded ahead, then any further
// ones copied now (row_bytes a multiple of 16, the row 16-byte aligned).
__device__ __forceinline__ void stage_row(unsigned char* stage, const RowLines& ahead, const unsigned char* q_row, int row_bytes) {
  for (int k = 0; k < kPrefetchLines; ++k) {
    const int i = threadIdx.x + k * blockDim.x;
    if (i < row_bytes / 16) reinterpret_cast<Line*>(stage)[i] = ahead.line[k];
  }
  for (int i = threadIdx.x + kPrefetchLines * blockDim.x; i < row_bytes / 16; i += blockDim.x) {
    reinterpret_cast<Line*>(stage)[i] = reinterpret_cast<const Line*>(q_row)[i];
  }
}

// out[r, :] = rms_norm(dequantize(q[r, :])) * weight, with the row length
// cols = 32 * blocks_per_row.
//
// A block's rows are staged in shared memory first when their blocks are whole
// 16-byte lines (cols a multiple of 256) and fit kStageBytes: the lines are read
// with 16-byte loads, and the chunks decode from shared memory. Other rows
// decode from global memory in 16-bit words. A block with more rows to go
// (a grid smaller than the rows) loads its next row's lines while it
// normalises this one.
template <typename T, typename Sum>
__global__ void q4_0_rms_norm_rows(T* __restrict__ out, const unsigned char* __restrict__ q, const T* __restrict__ weight,
                                   int rows, int blocks_per_row, float eps) {
  __shared__ float scratch[kMaxWarps];
  __shared__ Line stage[kStageBytes / 16];
  constexpr int V = fl::vec16<T>::n;
  const int cols = blocks_per_row * kBlockValues;
  const int row_bytes = blocks_per_row * kBlockBytes;
  const bool staged = row_bytes % 16 == 0 && fl::aligned16(q) && (long long)blockDim.y * row_bytes <= kStageBytes;
  unsigned char* my_stage = reinterpret_cast<unsigned char*>(stage) + (staged ? threadIdx.y * row_bytes : 0);
  const long long stride = (long long)gridDim.x * blockDim.y;
  long long row = (long long)blockIdx.x * blockDim.y + threadIdx.y;
  RowLines next;
  if (staged && row < rows) next = load_row_lines(q + row * row_bytes, row_bytes);
  for (long long base = (long long)blockIdx.x * blockDim.y; base < rows; base += stride, row += stride) {
    const bool valid = row < rows;
    const long long r = valid ? row : 0;
    const unsigned char* q_row = q + r * row_bytes;
    if (staged) {
      // Every thread goes round this loop alike, so every thread reaches both barriers:
      // the previous rows' reads of the stage are done before it is written, and it is whole before it is read.
      __syncthreads();
      if (valid) stage_row(my_stage, next, q_row, row_bytes);
      __syncthreads();
      if (row + stride < rows) next = load_row_lines(q + (row + stride) * row_bytes, row_bytes);
    }
    q4_0_rms_norm_row<T, V, Sum>(out + r * cols, staged ? my_stage : q_row, weight, cols, eps, valid, scratch);
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
