// A 256-bin byte histogram: four bytes a load (uchar4), a private histogram per
// block in shared memory built with shared atomics, merged into the global one
// with one atomic a bin. (The counts come back in an int tensor.)
#define BINS 256

__global__ void histogram256(int* __restrict__ counts, const uchar4* __restrict__ data, int words) {
  unsigned int* hist = reinterpret_cast<unsigned int*>(counts);
  __shared__ unsigned int local[BINS];
  for (int b = threadIdx.x; b < BINS; b += blockDim.x) local[b] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < words; i += blockDim.x * gridDim.x) {
    const uchar4 v = data[i];
    atomicAdd(&local[v.x], 1u);
    atomicAdd(&local[v.y], 1u);
    atomicAdd(&local[v.z], 1u);
    atomicAdd(&local[v.w], 1u);
  }
  __syncthreads();
  for (int b = threadIdx.x; b < BINS; b += blockDim.x) {
    if (local[b] != 0) atomicAdd(&hist[b], local[b]);
  }
}
