// Exercise 05: RMSNorm, one block a row, warp shuffles then one value a warp in shared memory.
#include <fuselab/fuselab.h>

__global__ void rms_norm(float* out, const float* x, const float* w, float eps, int rows, int cols) {
  // BEGIN SOLUTION
  __shared__ float warp_sums[32];
  const float* in = x + (long long)blockIdx.x * cols;
  float* o = out + (long long)blockIdx.x * cols;
  float sum = 0.0f;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) sum += in[c] * in[c];
  for (int offset = warpSize / 2; offset > 0; offset /= 2) sum += __shfl_xor(sum, offset);
  const int warp = threadIdx.x / warpSize;
  if (threadIdx.x % warpSize == 0) warp_sums[warp] = sum;
  __syncthreads();
  float total = 0.0f;
  for (int i = 0; i < (int)(blockDim.x / warpSize); i++) total += warp_sums[i];
  const float scale = rsqrtf(total / cols + eps);
  for (int c = threadIdx.x; c < cols; c += blockDim.x) o[c] = in[c] * scale * w[c];
  // END SOLUTION
}
