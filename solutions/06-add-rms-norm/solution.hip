// Exercise 06: residual += input; input = RMSNorm(residual) * w. One block a row.
#include <fuselab/fuselab.h>

__global__ void fused_add_rms_norm(float* input, float* residual, const float* w, float eps, int rows, int cols) {
  // BEGIN SOLUTION
  __shared__ float warp_sums[32];
  float* in = input + (long long)blockIdx.x * cols;
  float* res = residual + (long long)blockIdx.x * cols;
  float squares = 0.0f;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) {
    const float s = in[c] + res[c];
    res[c] = s;
    squares += s * s;
  }
  for (int offset = warpSize / 2; offset > 0; offset /= 2) squares += __shfl_xor(squares, offset);
  if (threadIdx.x % warpSize == 0) warp_sums[threadIdx.x / warpSize] = squares;
  __syncthreads();
  float total = 0.0f;
  for (int i = 0; i < (int)(blockDim.x / warpSize); i++) total += warp_sums[i];
  const float scale = rsqrtf(total / cols + eps);
  for (int c = threadIdx.x; c < cols; c += blockDim.x) in[c] = res[c] * scale * w[c];
  // END SOLUTION
}
