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
  // TODO: fill in, about 7 lines
}

// Merges the (m, s) of another share into `part`: the two shares together.
__device__ void merge(MaxSum& part, MaxSum other) {
  // TODO: fill in, about 4 lines
}

// out[r, :] = exp(x[r, :] - max) / sum(exp(x[r, :] - max)), one block a row.
__global__ void softmax_online(float* out, const float* x, int rows, int cols) {
  // TODO: fill in, about 15 lines
}
