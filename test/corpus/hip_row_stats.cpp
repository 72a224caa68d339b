// Row sums and row maxima written as HIP's samples and ROCm projects write
// them: <hip/hip_runtime.h>, hipCUB's block reduction, bf16 through
// <hip/hip_bf16.h>, the hipThreadIdx_x spellings, dynamic shared memory through
// HIP_DYNAMIC_SHARED, HIP's maskless __shfl_xor, and a main() that sets up and
// launches with the HIP runtime, which fl.compile leaves out as host code.
#include <hip/hip_runtime.h>
#include <hip/hip_bf16.h>
#include <hipcub/hipcub.hpp>
#include <cmath>
#include <iostream>
#include <vector>

#define HIP_CHECK(command)                                              \
  do {                                                                  \
    hipError_t status = (command);                                      \
    if (status != hipSuccess) {                                         \
      std::cerr << "HIP error: " << hipGetErrorString(status) << "\n";  \
      std::exit(EXIT_FAILURE);                                          \
    }                                                                   \
  } while (0)

template <int BLOCK_SIZE>
__global__ void row_sum_bf16(float* sums, const __hip_bfloat16* x, int cols) {
  typedef hipcub::BlockReduce<float, BLOCK_SIZE> BlockReduce;
  __shared__ typename BlockReduce::TempStorage temp_storage;
  const __hip_bfloat16* row = x + static_cast<size_t>(hipBlockIdx_x) * cols;
  float sum = 0.0f;
  for (int c = hipThreadIdx_x; c < cols; c += BLOCK_SIZE) sum += __bfloat162float(row[c]);
  const float total = BlockReduce(temp_storage).Sum(sum);
  if (hipThreadIdx_x == 0) sums[hipBlockIdx_x] = total;
}

__global__ void row_max(float* maxima, const float* x, int cols) {
  HIP_DYNAMIC_SHARED(float, warp_max)
  const float* row = x + static_cast<size_t>(blockIdx.x) * cols;
  float m = -INFINITY;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) m = fmaxf(m, row[c]);
  for (int offset = warpSize / 2; offset > 0; offset /= 2) m = fmaxf(m, __shfl_xor(m, offset));
  const int lane = threadIdx.x % warpSize, warp = threadIdx.x / warpSize;
  if (lane == 0) warp_max[warp] = m;
  __syncthreads();
  if (threadIdx.x == 0) {
    float result = warp_max[0];
    for (int w = 1; w < (blockDim.x + warpSize - 1) / warpSize; ++w) result = fmaxf(result, warp_max[w]);
    maxima[blockIdx.x] = result;
  }
}

int main() {
  const int rows = 64, cols = 1000, threads = 256;
  std::vector<float> host(rows * cols, 1.0f), maxima(rows);
  float *d_x = nullptr, *d_max = nullptr;
  HIP_CHECK(hipMalloc(&d_x, host.size() * sizeof(float)));
  HIP_CHECK(hipMalloc(&d_max, rows * sizeof(float)));
  HIP_CHECK(hipMemcpy(d_x, host.data(), host.size() * sizeof(float), hipMemcpyHostToDevice));
  hipLaunchKernelGGL(row_max, dim3(rows), dim3(threads), threads / 32 * sizeof(float), 0, d_max, d_x, cols);
  HIP_CHECK(hipGetLastError());
  HIP_CHECK(hipMemcpy(maxima.data(), d_max, rows * sizeof(float), hipMemcpyDeviceToHost));
  std::cout << "max of row 0: " << maxima[0] << "\n";
  HIP_CHECK(hipFree(d_x));
  HIP_CHECK(hipFree(d_max));
  return 0;
}
