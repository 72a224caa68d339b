// NaN, infinities and negatives converted to 64-bit and 32-bit unsigned integers by the intrinsics.
// Run on a GPU: nvcc -arch=sm_90 -o nan-to-integer bench/probes/nan-to-integer.cu && ./nan-to-integer (results: docs/gpu-runs.md).
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <cstdio>
__global__ void k(const float* in, unsigned long long* out) {
  for (int i = 0; i < 4; ++i) {
    float v = in[i]; unsigned long long* o = out + i * 12;
    o[0] = __float2ull_rz(v); o[1] = __float2ull_rn(v); o[2] = __double2ull_rz((double)v);
    o[3] = __half2ull_rz(__float2half(v)); o[4] = __bfloat162ull_rz(__float2bfloat16(v));
    o[5] = (unsigned long long)__float2ll_rz(v); o[6] = __float2uint_rz(v); o[7] = (unsigned long long)(unsigned)__float2int_rz(v);
    o[8] = (unsigned long long)v; o[9] = __half2uint_rz(__float2half(v)); o[10] = __half2ushort_rz(__float2half(v));
    o[11] = (unsigned long long)(long long)v;
  }
}
int main() {
  float h[4] = {__builtin_nanf(""), __builtin_inff(), -__builtin_inff(), -3.5f};
  float* d; unsigned long long* o; cudaMalloc(&d, 16); cudaMalloc(&o, 48 * 8);
  cudaMemcpy(d, h, 16, cudaMemcpyHostToDevice); k<<<1, 1>>>(d, o);
  unsigned long long r[48]; cudaMemcpy(r, o, sizeof r, cudaMemcpyDeviceToHost);
  const char* n[12] = {"__float2ull_rz", "__float2ull_rn", "__double2ull_rz", "__half2ull_rz", "__bfloat162ull_rz", "__float2ll_rz",
    "__float2uint_rz", "__float2int_rz", "(ull)float", "__half2uint_rz", "__half2ushort_rz", "(ll)float"};
  const char* v[4] = {"NaN", "+inf", "-inf", "-3.5"};
  for (int i = 0; i < 4; ++i) for (int j = 0; j < 12; ++j) printf("%-5s %-18s 0x%llx\n", v[i], n[j], r[i * 12 + j]);
}
