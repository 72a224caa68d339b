// Exercise 14: out = x * s, one block of 128 threads a row.
#include <fuselab/fuselab.h>

__global__ void scale_rows(float* out, const float* x, float s, int rows, int cols) {
  const long long start = (long long)blockIdx.x * cols;
  // BEGIN SOLUTION
  //STUB   for (int c = threadIdx.x; c <= cols; c += blockDim.x) out[start + c] = x[start + c] * s;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) out[start + c] = x[start + c] * s;
  // END SOLUTION
}
