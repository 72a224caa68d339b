// Exercise 03: subtract each row's mean, one block a row.
#include <fuselab/fuselab.h>

__global__ void center_rows(float* out, const float* x, int rows, int cols) {
  // BEGIN SOLUTION
  __shared__ float partial[256];
  const float* in = x + (long long)blockIdx.x * cols;
  float* o = out + (long long)blockIdx.x * cols;
  float sum = 0.0f;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) sum += in[c];
  partial[threadIdx.x] = sum;
  __syncthreads();
  for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) partial[threadIdx.x] += partial[threadIdx.x + stride];
    __syncthreads();
  }
  const float mean = partial[0] / cols;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) o[c] = in[c] - mean;
  // END SOLUTION
}
