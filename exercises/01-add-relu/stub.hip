// Exercise 01: fused add + ReLU, and (bonus) the same in f16 with 16-byte loads.
#include <fuselab/fuselab.h>

// out[i] = max(a[i] + b[i], 0) for i < n; one thread an element, 256 threads a block.
__global__ void add_relu(float* out, const float* a, const float* b, int n) {
  // TODO: fill in, about 5 lines
}

// The same in f16: each thread takes 8 consecutive elements (16 bytes) as one
// float4 load from a and from b, computes in f32, and stores 16 bytes; the
// last n % 8 elements, which do not fill a vector, one by one.
__global__ void add_relu_f16x8(__half* out, const __half* a, const __half* b, int n) {
  // TODO: fill in, about 20 lines
}
