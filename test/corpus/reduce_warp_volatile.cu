// Sum and max reductions as the pre-Volta tutorials finish them: the block
// halves in shared memory down to 64 values, then the first warp goes on with
// no barrier, reading through a volatile pointer so that each step sees the
// last one's stores (warp-synchronous code: the lanes of a warp execute each
// step together). One kernel takes its volatile pointer as a template helper's
// parameter, the other declares its shared array volatile.
template <typename T>
__device__ void warp_sum(volatile T* sdata, unsigned int tid) {
  sdata[tid] += sdata[tid + 32];
  sdata[tid] += sdata[tid + 16];
  sdata[tid] += sdata[tid + 8];
  sdata[tid] += sdata[tid + 4];
  sdata[tid] += sdata[tid + 2];
  sdata[tid] += sdata[tid + 1];
}

template <typename T, unsigned int blockSize>
__global__ void block_sums(const T* in, T* sums, unsigned int n) {
  __shared__ T sdata[blockSize];
  const unsigned int tid = threadIdx.x;
  T sum = 0;
  for (unsigned int i = blockIdx.x * blockSize + tid; i < n; i += blockSize * gridDim.x) sum += in[i];
  sdata[tid] = sum;
  __syncthreads();
  for (unsigned int s = blockSize / 2; s > 32; s >>= 1) {
    if (tid < s) sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid < 32) warp_sum(sdata, tid);
  if (tid == 0) sums[blockIdx.x] = sdata[0];
}

__global__ void block_max(const int* in, int* maxima, int n) {
  __shared__ volatile int best[128];
  const int tid = threadIdx.x;
  const int i = blockIdx.x * 128 + tid;
  best[tid] = i < n ? in[i] : INT_MIN;
  __syncthreads();
  if (tid < 64) best[tid] = max(best[tid], best[tid + 64]);
  __syncthreads();
  if (tid < 32) {
    for (int s = 32; s > 0; s >>= 1) best[tid] = max(best[tid], best[tid + s]);
  }
  if (tid == 0) maxima[blockIdx.x] = best[0];
}
