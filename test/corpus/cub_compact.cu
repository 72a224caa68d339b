// Stream compaction of one block's items: cub::BlockScan gives each kept item
// its output slot (an exclusive sum of the flags) and the block's total;
// cub::WarpReduce counts the kept items of each warp on the side.
#include <cub/block/block_scan.cuh>
#include <cub/warp/warp_reduce.cuh>

template <int BLOCK_THREADS>
__global__ void compact_positive(float* out, int* counts, const float* in, int n) {
  using BlockScan = cub::BlockScan<int, BLOCK_THREADS>;
  using WarpReduce = cub::WarpReduce<int>;
  __shared__ typename BlockScan::TempStorage scan_storage;
  __shared__ typename WarpReduce::TempStorage warp_storage[BLOCK_THREADS / 32];
  const int i = blockIdx.x * BLOCK_THREADS + threadIdx.x;
  const float v = i < n ? in[i] : 0.0f;
  const int keep = v > 0.0f ? 1 : 0;
  int slot, total;
  BlockScan(scan_storage).ExclusiveSum(keep, slot, total);
  if (keep) out[blockIdx.x * BLOCK_THREADS + slot] = v;
  const int warp_count = WarpReduce(warp_storage[threadIdx.x / 32]).Sum(keep);
  if (threadIdx.x % 32 == 0) counts[1 + blockIdx.x * (BLOCK_THREADS / 32 + 1) + threadIdx.x / 32] = warp_count;
  if (threadIdx.x == 0) counts[blockIdx.x * (BLOCK_THREADS / 32 + 1)] = total;
}
template __global__ void compact_positive<128>(float*, int*, const float*, int);
