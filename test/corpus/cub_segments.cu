// Segments, runs and counts with cub, as histogram, run-length and routing
// kernels write them: a block histogram added into a global one; run heads
// and tails across tiles; delta encoding; sums of flagged segments within a
// warp; the arg-max of each row as a key-value reduction (a router's top-1);
// and cub 1's helpers (CTA_SYNC, LaneId, ThreadLoad, DivideAndRoundUp) with
// __syncthreads_count and __syncthreads_or.
#include <climits>
#include <cub/cub.cuh>

// 256 bins of byte values; each block counts its tile in shared memory.
template <int THREADS, int ITEMS, cub::BlockHistogramAlgorithm ALGORITHM>
__global__ void byte_histogram(unsigned int* histogram, const unsigned char* bytes, int n) {
  using Histogram = cub::BlockHistogram<unsigned char, THREADS, ITEMS, 256, ALGORITHM>;
  __shared__ typename Histogram::TempStorage storage;
  __shared__ unsigned int block_counts[256];
  const int tile = blockIdx.x * THREADS * ITEMS;
  unsigned char items[ITEMS];
  // Items past the end are counted in bin 0 and taken off again below.
  cub::LoadDirectBlocked(threadIdx.x, bytes + tile, items, n - tile, static_cast<unsigned char>(0));
  Histogram(storage).Histogram(items, block_counts);
  __syncthreads();
  const int padding = tile + THREADS * ITEMS > n ? tile + THREADS * ITEMS - n : 0;
  for (int bin = threadIdx.x; bin < 256; bin += THREADS)
    atomicAdd(&histogram[bin], block_counts[bin] - (bin == 0 ? padding : 0));
}
template __global__ void byte_histogram<64, 4, cub::BLOCK_HISTO_ATOMIC>(unsigned int*, const unsigned char*, int);
template __global__ void byte_histogram<128, 2, cub::BLOCK_HISTO_SORT>(unsigned int*, const unsigned char*, int);

// heads[i] = 1 where a run of equal keys starts, tails[i] = 1 where one ends,
// across the tiles of all blocks (each tile compares with its neighbours').
template <int THREADS, int ITEMS>
__global__ void run_flags(int* heads, int* tails, const int* keys, int n) {
  using Discontinuity = cub::BlockDiscontinuity<int, THREADS>;
  __shared__ typename Discontinuity::TempStorage storage;
  const int tile = blockIdx.x * THREADS * ITEMS;
  int items[ITEMS], head[ITEMS], tail[ITEMS];
  cub::LoadDirectBlocked(threadIdx.x, keys + tile, items, n - tile, INT_MAX);
  const int before = tile > 0 ? keys[tile - 1] : 0;
  const int after = tile + THREADS * ITEMS < n ? keys[tile + THREADS * ITEMS] : INT_MAX;
  if (tile > 0) Discontinuity(storage).FlagHeadsAndTails(head, before, tail, after, items, cub::Inequality());
  else Discontinuity(storage).FlagHeadsAndTails(head, tail, after, items, cub::Inequality());
  for (int i = 0; i < ITEMS; i++) {
    const int at = tile + threadIdx.x * ITEMS + i;
    if (at < n) {
      heads[at] = head[i];
      tails[at] = at == n - 1 ? 1 : tail[i];
    }
  }
}
template __global__ void run_flags<32, 3>(int*, int*, const int*, int);

// A flag op that also takes the index of its second item: flags every item at
// a multiple of `period` in the tile, and every change of sign.
struct SignChangeOrPeriod {
  int period;
  __device__ bool operator()(const float& a, const float& b, int b_index) const {
    return b_index % period == 0 || (a < 0.0f) != (b < 0.0f);
  }
};
template <int THREADS, int ITEMS>
__global__ void sign_heads(int* heads, const float* x, int period) {
  using Discontinuity = cub::BlockDiscontinuity<float, THREADS>;
  __shared__ typename Discontinuity::TempStorage storage;
  float items[ITEMS];
  int head[ITEMS];
  cub::LoadDirectBlocked(threadIdx.x, x, items);
  Discontinuity(storage).FlagHeads(head, items, SignChangeOrPeriod{period});
  cub::StoreDirectBlocked(threadIdx.x, heads, head);
}
template __global__ void sign_heads<32, 4>(int*, const float*, int);

