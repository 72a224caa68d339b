// Sorting a block's tile with cub, as cub's own examples and sampling kernels do:
// BlockLoad, BlockRadixSort and BlockStore sharing one union of TempStorage;
// a top-k of each row from a descending key-value sort; a stable sort on a
// range of the keys' bits, stored striped; a merge sort with a comparator of
// its own over a partial tile; the exchanges between arrangements; and, as a
// sample's main() has it, a device-wide sort set up on the host.
#include <cub/block/block_load.cuh>
#include <cub/block/block_radix_sort.cuh>
#include <cub/block/block_merge_sort.cuh>
#include <cub/block/block_exchange.cuh>
#include <cub/block/block_store.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <cub/util_allocator.cuh>
#include <cuda_fp16.h>

// The host side of a sample: cub's device-wide sort through its caching
// allocator (host code, left out: launches come from TS).
cub::CachingDeviceAllocator g_allocator(true);

void sort_all_keys(const int* d_in, int* d_out, int n) {
  void* d_temp_storage = nullptr;
  size_t temp_storage_bytes = 0;
  CubDebugExit(cub::DeviceRadixSort::SortKeys(d_temp_storage, temp_storage_bytes, d_in, d_out, n));
  CubDebugExit(g_allocator.DeviceAllocate(&d_temp_storage, temp_storage_bytes));
  CubDebugExit(cub::DeviceRadixSort::SortKeys(d_temp_storage, temp_storage_bytes, d_in, d_out, n));
  if (d_temp_storage) CubDebugExit(g_allocator.DeviceFree(d_temp_storage));
}

// Each block sorts BLOCK_THREADS * ITEMS_PER_THREAD consecutive keys.
template <typename Key, int BLOCK_THREADS, int ITEMS_PER_THREAD>
__global__ void block_sort(Key* out, const Key* in) {
  using BlockLoadT = cub::BlockLoad<Key, BLOCK_THREADS, ITEMS_PER_THREAD, cub::BLOCK_LOAD_TRANSPOSE>;
  using BlockRadixSortT = cub::BlockRadixSort<Key, BLOCK_THREADS, ITEMS_PER_THREAD>;
  using BlockStoreT = cub::BlockStore<Key, BLOCK_THREADS, ITEMS_PER_THREAD, cub::BLOCK_STORE_TRANSPOSE>;
  __shared__ union {
    typename BlockLoadT::TempStorage load;
    typename BlockRadixSortT::TempStorage sort;
    typename BlockStoreT::TempStorage store;
  } temp_storage;

  const int block_offset = blockIdx.x * (BLOCK_THREADS * ITEMS_PER_THREAD);
  Key thread_keys[ITEMS_PER_THREAD];
  BlockLoadT(temp_storage.load).Load(in + block_offset, thread_keys);
  __syncthreads();
  BlockRadixSortT(temp_storage.sort).Sort(thread_keys);
  __syncthreads();
  BlockStoreT(temp_storage.store).Store(out + block_offset, thread_keys);
}
template __global__ void block_sort<int, 128, 16>(int*, const int*);
template __global__ void block_sort<float, 64, 5>(float*, const float*);
template __global__ void block_sort<__half, 32, 3>(__half*, const __half*);

// The K largest logits of each row and their columns, ties to the lower column;
// a row shorter than the tile is padded with -infinity.
template <int THREADS, int ITEMS, int K>
__global__ void row_topk(float* top_values, int* top_indices, const float* logits, int cols) {
  using Sort = cub::BlockRadixSort<float, THREADS, ITEMS, int>;
  __shared__ typename Sort::TempStorage storage;
  const float* row = logits + static_cast<long>(blockIdx.x) * cols;
  float keys[ITEMS];
  int columns[ITEMS];
  for (int i = 0; i < ITEMS; i++) {
    const int c = threadIdx.x * ITEMS + i;
    keys[i] = c < cols ? row[c] : -INFINITY;
    columns[i] = c;
  }
  Sort(storage).SortDescending(keys, columns);
  for (int i = 0; i < ITEMS; i++) {
    const int rank = threadIdx.x * ITEMS + i;
    if (rank < K) {
      top_values[blockIdx.x * K + rank] = keys[i];
      top_indices[blockIdx.x * K + rank] = columns[i];
    }
  }
}
template __global__ void row_topk<64, 4, 10>(float*, int*, const float*, int);

