// Exercise 07: out = silu(gate) * up, 8 halves (16 bytes) a thread.
#include <fuselab/fuselab.h>

__global__ void silu_and_mul_f16x8(__half* out, const __half* x, int rows, int d) {
  // BEGIN SOLUTION
  const int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v * 8 >= d) return;
  const long long row = blockIdx.y;
  const float4 gates = reinterpret_cast<const float4*>(x + row * 2 * d)[v];
  const float4 ups = reinterpret_cast<const float4*>(x + row * 2 * d + d)[v];
  const __half* g = reinterpret_cast<const __half*>(&gates);
  const __half* u = reinterpret_cast<const __half*>(&ups);
  float4 result;
  __half* o = reinterpret_cast<__half*>(&result);
  for (int k = 0; k < 8; k++) {
    const float gate = __half2float(g[k]);
    o[k] = __float2half(gate / (1.0f + expf(-gate)) * __half2float(u[k]));
  }
  reinterpret_cast<float4*>(out + row * d)[v] = result;
  // END SOLUTION
}