// Delta encoding: d[i] = x[i] - x[i - 1], the first item kept; the next tile
// continues from its predecessor. The last, partial tile leaves the items past n
// as they were.
struct Minus {
  __device__ int operator()(const int& a, const int& b) const { return a - b; }
};
template <int THREADS, int ITEMS>
__global__ void delta_encode(int* deltas, int* backward, const int* x, int n) {
  using Adjacent = cub::BlockAdjacentDifference<int, THREADS>;
  __shared__ typename Adjacent::TempStorage storage;
  const int tile = blockIdx.x * THREADS * ITEMS;
  const int valid = n - tile < THREADS * ITEMS ? n - tile : THREADS * ITEMS;
  int items[ITEMS], d[ITEMS];
  cub::LoadDirectBlocked(threadIdx.x, x + tile, items, valid, 0);
  if (tile == 0) Adjacent(storage).SubtractLeftPartialTile(items, d, Minus(), valid);
  else Adjacent(storage).SubtractLeftPartialTile(items, d, Minus(), valid, x[tile - 1]);
  cub::StoreDirectBlocked(threadIdx.x, deltas + tile, d, valid);
  __syncthreads();
  // And x[i] - x[i + 1] within the tile, the last valid item kept.
  Adjacent(storage).SubtractRightPartialTile(items, d, Minus(), valid);
  cub::StoreDirectBlocked(threadIdx.x, backward + tile, d, valid);
}
template __global__ void delta_encode<32, 3>(int*, int*, const int*, int);

// Sums of segments within each warp: heads mark where a segment starts. The sum
// of a segment lands in its first lane; the tail-flagged form likewise.
__global__ void warp_segment_sums(int* head_sums, int* tail_sums, const int* x, const int* head_flags, int n) {
  using WarpReduce = cub::WarpReduce<int>;
  __shared__ typename WarpReduce::TempStorage storage[4];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int value = i < n ? x[i] : 0;
  const int head = i < n ? head_flags[i] : 1;
  const int lane = threadIdx.x % 32;
  // A lane is a tail when the next lane starts a segment, or it ends the warp.
  const int next_head = __shfl_down_sync(0xffffffff, head, 1);
  const int tail = lane == 31 || next_head;
  const int by_head = WarpReduce(storage[threadIdx.x / 32]).HeadSegmentedSum(value, head);
  const int by_tail = WarpReduce(storage[threadIdx.x / 32]).TailSegmentedSum(value, tail);
  if (i < n) {
    head_sums[i] = head || lane == 0 ? by_head : -1;
    tail_sums[i] = head || lane == 0 ? by_tail : -1;
  }
}

// A router's top-1: the largest logit of each row and its column (the first
// on a tie), by a block-wide cub::ArgMax reduction over key-value pairs; and
// the row's smallest by a warp's cub::ArgMin.
template <int THREADS>
__global__ void row_argmax(int* best_column, float* best_value, int* worst_column, const float* logits, int cols) {
  using Pair = cub::KeyValuePair<int, float>;
  using BlockReduce = cub::BlockReduce<Pair, THREADS>;
  using WarpReduce = cub::WarpReduce<Pair>;
  __shared__ typename BlockReduce::TempStorage block_storage;
  __shared__ typename WarpReduce::TempStorage warp_storage;
  const float* row = logits + static_cast<long>(blockIdx.x) * cols;
  Pair best(-1, -INFINITY);
  for (int c = threadIdx.x; c < cols; c += THREADS) best = cub::ArgMax()(best, Pair(c, row[c]));
  const Pair top = BlockReduce(block_storage).Reduce(best, cub::ArgMax());
  if (threadIdx.x == 0) {
    best_column[blockIdx.x] = top.key;
    best_value[blockIdx.x] = top.value;
  }
  if (threadIdx.x < 32) {
    Pair worst(-1, INFINITY);
    for (int c = threadIdx.x; c < cols; c += 32) worst = cub::ArgMin()(worst, Pair(c, row[c]));
    const Pair bottom = WarpReduce(warp_storage).Reduce(worst, cub::ArgMin());
    if (threadIdx.x == 0) worst_column[blockIdx.x] = bottom.key;
  }
}
template __global__ void row_argmax<128>(int*, float*, int*, const float*, int);

// Counts the positive values of each block with __syncthreads_count, says with
// __syncthreads_or whether any exceeds a limit, and with cub 1's helpers writes
// each warp's lane count and the number of tiles.
__global__ void block_votes(int* positives, int* any_above, int* lanes, const float* x, int n, float limit) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const float v = i < n ? cub::ThreadLoad<cub::LOAD_LDG>(x + i) : 0.0f;
  const int count = __syncthreads_count(v > 0.0f);
  const int above = __syncthreads_or(v > limit);
  cub::CTA_SYNC();
  if (threadIdx.x == 0) {
    positives[blockIdx.x] = count;
    any_above[blockIdx.x] = above;
  }
  if (cub::LaneId() == 0 && i < n) lanes[i / 32] = cub::DivideAndRoundUp(n - i, 32);
}
