// Exercise 07: out = silu(gate) * up, 8 halves (16 bytes) a thread.
#include <fuselab/fuselab.h>

__global__ void silu_and_mul_f16x8(__half* out, const __half* x, int rows, int d) {
  // TODO: fill in, about 14 lines
}
