// The names cub 3 (CUDA 13) removed, for sources written for cub 1 and 2, under
// NVRTC: the umbrella <cub/cub.cuh> includes it, and fl.compile adds it after a
// source's #include of any other of cub's headers (<cub/block/block_reduce.cuh>).
#ifndef FUSELAB_CUB_REMOVED_H
#define FUSELAB_CUB_REMOVED_H
#include <cub/version.cuh>
#include <cuda/std/type_traits>
// cub 3 (CUDA 13) removed the function objects cub::Sum, cub::Max, cub::Min,
// cub::Equality and cub::Inequality (use cuda::std::plus, cuda::maximum ...),
// which sources written for CUDA 12 and before pass to BlockReduce, WarpReduce
// and BlockDiscontinuity, and cub's barrier and lane helpers. They are kept here.
#if CUB_VERSION >= 300000
#include <cuda/ptx>
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
