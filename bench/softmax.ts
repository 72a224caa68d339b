// The emulator's barrier-heavy benchmark kernel: a row softmax with one thread
// per element and one row per block (1024-thread blocks for 1024 columns), as
// textbook CUDA writes it: the row's max, then its sum of exponentials, each a
// warp shuffle reduction, one value per warp through shared memory, and a
// second shuffle reduction in the first warp. Four barriers and ten shuffles a
// thread. Any warp size; columns a multiple of it, at most 1024.
export const SOFTMAX_ROWS = `
__device__ float warp_max(float v) {
  for (int o = warpSize / 2; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor(v, o));
  return v;
}
__device__ float warp_sum(float v) {
  for (int o = warpSize / 2; o > 0; o >>= 1) v += __shfl_xor(v, o);
  return v;
}
__global__ void softmax_rows(float* out, const float* in, int cols) {
  __shared__ float row_max[64], row_sum[64];
  const int lane = threadIdx.x % warpSize, warp = threadIdx.x / warpSize, warps = blockDim.x / warpSize;
  const float x = in[(size_t)blockIdx.x * cols + threadIdx.x];
  float m = warp_max(x);
  if (lane == 0) row_max[warp] = m;
  __syncthreads();
  if (warp == 0) {
    m = warp_max(lane < warps ? row_max[lane] : -INFINITY);
    if (lane == 0) row_max[0] = m;
  }
  __syncthreads();
  const float e = expf(x - row_max[0]);
  float s = warp_sum(e);
  if (lane == 0) row_sum[warp] = s;
  __syncthreads();
  if (warp == 0) {
    s = warp_sum(lane < warps ? row_sum[lane] : 0.0f);
    if (lane == 0) row_sum[0] = s;
  }
  __syncthreads();
  out[(size_t)blockIdx.x * cols + threadIdx.x] = e / row_sum[0];
}`;

/** Softmax of each row of a rows x cols matrix, in f64: the reference. */
export function softmaxRowsReference(input: ArrayLike<number>, rows: number, cols: number): Float64Array {
  const out = new Float64Array(rows * cols);
  for (let r = 0; r < rows; r++) {
    let max = -Infinity;
    for (let c = 0; c < cols; c++) max = Math.max(max, input[r * cols + c]);
    let sum = 0;
    for (let c = 0; c < cols; c++) sum += Math.exp(input[r * cols + c] - max);
    for (let c = 0; c < cols; c++) out[r * cols + c] = Math.exp(input[r * cols + c] - max) / sum;
  }
  return out;
}
