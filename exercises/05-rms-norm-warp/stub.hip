// Exercise 05: RMSNorm, one block a row, warp shuffles then one value a warp in shared memory.
#include <fuselab/fuselab.h>

__global__ void rms_norm(float* out, const float* x, const float* w, float eps, int rows, int cols) {
  // TODO: fill in, about 13 lines
}
