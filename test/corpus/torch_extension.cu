// A PyTorch C++/CUDA extension's kernel file, as extensions are written: the
// torch headers, kernels templated on scalar_t, tensor accessors, host
// functions that check tensors, dispatch on their dtype and launch, and the
// Python binding. fl.compile takes the kernels; the host code is PyTorch's.
#include <ATen/Operators.h>
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#include <ATen/cuda/DeviceUtils.cuh>
#include <ATen/cuda/Atomic.cuh>
#include <c10/cuda/CUDAGuard.h>
#include <torch/cuda.h>
#include <torch/headeronly/util/Half.h>
#include <torch/headeronly/util/BFloat16.h>
#include <cuda.h>
#include <cuda_runtime.h>
#include <vector>

// PyTorch 2.9's header-only names are c10's types.
static_assert(sizeof(torch::headeronly::Half) == 2 && sizeof(torch::headeronly::BFloat16) == 2, "16-bit types");

#define CHECK_CUDA(x) TORCH_CHECK(x.device().is_cuda(), #x " must be a CUDA tensor")
#define CHECK_CONTIGUOUS(x) TORCH_CHECK(x.is_contiguous(), #x " must be contiguous")
#define CHECK_INPUT(x) \
  CHECK_CUDA(x);       \
  CHECK_CONTIGUOUS(x)

namespace {

template <typename scalar_t>
__device__ __forceinline__ scalar_t sigmoid(scalar_t z) {
  return 1.0 / (1.0 + exp(-z));
}

// A gated update over [batch, 3, state] gates: one thread an element of the state.
template <typename scalar_t>
__global__ void gated_update_kernel(const torch::PackedTensorAccessor32<scalar_t, 3, torch::RestrictPtrTraits> gates,
                                    const torch::PackedTensorAccessor32<scalar_t, 2, torch::RestrictPtrTraits> old_cell,
                                    torch::PackedTensorAccessor32<scalar_t, 2, torch::RestrictPtrTraits> new_h,
                                    torch::PackedTensorAccessor32<scalar_t, 2, torch::RestrictPtrTraits> new_cell) {
  const int n = blockIdx.y;
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c < gates.size(2)) {
    const scalar_t input_gate = sigmoid(gates[n][0][c]);
    const scalar_t output_gate = sigmoid(gates[n][1][c]);
    const scalar_t candidate = tanh(gates[n][2][c]);
    new_cell[n][c] = old_cell[n][c] + candidate * input_gate;
    new_h[n][c] = tanh(new_cell[n][c]) * output_gate;
  }
}

// A transpose through accessors of the index type the extension tutorial's once took: size_t.
template <typename scalar_t>
__global__ void transpose_kernel(const torch::PackedTensorAccessor<scalar_t, 2, torch::RestrictPtrTraits, size_t> in,
                                 torch::PackedTensorAccessor<scalar_t, 2, torch::RestrictPtrTraits, size_t> out) {
  const int r = blockIdx.y, c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c < in.size(1)) out[c][r] = in[r][c];
}

}  // namespace

// c10 declares __ldg of a Half for CUDA only: a ROCm build defines its own, as
// torch_sparse's utils.cuh does.
#if defined(USE_ROCM) || defined(__HIP__)
__device__ __inline__ at::Half __ldg(const at::Half* ptr) { return *ptr; }
#endif

