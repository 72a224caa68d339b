// A long array scanned by one block, tile after tile, as cub's documentation
// does it: cub::BlockScan over each thread's items (a blocked arrangement) with
// a prefix functor that carries the running total from tile to tile; then a
// running maximum with cuda::maximum<> and the block's aggregate.
#include <climits>
#include <cub/cub.cuh>
#include <cuda/functional>

struct RunningTotal {
  int total;
  __device__ explicit RunningTotal(int start) : total(start) {}
  // Called by the first warp with the tile's total; returns what comes before the tile.
  __device__ int operator()(int tile_total) {
    const int before = total;
    total += tile_total;
    return before;
  }
};

template <int THREADS, int ITEMS>
__global__ void scan_tiles(int* sums, int* maxima, const int* in, int n) {
  typedef cub::BlockScan<int, THREADS> BlockScan;
  __shared__ typename BlockScan::TempStorage storage;
  RunningTotal running(0);
  for (int tile = 0; tile < n; tile += THREADS * ITEMS) {
    int items[ITEMS];
    for (int k = 0; k < ITEMS; ++k) {
      const int i = tile + threadIdx.x * ITEMS + k;
      items[k] = i < n ? in[i] : 0;
    }
    BlockScan(storage).ExclusiveSum(items, items, running);
    __syncthreads();
    for (int k = 0; k < ITEMS; ++k) {
      const int i = tile + threadIdx.x * ITEMS + k;
      if (i < n) sums[i] = items[k];
    }
  }
  const int value = threadIdx.x < n ? in[threadIdx.x] : INT_MIN;
  int running_max, block_max;
  BlockScan(storage).InclusiveScan(value, running_max, cuda::maximum<>{}, block_max);
  maxima[threadIdx.x] = running_max;
  if (threadIdx.x == 0) maxima[THREADS] = block_max;
}

template __global__ void scan_tiles<64, 4>(int*, int*, const int*, int);
