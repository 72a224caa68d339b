// Coalesced groups, the way CUDA's samples and stream-compaction code use them:
// warp-aggregated atomics through coalesced_threads() (one atomicAdd a warp
// instead of one a thread), buckets counted by labeled_partition's leaders, a
// warp split in two by binary_partition, and cg::reduce and cg::exclusive_scan
// over the lanes that took a branch.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>

namespace cg = cooperative_groups;

// The next free slot of *counter for each calling thread: the group's leader
// reserves one slot for each of its threads, and hands the base to the rest.
__device__ int atomic_agg_inc(int* counter) {
  cg::coalesced_group active = cg::coalesced_threads();
  int base;
  if (active.thread_rank() == 0) base = atomicAdd(counter, static_cast<int>(active.size()));
  base = active.shfl(base, 0);
  return base + active.thread_rank();
}

__global__ void compact_positive(int* out, int* count, const int* in, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && in[i] > 0) out[atomic_agg_inc(count)] = in[i];
}

// bins[b] counts the elements in bucket b; each warp adds once a bucket it holds.
__global__ void bucket_counts(int* bins, const int* bucket, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(cg::this_thread_block());
  const int label = i < n ? bucket[i] : -1;
  cg::coalesced_group same = cg::labeled_partition(warp, label);
  if (label >= 0 && same.thread_rank() == 0) atomicAdd(&bins[label], static_cast<int>(same.size()));
}

// For each element: its rank among the even (or odd) elements of its warp, and their count.
__global__ void parity_ranks(int* rank, int* size, const int* in, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(cg::this_thread_block());
  const int v = i < n ? in[i] : 0;
  cg::coalesced_group half = cg::binary_partition(warp, (v & 1) != 0);
  if (i < n) {
    rank[i] = half.thread_rank();
    size[i] = half.size();
  }
}

// Over the positive elements of each warp: their sum, each one's exclusive prefix,
// the number of them above 50 (a ballot of the group), and the next one's value.
__global__ void positive_lanes(int* sum, int* prefix, int* above, int* next, const int* in, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n || in[i] <= 0) return;
  cg::coalesced_group g = cg::coalesced_threads();
  const int v = in[i];
  sum[i] = cg::reduce(g, v, cg::plus<int>());
  prefix[i] = cg::exclusive_scan(g, v);
  above[i] = __popc(g.ballot(v > 50));
  const int after = g.shfl_down(v, 1);
  next[i] = g.thread_rank() + 1 < g.size() ? after : -1;
}

// The same group handed on as a cg::thread_group, as generic device code takes one.
__device__ int rank_and_size(cg::thread_group g) {
  g.sync();
  return static_cast<int>(g.thread_rank() * 1000 + g.size());
}

__global__ void odd_ranks(int* out, const int* in, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && (in[i] & 1) != 0) out[i] = rank_and_size(cg::coalesced_threads());
}
