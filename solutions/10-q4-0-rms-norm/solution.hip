// Exercise 10: out = RMSNorm(dequantize(q)) * w, q in Q4_0 blocks of 18 bytes. One block a row.
#include <fuselab/fuselab.h>

// Helpers go here: a __device__ function that decodes one value, say.
// BEGIN SOLUTION
// Value c of a row: block c / 32 (an f16 scale, then 16 code bytes); value j < 16 is
// the low nibble of code byte j, value j >= 16 the high nibble of byte j - 16.
__device__ float q4_0_value(const unsigned char* row, int c) {
  const unsigned char* block = row + (c / 32) * 18;
  const int j = c % 32;
  const unsigned char byte = block[2 + j % 16];
  const int code = j < 16 ? (byte & 0x0F) : (byte >> 4);
  return (code - 8) * __half2float(*reinterpret_cast<const __half*>(block));
}
// END SOLUTION

__global__ void q4_0_rms_norm(float* out, const unsigned char* q, const float* w, float eps, int rows, int cols) {
  // BEGIN SOLUTION
  __shared__ float warp_sums[32];
  const unsigned char* row = q + (long long)blockIdx.x * (cols / 32) * 18;
  float* y = out + (long long)blockIdx.x * cols;
  float squares = 0.0f;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) {
    const float v = q4_0_value(row, c);
    squares += v * v;
  }
  for (int offset = warpSize / 2; offset > 0; offset /= 2) squares += __shfl_xor(squares, offset);
  if (threadIdx.x % warpSize == 0) warp_sums[threadIdx.x / warpSize] = squares;
  __syncthreads();
  float total = 0.0f;
  for (int i = 0; i < (int)(blockDim.x / warpSize); i++) total += warp_sums[i];
  const float scale = rsqrtf(total / cols + eps);
  for (int c = threadIdx.x; c < cols; c += blockDim.x) y[c] = q4_0_value(row, c) * scale * w[c];
  // END SOLUTION
}
