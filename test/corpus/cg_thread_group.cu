// Sums over cooperative groups passed as cg::thread_group, the way the CUDA
// programming guide writes a reduction once for any group: the whole block, a
// tile whose size is a template argument, and a tile sized at run time.
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

// The sum of val over g, to the group's rank 0, through g.size() ints of scratch.
__device__ int group_sum(cg::thread_group g, int* scratch, int val) {
  const int rank = g.thread_rank();
  for (int half = g.size() / 2; half > 0; half /= 2) {
    scratch[rank] = val;
    g.sync();
    if (rank < half) val += scratch[rank + half];
    g.sync();
  }
  return val;
}

__global__ void sums_by_group(int* block_sums, int* warp_sums, int* tile_sums, const int* x, int n, int tile) {
  extern __shared__ int scratch[];
  cg::thread_block block = cg::this_thread_block();
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int value = i < n ? x[i] : 0;

  const int total = group_sum(block, scratch, value);
  if (block.thread_rank() == 0) block_sums[blockIdx.x] = total;
  block.sync();

  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
  const int warp_total = group_sum(warp, scratch + threadIdx.x / 32 * 32, value);
  if (warp.thread_rank() == 0) warp_sums[i / 32] = warp_total;
  block.sync();

  cg::thread_group part = cg::tiled_partition(block, tile);
  const int tile_total = group_sum(part, scratch + threadIdx.x / tile * tile, value);
  if (part.thread_rank() == 0) tile_sums[i / tile] = tile_total;
}