namespace ext {

// RMS norm over the last dimension, computed in opmath_type (float for c10::Half),
// rounded to scalar_t at each store as PyTorch's own kernels do.
template <typename scalar_t>
__global__ void rms_norm_kernel(scalar_t* __restrict__ out, const scalar_t* __restrict__ input,
                                const scalar_t* __restrict__ weight, const float epsilon, const int hidden_size) {
  using acc_t = at::opmath_type<scalar_t>;
  __shared__ acc_t partial[32];
  __shared__ acc_t inv_rms;
  const scalar_t* row = input + (int64_t)blockIdx.x * hidden_size;
  acc_t sum = 0;
  for (int i = threadIdx.x; i < hidden_size; i += blockDim.x) {
    const acc_t x = static_cast<acc_t>(row[i]);
    sum += x * x;
  }
  for (int offset = C10_WARP_SIZE / 2; offset > 0; offset /= 2) sum += WARP_SHFL_XOR(sum, offset);
  const int warp = threadIdx.x / C10_WARP_SIZE, lane = threadIdx.x % C10_WARP_SIZE;
  if (lane == 0) partial[warp] = sum;
  __syncthreads();
  if (threadIdx.x == 0) {
    acc_t total = 0;
    for (int w = 0; w < (blockDim.x + C10_WARP_SIZE - 1) / C10_WARP_SIZE; ++w) total += partial[w];
    inv_rms = rsqrtf(total / hidden_size + epsilon);
  }
  __syncthreads();
  for (int i = threadIdx.x; i < hidden_size; i += blockDim.x) {
    out[(int64_t)blockIdx.x * hidden_size + i] = static_cast<scalar_t>(static_cast<acc_t>(row[i]) * inv_rms) * weight[i];
  }
}

// out = x * alpha + y - x / 2: the first two steps in scalar_t (each rounded); the
// last in float where scaled > x or scaled <= -1 (with a c10::Half, Half op float
// is float), rounded at the store, else in scalar_t (x / 2 is exact either way).
template <typename scalar_t>
__global__ void axpby_kernel(scalar_t* __restrict__ out, const scalar_t* __restrict__ x, const scalar_t* __restrict__ y,
                             const float alpha, const int64_t n) {
  const int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (i < n) {
    scalar_t scaled = x[i] * static_cast<scalar_t>(alpha);
    scaled += y[i];
    if (scaled > x[i] || scaled <= -1) out[i] = scaled - x[i] * 0.5f;
    else out[i] = scaled - x[i] / 2;
  }
}

// Column sums of a [rows, cols] matrix, accumulated atomically as a backward pass
// accumulates a weight's gradient.
template <typename scalar_t>
__global__ void column_sum_kernel(const torch::PackedTensorAccessor64<scalar_t, 2> x, scalar_t* __restrict__ sums) {
  const int64_t r = blockIdx.y, c = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (c < x.size(1)) gpuAtomicAdd(&sums[c], __ldg(&x[r][c]));
}

// Row maxima started from -infinity, as softmax kernels start them; block 0 also
// writes the type's limits.
template <typename scalar_t>
__global__ void row_max_kernel(const scalar_t* __restrict__ x, scalar_t* __restrict__ maxima, scalar_t* __restrict__ limits,
                               const int rows, const int cols) {
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r == 0) {
    using limits_t = std::numeric_limits<scalar_t>;
    const scalar_t all[] = {limits_t::lowest(), limits_t::max(), limits_t::min(), limits_t::epsilon(), limits_t::denorm_min(),
                            limits_t::infinity(), -limits_t::infinity()};
    for (int i = 0; i < 7; ++i) limits[i] = all[i];
  }
  if (r >= rows) return;
  scalar_t m = -std::numeric_limits<scalar_t>::infinity();
  for (int c = 0; c < cols; ++c) m = x[r * cols + c] > m ? x[r * cols + c] : m;
  maxima[r] = m;
}

}  // namespace ext

torch::Tensor d_sigmoid(torch::Tensor z) {
  auto s = torch::sigmoid(z);
  return (1 - s) * s;
}

std::vector<torch::Tensor> gated_update(torch::Tensor gates, torch::Tensor old_cell) {
  CHECK_INPUT(gates);
  CHECK_INPUT(old_cell);
  const auto batch = gates.size(0);
  const auto state = gates.size(2);
  auto new_h = torch::empty_like(old_cell);
  auto new_cell = torch::empty_like(old_cell);
  const int threads = 1024;
  const dim3 blocks((state + threads - 1) / threads, batch);
  AT_DISPATCH_FLOATING_TYPES(gates.scalar_type(), "gated_update", ([&] {
    gated_update_kernel<scalar_t><<<blocks, threads>>>(
        gates.packed_accessor32<scalar_t, 3, torch::RestrictPtrTraits>(),
        old_cell.packed_accessor32<scalar_t, 2, torch::RestrictPtrTraits>(),
        new_h.packed_accessor32<scalar_t, 2, torch::RestrictPtrTraits>(),
        new_cell.packed_accessor32<scalar_t, 2, torch::RestrictPtrTraits>());
  }));
  return {new_h, new_cell};
}

void rms_norm(torch::Tensor& out, torch::Tensor& input, torch::Tensor& weight, double epsilon) {
  CHECK_INPUT(input);
  const int hidden_size = input.size(-1);
  const int tokens = input.numel() / hidden_size;
  const at::cuda::OptionalCUDAGuard device_guard(device_of(input));
  const cudaStream_t stream = at::cuda::getCurrentCUDAStream();
  AT_DISPATCH_FLOATING_TYPES_AND2(at::ScalarType::Half, at::ScalarType::BFloat16, input.scalar_type(), "rms_norm", [&] {
    ext::rms_norm_kernel<scalar_t><<<tokens, std::min(hidden_size, 1024), 0, stream>>>(
        out.data_ptr<scalar_t>(), input.data_ptr<scalar_t>(), weight.data_ptr<scalar_t>(), epsilon, hidden_size);
  });
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}

// Bindings written once for each dtype through a macro, as kernel collections write them.
#define BIND_ROW_MAX(tag, type)                                                                  \
  void row_max_##tag(torch::Tensor x, torch::Tensor maxima, torch::Tensor limits) {              \
    const int rows = x.size(0), cols = x.size(1);                                              \
    ext::row_max_kernel<type><<<(rows + 127) / 128, 128>>>(                                    \
        x.data_ptr<type>(), maxima.data_ptr<type>(), limits.data_ptr<type>(), rows, cols);     \
  }
BIND_ROW_MAX(f32, float)
BIND_ROW_MAX(f16, at::Half)
extern void row_max_bf16(torch::Tensor x, torch::Tensor maxima, torch::Tensor limits);

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.def("gated_update", &gated_update, "gated state update (CUDA)");
  m.def("rms_norm", &rms_norm, "RMS norm (CUDA)");
}
