// Exercise 01: fused add + ReLU, and (bonus) the same in f16 with 16-byte loads.
#include <fuselab/fuselab.h>

// out[i] = max(a[i] + b[i], 0) for i < n; one thread an element, 256 threads a block.
__global__ void add_relu(float* out, const float* a, const float* b, int n) {
  // BEGIN SOLUTION
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    const float s = a[i] + b[i];
    out[i] = s < 0.0f ? 0.0f : s;
  }
  // END SOLUTION
}

// The same in f16: each thread takes 8 consecutive elements (16 bytes) as one
// float4 load from a and from b, computes in f32, and stores 16 bytes; the
// last n % 8 elements, which do not fill a vector, one by one.
__global__ void add_relu_f16x8(__half* out, const __half* a, const __half* b, int n) {
  // BEGIN SOLUTION
  const int v = blockIdx.x * blockDim.x + threadIdx.x;
  const int first = v * 8;
  if (first + 8 <= n) {
    const float4 av = reinterpret_cast<const float4*>(a)[v];
    const float4 bv = reinterpret_cast<const float4*>(b)[v];
    float4 ov;
    const __half* ah = reinterpret_cast<const __half*>(&av);
    const __half* bh = reinterpret_cast<const __half*>(&bv);
    __half* oh = reinterpret_cast<__half*>(&ov);
    for (int k = 0; k < 8; k++) {
      const float s = __half2float(ah[k]) + __half2float(bh[k]);
      oh[k] = __float2half(s < 0.0f ? 0.0f : s);
    }
    reinterpret_cast<float4*>(out)[v] = ov;
  } else {
    for (int i = first; i < n; i++) {
      const float s = __half2float(a[i]) + __half2float(b[i]);
      out[i] = __float2half(s < 0.0f ? 0.0f : s);
    }
  }
  // END SOLUTION
}
