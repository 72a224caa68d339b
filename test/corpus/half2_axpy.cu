// y = a * x + y in half precision, two elements a thread through half2 and
// __hfma2, the odd last element through __hfma: every result is rounded once,
// as the GPU's fused multiply-add rounds.
#include <cuda_fp16.h>

__global__ void haxpy(int n, half a, const half* x, half* y) {
  const int start = threadIdx.x + blockDim.x * blockIdx.x;
  const int stride = blockDim.x * gridDim.x;
  const int pairs = n / 2;
  const half2* x2 = reinterpret_cast<const half2*>(x);
  half2* y2 = reinterpret_cast<half2*>(y);
  const half2 a2 = __half2half2(a);
  for (int i = start; i < pairs; i += stride) y2[i] = __hfma2(a2, x2[i], y2[i]);
  if (start == 0 && (n % 2) == 1) y[n - 1] = __hfma(a, x[n - 1], y[n - 1]);
}

// A product rounded, then a sum rounded. (__hmul_rn: the GPU's compiler may fuse
// a plain __hmul, or a * x, with the add that follows into one fma.)
__global__ void haxpy_unfused(int n, half a, const half* x, half* y) {
  const int i = threadIdx.x + blockDim.x * blockIdx.x;
  if (i < n) {
    const half product = __hmul_rn(a, x[i]);
    y[i] = __hadd(product, y[i]);
  }
}