// Sorts codes by their bits [begin_bit, end_bit) only, stably, carrying each
// code's position; the result is stored striped (coalesced).
template <int THREADS, int ITEMS>
__global__ void sort_bits_striped(unsigned* out, int* positions, const unsigned* in, int begin_bit, int end_bit) {
  using Sort = cub::BlockRadixSort<unsigned, THREADS, ITEMS, int>;
  __shared__ typename Sort::TempStorage storage;
  unsigned keys[ITEMS];
  int where[ITEMS];
  for (int i = 0; i < ITEMS; i++) {
    keys[i] = in[threadIdx.x * ITEMS + i];
    where[i] = threadIdx.x * ITEMS + i;
  }
  Sort(storage).SortBlockedToStriped(keys, where, begin_bit, end_bit);
  cub::StoreDirectStriped<THREADS>(threadIdx.x, out, keys);
  cub::StoreDirectStriped<THREADS>(threadIdx.x, positions, where);
}
template __global__ void sort_bits_striped<32, 7>(unsigned*, int*, const unsigned*, int, int);

struct ByMagnitude {
  __device__ bool operator()(const float& a, const float& b) const { return fabsf(a) < fabsf(b); }
};

// The first n values ordered by magnitude, with their positions; the rest of
// the tile is padded with the default key.
template <int THREADS, int ITEMS>
__global__ void merge_sort_by_magnitude(float* out, int* positions, const float* in, int n) {
  using Sort = cub::BlockMergeSort<float, THREADS, ITEMS, int>;
  __shared__ typename Sort::TempStorage storage;
  float keys[ITEMS];
  int where[ITEMS];
  for (int i = 0; i < ITEMS; i++) {
    const int at = threadIdx.x * ITEMS + i;
    keys[i] = at < n ? in[at] : 0.0f;
    where[i] = at;
  }
  Sort(storage).StableSort(keys, where, ByMagnitude(), n, INFINITY);
  for (int i = 0; i < ITEMS; i++) {
    const int at = threadIdx.x * ITEMS + i;
    if (at < n) {
      out[at] = keys[i];
      positions[at] = where[i];
    }
  }
}
template __global__ void merge_sort_by_magnitude<32, 5>(float*, int*, const float*, int);

// Loads striped, turns the items blocked, then warp-striped, and scatters them
// to the slots `ranks` gives: out[rank] = item, read back striped.
template <int THREADS, int ITEMS>
__global__ void exchanges(int* blocked, int* warp_striped, int* scattered, const int* in, const int* ranks) {
  using Exchange = cub::BlockExchange<int, THREADS, ITEMS>;
  __shared__ typename Exchange::TempStorage storage;
  int items[ITEMS], rank_of[ITEMS];
  cub::LoadDirectStriped<THREADS>(threadIdx.x, in, items);
  Exchange(storage).StripedToBlocked(items, items);
  for (int i = 0; i < ITEMS; i++) blocked[threadIdx.x * ITEMS + i] = items[i];
  __syncthreads();
  Exchange(storage).BlockedToWarpStriped(items);
  for (int i = 0; i < ITEMS; i++) warp_striped[threadIdx.x * ITEMS + i] = items[i];
  __syncthreads();
  cub::LoadDirectBlocked(threadIdx.x, ranks, rank_of);
  cub::LoadDirectBlocked(threadIdx.x, in, items);
  Exchange(storage).ScatterToStriped(items, items, rank_of);
  cub::StoreDirectStriped<THREADS>(threadIdx.x, scattered, items);
}
template __global__ void exchanges<64, 3>(int*, int*, int*, const int*, const int*);
