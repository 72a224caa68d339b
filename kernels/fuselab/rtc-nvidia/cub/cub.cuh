// <cub/cub.cuh> for run-time compiled kernels: the toolkit's block, warp and thread
// primitives, which NVRTC compiles. The umbrella header also brings cub's
// device-wide algorithms, whose host launch code NVRTC refuses; a kernel has no
// use for them (launches come from TS).
#ifndef FUSELAB_RTC_CUB_CUB_CUH
#define FUSELAB_RTC_CUB_CUB_CUH
#include <cfloat>  // as nvcc's cub brings it (util_type.cuh): sources using cub take FLT_MAX from there
#include <fuselab/thrust_functional.h>  // thrust's function objects, which sources pass to cub
#include <cub/config.cuh>
#include <cub/block/block_adjacent_difference.cuh>
#include <cub/block/block_discontinuity.cuh>
#include <cub/block/block_exchange.cuh>
#include <cub/block/block_histogram.cuh>
#include <cub/block/block_load.cuh>
#include <cub/block/block_merge_sort.cuh>
#include <cub/block/block_radix_rank.cuh>
#include <cub/block/block_radix_sort.cuh>
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/block/block_store.cuh>
#include <cub/thread/thread_load.cuh>
#include <cub/thread/thread_operators.cuh>
#include <cub/thread/thread_reduce.cuh>
#include <cub/thread/thread_scan.cuh>
#include <cub/thread/thread_store.cuh>
#include <cub/warp/warp_exchange.cuh>
#include <cub/warp/warp_load.cuh>
#include <cub/warp/warp_merge_sort.cuh>
#include <cub/warp/warp_reduce.cuh>
#include <cub/warp/warp_scan.cuh>
#include <cub/warp/warp_store.cuh>
#include <cub/util_ptx.cuh>
#include <cub/util_type.cuh>

// cub 3 (CUDA 13) removed the function objects cub::Sum, cub::Max, cub::Min,
// cub::Equality and cub::Inequality (use cuda::std::plus, cuda::maximum ...),
// which sources written for CUDA 12 and before pass to BlockReduce, WarpReduce
// and BlockDiscontinuity, and cub's barrier and lane helpers. They are kept here.
#if CUB_VERSION >= 300000
namespace cub {
struct Sum {
  template <typename T, typename U>
  __host__ __device__ __forceinline__ auto operator()(const T& a, const U& b) const -> decltype(a + b) { return a + b; }
};
struct Max {
  template <typename T, typename U>
  __host__ __device__ __forceinline__ typename ::cuda::std::common_type<T, U>::type operator()(const T& a, const U& b) const {
    return a < b ? b : a;
  }
};
struct Min {
  template <typename T, typename U>
  __host__ __device__ __forceinline__ typename ::cuda::std::common_type<T, U>::type operator()(const T& a, const U& b) const {
    return b < a ? b : a;
  }
};
struct Equality {
  template <typename T, typename U>
  __host__ __device__ __forceinline__ bool operator()(const T& a, const U& b) const { return a == b; }
};
struct Inequality {
  template <typename T, typename U>
  __host__ __device__ __forceinline__ bool operator()(const T& a, const U& b) const { return a != b; }
};

// The barrier, warp and arithmetic helpers cub 3 removed, which cub 1 and 2 sources call.
__device__ __forceinline__ void CTA_SYNC() { __syncthreads(); }
__device__ __forceinline__ int CTA_SYNC_AND(int p) { return __syncthreads_and(p); }
__device__ __forceinline__ int CTA_SYNC_OR(int p) { return __syncthreads_or(p); }
__device__ __forceinline__ void WARP_SYNC(unsigned int member_mask) { __syncwarp(member_mask); }
__device__ __forceinline__ unsigned int LaneId() { return ::cuda::ptx::get_sreg_laneid(); }
__device__ __forceinline__ unsigned int WarpId() { return ::cuda::ptx::get_sreg_warpid(); }
template <typename Numerator, typename Denominator>
__host__ __device__ __forceinline__ constexpr Numerator DivideAndRoundUp(Numerator n, Denominator d) {
  return static_cast<Numerator>(n / d + (n % d != 0 ? 1 : 0));
}
}  // namespace cub
#include <fuselab/cub_removed_macros.h>
#endif
#endif
