// Exercise 10: out = RMSNorm(dequantize(q)) * w, q in Q4_0 blocks of 18 bytes. One block a row.
#include <fuselab/fuselab.h>

// Helpers go here: a __device__ function that decodes one value, say.
// TODO: fill in, about 9 lines

__global__ void q4_0_rms_norm(float* out, const unsigned char* q, const float* w, float eps, int rows, int cols) {
  // TODO: fill in, about 15 lines
}
