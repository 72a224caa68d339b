// Kernels of a PyTorch extension written as operator libraries of the PyTorch 1
// era write them (detection and point-cloud ops): THC's atomics header, ATen's
// apply utilities, the grid-stride CUDA_KERNEL_LOOP, C10_LAUNCH_BOUNDS_1, the
// scalar type by value (at::Half from AT_DISPATCH_FLOATING_TYPES_AND_HALF), and
// c10's math compatibility functions.
#include <ATen/ATen.h>
#include <ATen/cuda/CUDAContext.h>
#include <ATen/cuda/CUDAApplyUtils.cuh>
#include <ATen/cuda/detail/KernelUtils.h>
#include <ATen/native/cuda/KernelUtils.cuh>
#include <ATen/ceil_div.h>
#include <THC/THCAtomics.cuh>
#include <c10/cuda/CUDAMathCompat.h>

#define THREADS_PER_BLOCK 256

// y = x * scale + offset, element by element, scale and offset by value.
template <typename T>
__global__ void C10_LAUNCH_BOUNDS_1(THREADS_PER_BLOCK)
    scale_offset_kernel(const int nthreads, const T* input, const T scale, const T offset, T* output) {
  CUDA_KERNEL_LOOP(index, nthreads) {
    output[index] = input[index] * scale + offset;
  }
}

// out[bins[i]] += weights[i] (null weights: 1), with at::native's atomic add.
template <typename T>
__global__ void bin_sum_kernel(const int64_t n, const int64_t* bins, const T* weights, T* out, const int64_t nbins) {
  CUDA_KERNEL_LOOP_TYPE(i, n, int64_t) {
    const T w = weights == nullptr ? T(1) : weights[i];
    at::native::fastAtomicAdd(out, bins[i], nbins, w, true);
  }
}

// A softplus with c10::cuda::compat's functions, and a column count by at::ceil_div.
__global__ void softplus_kernel(const int n, const float* x, float* y, int* tiles) {
  CUDA_KERNEL_LOOP(i, n) {
    y[i] = c10::cuda::compat::log1p(c10::cuda::compat::exp(-c10::cuda::compat::abs(x[i]))) + c10::cuda::compat::max(x[i], 0.0f);
  }
  if (blockIdx.x == 0 && threadIdx.x == 0) tiles[0] = at::ceil_div(n, 32) + at::cuda::ATenCeilDiv(n, 64) * 1000;
}

// The host side, as such a library writes it: dispatch, launch, error check.
at::Tensor scale_offset_cuda(const at::Tensor& input, double scale, double offset) {
  at::Tensor output = at::empty_like(input);
  const int n = input.numel();
  AT_DISPATCH_FLOATING_TYPES_AND_HALF(input.scalar_type(), "scale_offset_cuda", [&] {
    scale_offset_kernel<scalar_t><<<at::cuda::detail::GET_BLOCKS(n), THREADS_PER_BLOCK, 0, at::cuda::getCurrentCUDAStream()>>>(
        n, input.data_ptr<scalar_t>(), static_cast<scalar_t>(scale), static_cast<scalar_t>(offset), output.data_ptr<scalar_t>());
  });
  AT_CUDA_CHECK(cudaGetLastError());
  return output;
}
