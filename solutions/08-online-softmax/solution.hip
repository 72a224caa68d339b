// Exercise 08: softmax of each row: the max and the sum of exponentials in one pass (online), then the output.
#include <fuselab/fuselab.h>
#include <cmath>  // INFINITY

// What a thread knows of its share of a row: m, the largest value seen, and s, the sum of exp(v - m) over the values seen.
struct MaxSum {
  float m;
  float s;
};

// Adds one value to a running (m, s).
__device__ void add_value(MaxSum& part, float v) {
  // BEGIN SOLUTION
  if (v > part.m) {
    // part.m may be -inf (nothing seen yet): then part.s is 0, and 0 * exp(-inf) is 0.
    part.s = part.s * expf(part.m - v) + 1.0f;
    part.m = v;
  } else if (v != -INFINITY) {
    part.s += expf(v - part.m);
  }
  // END SOLUTION
}

// Merges the (m, s) of another share into `part`: the two shares together.
__device__ void merge(MaxSum& part, MaxSum other) {
  // BEGIN SOLUTION
  const float m = fmaxf(part.m, other.m);
  if (m == -INFINITY) return;  // both saw only -inf, or nothing: (-inf, 0)
  part.s = part.s * expf(part.m - m) + other.s * expf(other.m - m);
  part.m = m;
  // END SOLUTION
}

// out[r, :] = exp(x[r, :] - max) / sum(exp(x[r, :] - max)), one block a row.
__global__ void softmax_online(float* out, const float* x, int rows, int cols) {
  // BEGIN SOLUTION
  __shared__ MaxSum warp_parts[32];
  const float* in = x + (long long)blockIdx.x * cols;
  float* o = out + (long long)blockIdx.x * cols;
  MaxSum part = {-INFINITY, 0.0f};
  for (int c = threadIdx.x; c < cols; c += blockDim.x) add_value(part, in[c]);
  for (int offset = warpSize / 2; offset > 0; offset /= 2) {
    const MaxSum other = {__shfl_xor(part.m, offset), __shfl_xor(part.s, offset)};
    merge(part, other);
  }
  if (threadIdx.x % warpSize == 0) warp_parts[threadIdx.x / warpSize] = part;
  __syncthreads();
  MaxSum row = warp_parts[0];
  for (int w = 1; w < (int)(blockDim.x / warpSize); w++) merge(row, warp_parts[w]);
  const float inv_sum = 1.0f / row.s;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) o[c] = expf(in[c] - row.m) * inv_sum;
  // END SOLUTION
}
