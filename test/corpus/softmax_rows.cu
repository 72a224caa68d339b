// Row softmax, one block a row: each thread keeps a running max and sum over
// its strided elements, warps combine them with butterfly shuffles, and the
// warps' results meet in shared memory. Written for 32-lane warps.
#include <cfloat>
#include <cuda_runtime.h>

#define WARP_SIZE 32
#define FULL_MASK 0xffffffffu

__device__ __forceinline__ float warp_max(float v) {
#pragma unroll
  for (int offset = WARP_SIZE / 2; offset > 0; offset >>= 1) v = fmaxf(v, __shfl_xor_sync(FULL_MASK, v, offset));
  return v;
}

__device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
  for (int offset = WARP_SIZE / 2; offset > 0; offset >>= 1) v += __shfl_xor_sync(FULL_MASK, v, offset);
  return v;
}

// Every thread gets the block's reduction of v; op is warp_max or warp_sum, identity its neutral value.
template <float (*WarpOp)(float)>
__device__ float block_all_reduce(float v, float* scratch, float identity) {
  const int lane = threadIdx.x % WARP_SIZE;
  const int warp = threadIdx.x / WARP_SIZE;
  const int warps = (blockDim.x + WARP_SIZE - 1) / WARP_SIZE;
  v = WarpOp(v);
  if (lane == 0) scratch[warp] = v;
  __syncthreads();
  v = lane < warps ? scratch[lane] : identity;
  v = WarpOp(v);
  __syncthreads();  // scratch is reused by the next reduction
  return v;
}

template <int BLOCK>
__global__ void __launch_bounds__(BLOCK) softmax_rows(float* __restrict__ out, const float* __restrict__ in, int cols) {
  __shared__ float scratch[BLOCK / WARP_SIZE];
  const float* row = in + static_cast<size_t>(blockIdx.x) * cols;
  float* dst = out + static_cast<size_t>(blockIdx.x) * cols;

  float local_max = -FLT_MAX;
  for (int c = threadIdx.x; c < cols; c += BLOCK) local_max = fmaxf(local_max, row[c]);
  const float row_max = block_all_reduce<warp_max>(local_max, scratch, -FLT_MAX);

  float local_sum = 0.0f;
  for (int c = threadIdx.x; c < cols; c += BLOCK) local_sum += __expf(row[c] - row_max);
  const float inv_sum = 1.0f / block_all_reduce<warp_sum>(local_sum, scratch, 0.0f);

  for (int c = threadIdx.x; c < cols; c += BLOCK) dst[c] = __expf(row[c] - row_max) * inv_sum;
}

template __global__ void softmax_rows<128>(float*, const float*, int);
