// Exercise 13: a block's 256 elements summed by a tree in shared memory.
#include <fuselab/fuselab.h>

__global__ void block_sums(float* sums, const float* x, int n) {
  __shared__ float partial[256];
  const int t = threadIdx.x;
  const int i = blockIdx.x * blockDim.x + t;
  partial[t] = i < n ? x[i] : 0.0f;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s /= 2) {
    // BEGIN SOLUTION
    //STUB     if (t < s) partial[t] += partial[t + s];
    if (t < s) partial[t] += partial[t + s];
    __syncthreads();
    // END SOLUTION
  }
  if (t == 0) sums[blockIdx.x] = partial[0];
}
