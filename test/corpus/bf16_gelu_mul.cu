// Gated activation in bf16 pairs: gelu(gate) * up on __nv_bfloat162, the
// activation in float, the product in bf16 arithmetic (__hmul2).
#include <cuda_bf16.h>

__global__ void gelu_and_mul_bf16(__nv_bfloat16* out, const __nv_bfloat16* gate, const __nv_bfloat16* up, int pairs) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= pairs) return;
  const __nv_bfloat162 g = reinterpret_cast<const __nv_bfloat162*>(gate)[i];
  const __nv_bfloat162 u = reinterpret_cast<const __nv_bfloat162*>(up)[i];
  const float2 gf = __bfloat1622float2(g);
  const float2 act = make_float2(gf.x * normcdff(gf.x), gf.y * normcdff(gf.y));
  reinterpret_cast<__nv_bfloat162*>(out)[i] = __hmul2(__float22bfloat162_rn(act), u);
}
