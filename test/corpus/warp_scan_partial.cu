// An inclusive prefix sum of a block of any size: the lanes of each warp that
// hold an element (a ballot gives their mask) scan with __shfl_up_sync over
// that mask only; the warps' totals are scanned by warp 0; a block of 100
// threads has a last warp of 4 lanes.
__global__ void block_inclusive_scan(int* out, const int* in, int n) {
  __shared__ int warp_totals[32];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int lane = threadIdx.x & 31;
  const int warp = threadIdx.x >> 5;
  const unsigned mask = __ballot_sync(0xffffffffu, threadIdx.x < blockDim.x);
  int v = i < n ? in[i] : 0;
  for (int d = 1; d < 32; d <<= 1) {
    const int other = __shfl_up_sync(mask, v, d);
    if (lane >= d) v += other;
  }
  if (lane == 31 || threadIdx.x == blockDim.x - 1) warp_totals[warp] = v;
  __syncthreads();
  if (warp == 0) {
    const int warps = (blockDim.x + 31) / 32;
    const unsigned first_warps = __ballot_sync(0xffffffffu, lane < warps);
    if (lane < warps) {
      int total = warp_totals[lane];
      for (int d = 1; d < 32; d <<= 1) {
        const int other = __shfl_up_sync(first_warps, total, d);
        if (lane >= d) total += other;
      }
      warp_totals[lane] = total;
    }
  }
  __syncthreads();
  if (warp > 0) v += warp_totals[warp - 1];
  if (i < n) out[i] = v;
}
