// Layer norm with cooperative groups: a warp-sized tile reduces with
// cg::reduce, the tiles' partial sums meet in shared memory, and the block
// synchronises through its group handle. Mean and variance in two passes.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

namespace cg = cooperative_groups;

__device__ float block_sum(cg::thread_block block, float v, float* partials) {
  cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
  v = cg::reduce(tile, v, cg::plus<float>());
  if (tile.thread_rank() == 0) partials[tile.meta_group_rank()] = v;
  block.sync();
  float total = 0.0f;
  for (unsigned t = 0; t < tile.meta_group_size(); ++t) total += partials[t];
  block.sync();
  return total;
}

extern "C" __global__ void layer_norm(float* __restrict__ y, const float* __restrict__ x, const float* __restrict__ gamma,
                                      const float* __restrict__ beta, int n, float eps) {
  __shared__ float partials[32];
  cg::thread_block block = cg::this_thread_block();
  const float* row = x + static_cast<size_t>(blockIdx.x) * n;
  float sum = 0.0f;
  for (int i = block.thread_rank(); i < n; i += block.size()) sum += row[i];
  const float mean = block_sum(block, sum, partials) / n;
  float squares = 0.0f;
  for (int i = block.thread_rank(); i < n; i += block.size()) {
    const float d = row[i] - mean;
    squares += d * d;
  }
  const float rstd = rsqrtf(block_sum(block, squares, partials) / n + eps);
  for (int i = block.thread_rank(); i < n; i += block.size()) {
    y[static_cast<size_t>(blockIdx.x) * n + i] = (row[i] - mean) * rstd * gamma[i] + beta[i];
  }
}
