// Tensor-core matrix products with CUDA's warp matrix functions (nvcuda::wmma),
// as the tensor-core samples and GEMM tutorials write them: one warp a 16 x 16
// tile of C, stepping through K; C = alpha * A B + beta * C with column-major
// operands; a bf16 product on the 32 x 8 x 16 shape, an int8 one with int
// accumulators, tf32 with its conversion, doubles on 8 x 8 x 4, and half
// accumulators through shared memory.
#include <mma.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

using namespace nvcuda;

#define WMMA_M 16
#define WMMA_N 16
#define WMMA_K 16

// a: M x K, b: K x N, c: M x N, all column-major. M, N, K multiples of 16.
// blockDim.x is a multiple of 32: warp (x, y) of the grid computes tile (x, y) of C.
__global__ void wmma_gemm(const half* a, const half* b, float* c, int M, int N, int K, float alpha, float beta) {
  const int warp_m = (blockIdx.x * blockDim.x + threadIdx.x) / warpSize;
  const int warp_n = blockIdx.y * blockDim.y + threadIdx.y;

  wmma::fragment<wmma::matrix_a, WMMA_M, WMMA_N, WMMA_K, half, wmma::col_major> a_frag;
  wmma::fragment<wmma::matrix_b, WMMA_M, WMMA_N, WMMA_K, half, wmma::col_major> b_frag;
  wmma::fragment<wmma::accumulator, WMMA_M, WMMA_N, WMMA_K, float> acc_frag;
  wmma::fragment<wmma::accumulator, WMMA_M, WMMA_N, WMMA_K, float> c_frag;
  wmma::fill_fragment(acc_frag, 0.0f);

  const int row = warp_m * WMMA_M, col = warp_n * WMMA_N;
  if (row >= M || col >= N) return;
  for (int i = 0; i < K; i += WMMA_K) {
    wmma::load_matrix_sync(a_frag, a + row + i * M, M);
    wmma::load_matrix_sync(b_frag, b + i + col * K, K);
    wmma::mma_sync(acc_frag, a_frag, b_frag, acc_frag);
  }
  wmma::load_matrix_sync(c_frag, c + row + col * M, M, wmma::mem_col_major);
  for (int i = 0; i < c_frag.num_elements; i++) c_frag.x[i] = alpha * acc_frag.x[i] + beta * c_frag.x[i];
  wmma::store_matrix_sync(c + row + col * M, c_frag, M, wmma::mem_col_major);
}

// out = a b, a: M x K row-major bf16, b: K x N column-major bf16, out row-major
// float; one warp a 32 x 8 tile.
__global__ void wmma_bf16_32x8(float* out, const __nv_bfloat16* a, const __nv_bfloat16* b, int M, int N, int K) {
  const int tile_m = blockIdx.x, tile_n = blockIdx.y;
  wmma::fragment<wmma::matrix_a, 32, 8, 16, __nv_bfloat16, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 32, 8, 16, __nv_bfloat16, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 32, 8, 16, float> acc;
  wmma::fill_fragment(acc, 0.0f);
  for (int k = 0; k < K; k += 16) {
    wmma::load_matrix_sync(fa, a + tile_m * 32 * K + k, K);
    wmma::load_matrix_sync(fb, b + tile_n * 8 * K + k, K);
    wmma::mma_sync(acc, fa, fb, acc);
  }
  wmma::store_matrix_sync(out + tile_m * 32 * N + tile_n * 8, acc, N, wmma::mem_row_major);
}

// out = a b + bias, int8 inputs (row-major a, row-major b) with int accumulators, exact.
__global__ void wmma_int8(int* out, const signed char* a, const signed char* b, const int* bias, int M, int N, int K) {
  const int tile_m = blockIdx.x, tile_n = blockIdx.y;
  wmma::fragment<wmma::matrix_a, 16, 16, 16, signed char, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, signed char, wmma::row_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, int> acc;
  wmma::load_matrix_sync(acc, bias + tile_m * 16 * N + tile_n * 16, N, wmma::mem_row_major);
  for (int k = 0; k < K; k += 16) {
    wmma::load_matrix_sync(fa, a + tile_m * 16 * K + k, K);
    wmma::load_matrix_sync(fb, b + k * N + tile_n * 16, N);
    wmma::mma_sync(acc, fa, fb, acc);
  }
  wmma::store_matrix_sync(out + tile_m * 16 * N + tile_n * 16, acc, N, wmma::mem_row_major);
}

// out = a b in tf32: the float inputs rounded with __float_to_tf32 after loading.
__global__ void wmma_tf32(float* out, const float* a, const float* b, int M, int N, int K) {
  const int tile_m = blockIdx.x, tile_n = blockIdx.y;
  wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::row_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 8, float> acc;
  wmma::fill_fragment(acc, 0.0f);
  for (int k = 0; k < K; k += 8) {
    wmma::load_matrix_sync(fa, a + tile_m * 16 * K + k, K);
    wmma::load_matrix_sync(fb, b + k * N + tile_n * 16, N);
    for (int i = 0; i < fa.num_elements; i++) fa.x[i] = wmma::__float_to_tf32(fa.x[i]);
    for (int i = 0; i < fb.num_elements; i++) fb.x[i] = wmma::__float_to_tf32(fb.x[i]);
    wmma::mma_sync(acc, fa, fb, acc);
  }
  wmma::store_matrix_sync(out + tile_m * 16 * N + tile_n * 16, acc, N, wmma::mem_row_major);
}

// out = a b in double on 8 x 8 x 4 tiles (row-major).
__global__ void wmma_f64(double* out, const double* a, const double* b, int M, int N, int K) {
  const int tile_m = blockIdx.x, tile_n = blockIdx.y;
  wmma::fragment<wmma::matrix_a, 8, 8, 4, double, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 8, 8, 4, double, wmma::row_major> fb;
  wmma::fragment<wmma::accumulator, 8, 8, 4, double> acc;
  wmma::fill_fragment(acc, 0.0);
  for (int k = 0; k < K; k += 4) {
    wmma::load_matrix_sync(fa, a + tile_m * 8 * K + k, K);
    wmma::load_matrix_sync(fb, b + k * N + tile_n * 8, N);
    wmma::mma_sync(acc, fa, fb, acc);
  }
  wmma::store_matrix_sync(out + tile_m * 8 * N + tile_n * 8, acc, N, wmma::mem_row_major);
}

// Two warps of a block each multiply a 16 x 16 tile with half accumulators,
// staging A through shared memory, and add the two products.
__global__ void wmma_half_accumulate(half* out, const half* a, const half* b) {
  __shared__ half staged[2][16 * 16];
  __shared__ half products[2][16 * 16];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  for (int i = lane; i < 256; i += 32) staged[warp][i] = a[warp * 256 + i];
  __syncwarp();
  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::row_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, half> acc;
  wmma::fill_fragment(acc, __float2half(0.0f));
  wmma::load_matrix_sync(fa, staged[warp], 16);
  wmma::load_matrix_sync(fb, b + warp * 256, 16);
  wmma::mma_sync(acc, fa, fb, acc);
  wmma::store_matrix_sync(products[warp], acc, 16, wmma::mem_row_major);
  __syncthreads();
  for (int i = threadIdx.x; i < 256; i += blockDim.x) out[i] = __hadd(products[0][i], products[1][i]);
}
