// A long array scanned by one block, tile after tile, as cub's documentation
// does it: cub::BlockLoad of each thread's items (a blocked arrangement, the
// last tile partial), cub::BlockScan over them with a prefix functor that
// carries the running total from tile to tile, cub::BlockStore back; then a
// running maximum with cuda::maximum<> and the block's aggregate.
#include <climits>
#include <cub/block/block_load.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/block/block_store.cuh>
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
  typedef cub::BlockLoad<int, THREADS, ITEMS, cub::BLOCK_LOAD_WARP_TRANSPOSE> BlockLoad;
  typedef cub::BlockStore<int, THREADS, ITEMS, cub::BLOCK_STORE_WARP_TRANSPOSE> BlockStore;
  typedef cub::BlockScan<int, THREADS> BlockScan;
  __shared__ union {
    typename BlockLoad::TempStorage load;
    typename BlockStore::TempStorage store;
    typename BlockScan::TempStorage scan;
  } storage;
  RunningTotal running(0);
  for (int tile = 0; tile < n; tile += THREADS * ITEMS) {
    const int valid = n - tile < THREADS * ITEMS ? n - tile : THREADS * ITEMS;
    int items[ITEMS];
    BlockLoad(storage.load).Load(in + tile, items, valid, 0);
    __syncthreads();
    BlockScan(storage.scan).ExclusiveSum(items, items, running);
    __syncthreads();
    BlockStore(storage.store).Store(sums + tile, items, valid);
    __syncthreads();
  }
  const int value = threadIdx.x < n ? in[threadIdx.x] : INT_MIN;
  int running_max, block_max;
  BlockScan(storage.scan).InclusiveScan(value, running_max, cuda::maximum<>{}, block_max);
  maxima[threadIdx.x] = running_max;
  if (threadIdx.x == 0) maxima[THREADS] = block_max;
}

template __global__ void scan_tiles<64, 4>(int*, int*, const int*, int);
