// A sum reduction in the style of the CUDA samples' later steps: each thread
// first adds pairs of elements in a grid-stride loop, the block reduces in
// shared memory down to one warp, and the last warp finishes with shuffles.
// The block size is a template parameter, so the unrolled steps fold away.
template <unsigned int blockSize, bool nIsPow2>
__global__ void reduce_sum(const float* __restrict__ g_idata, float* __restrict__ g_odata, unsigned int n) {
  __shared__ float sdata[blockSize];
  const unsigned int tid = threadIdx.x;
  const unsigned int gridSize = blockSize * 2 * gridDim.x;
  unsigned int i = blockIdx.x * blockSize * 2 + threadIdx.x;
  float mySum = 0.0f;
  while (i < n) {
    mySum += g_idata[i];
    if (nIsPow2 || i + blockSize < n) mySum += g_idata[i + blockSize];
    i += gridSize;
  }
  sdata[tid] = mySum;
  __syncthreads();
  if (blockSize >= 512 && tid < 256) sdata[tid] = mySum = mySum + sdata[tid + 256];
  __syncthreads();
  if (blockSize >= 256 && tid < 128) sdata[tid] = mySum = mySum + sdata[tid + 128];
  __syncthreads();
  if (blockSize >= 128 && tid < 64) sdata[tid] = mySum = mySum + sdata[tid + 64];
  __syncthreads();
  if (tid < 32) {
    if (blockSize >= 64) mySum += sdata[tid + 32];
    for (int offset = 32 / 2; offset > 0; offset /= 2) mySum += __shfl_down_sync(0xffffffff, mySum, offset);
  }
  if (tid == 0) g_odata[blockIdx.x] = mySum;
}
