// An extension written against PyTorch's stable ABI (PyTorch 2.9 on), as current
// torchvision writes its ops: host code on torch::stable::Tensor and the AOT shim,
// dispatched with THO_DISPATCH_V2 and registered with STABLE_TORCH_LIBRARY_IMPL, and a
// kernel using the header-only API's fastAtomicAdd. The pooled gradients of an ROI
// max-pool go back to the input elements their argmax names.
#include <float.h>

#include <torch/csrc/inductor/aoti_torch/c/shim.h>
#include <torch/csrc/stable/accelerator.h>
#include <torch/csrc/stable/library.h>
#include <torch/csrc/stable/macros.h>
#include <torch/csrc/stable/ops.h>
#include <torch/csrc/stable/tensor.h>
#include <torch/headeronly/core/Dispatch_v2.h>
#include <torch/headeronly/core/ScalarType.h>
#include <torch/headeronly/cuda/AtomicAdd.h>
#include <torch/headeronly/util/Exception.h>

#include <cuda_runtime.h>

#include <algorithm>
#include <tuple>

// The project's own helpers, as torchvision's cuda_helpers.h writes them.
template <typename integer>
constexpr __host__ __device__ inline integer ceil_div(integer n, integer m) {
  return (n + m - 1) / m;
}
#define CUDA_1D_KERNEL_LOOP(i, n) \
  for (int i = (blockIdx.x * blockDim.x) + threadIdx.x; i < (n); i += (blockDim.x * gridDim.x))

namespace pooling {
namespace {

using torch::stable::Tensor;

// Scatters each pooled gradient back to the input element its argmax names.
template <typename T>
__global__ void scatter_back(int nthreads, const T* grad_output, const int* argmax, int channels, int plane,
                             int pooled, T* grad_input, const T* rois, const int memory_span) {
  CUDA_1D_KERNEL_LOOP(index, nthreads) {
    int c = (index / pooled) % channels;
    int n = index / pooled / channels;
    int batch = rois[n * 5];
    if (argmax[index] != -1) {
      torch::headeronly::fastAtomicAdd(grad_input, (batch * channels + c) * plane + argmax[index], memory_span,
                                       static_cast<T>(grad_output[index]), true);
    }
  }
}

template <typename scalar_t>
void launch_scatter_back(dim3 grid, dim3 block, cudaStream_t stream, int n, const scalar_t* g, const int* a, int c,
                         int plane, int pooled, scalar_t* gi, const scalar_t* rois, int span) {
  scatter_back<scalar_t><<<grid, block, 0, stream>>>(n, g, a, c, plane, pooled, gi, rois, span);
}

Tensor scatter_back_kernel(const Tensor& grad, const Tensor& rois, const Tensor& argmax, int64_t batch_size,
                           int64_t channels, int64_t height, int64_t width) {
  STD_TORCH_CHECK(grad.is_cuda(), "grad must be a CUDA tensor");
  torch::stable::accelerator::DeviceGuard device_guard(grad.get_device_index());
  Tensor grad_input = torch::stable::new_zeros(grad, {batch_size, channels, height, width});
  void* stream_ptr = nullptr;
  TORCH_ERROR_CODE_CHECK(aoti_torch_get_current_cuda_stream(grad.get_device_index(), &stream_ptr));
  cudaStream_t stream = static_cast<cudaStream_t>(stream_ptr);
  dim3 grid(std::min(ceil_div(static_cast<int64_t>(grad.numel()), static_cast<int64_t>(512)), static_cast<int64_t>(4096)));
  THO_DISPATCH_V2(
      grad.scalar_type(), "scatter_back",
      AT_WRAP([&]() {
        launch_scatter_back<scalar_t>(grid, dim3(512), stream, grad.numel(), grad.const_data_ptr<scalar_t>(),
                                      argmax.const_data_ptr<int>(), channels, height * width,
                                      grad.size(2) * grad.size(3), grad_input.mutable_data_ptr<scalar_t>(),
                                      rois.const_data_ptr<scalar_t>(), grad_input.numel());
      }),
      AT_EXPAND(AT_FLOATING_TYPES), torch::headeronly::ScalarType::Half);
  STD_CUDA_KERNEL_LAUNCH_CHECK();
  return grad_input;
}

}  // namespace

STABLE_TORCH_LIBRARY_IMPL(pooling, CUDA, m) {
  m.impl("_scatter_back", TORCH_BOX(&scatter_back_kernel));
}

}  // namespace pooling
