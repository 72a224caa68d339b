// RMS norm as inference servers write it: one block a token, cub's block
// reduction for the sum of squares, the scale broadcast through shared
// memory, one kernel template instantiated per element type by a macro.
#include <cuda_fp16.h>
#include <cub/block/block_reduce.cuh>

namespace serving {

template <typename scalar_t, int BLOCK>
__global__ void rms_norm_kernel(scalar_t* __restrict__ out,          // [num_tokens, hidden_size]
                                const scalar_t* __restrict__ input,  // [num_tokens, hidden_size]
                                const scalar_t* __restrict__ weight, // [hidden_size]
                                const float epsilon, const int num_tokens, const int hidden_size) {
  __shared__ float s_variance;
  float variance = 0.0f;
  for (int idx = threadIdx.x; idx < hidden_size; idx += blockDim.x) {
    const float x = static_cast<float>(input[blockIdx.x * hidden_size + idx]);
    variance += x * x;
  }
  using BlockReduce = cub::BlockReduce<float, BLOCK>;
  __shared__ typename BlockReduce::TempStorage reduce_store;
  variance = BlockReduce(reduce_store).Sum(variance, blockDim.x);
  if (threadIdx.x == 0) s_variance = rsqrtf(variance / hidden_size + epsilon);
  __syncthreads();
  for (int idx = threadIdx.x; idx < hidden_size; idx += blockDim.x) {
    const float x = static_cast<float>(input[blockIdx.x * hidden_size + idx]);
    out[blockIdx.x * hidden_size + idx] = static_cast<scalar_t>(x * s_variance) * weight[idx];
  }
}

#define INSTANTIATE_RMS_NORM(T) \
  template __global__ void rms_norm_kernel<T, 256>(T*, const T*, const T*, const float, const int, const int);
INSTANTIATE_RMS_NORM(float)
INSTANTIATE_RMS_NORM(__half)

}  // namespace serving
