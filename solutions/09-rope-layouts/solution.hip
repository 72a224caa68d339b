// Exercise 09: RoPE in place on q and k: pairs rot_dim/2 apart (neox) or side by side (interleaved).
#include <fuselab/fuselab.h>

// Turns the first rot_dim values of each of `heads` heads (head_dim apart, from x) by the angles of
// cache_row: cos in its first rot_dim/2 values, sin in the rest. kNeox: pairs (j, j + rot_dim/2), else (2j, 2j + 1).
template <bool kNeox>
__device__ void rope_heads(float* x, int heads, int head_dim, int rot_dim, const float* cache_row) {
  // BEGIN SOLUTION
  const int half = rot_dim / 2;
  for (int i = threadIdx.x; i < heads * half; i += blockDim.x) {
    const int j = i % half;
    float* head = x + (long long)(i / half) * head_dim;
    const int lo = kNeox ? j : 2 * j;
    const int hi = kNeox ? j + half : 2 * j + 1;
    const float c = cache_row[j], s = cache_row[half + j];
    const float a = head[lo], b = head[hi];
    head[lo] = a * c - b * s;
    head[hi] = a * s + b * c;
  }
  // END SOLUTION
}

// One block a token: its query heads and its key heads, by its position's row of the cache.
template <bool kNeox>
__device__ void rope_token(const int* positions, float* q, float* k, const float* cos_sin_cache, int q_heads,
                           int kv_heads, int head_dim, int rot_dim) {
  // BEGIN SOLUTION
  const long long token = blockIdx.x;
  const float* cache_row = cos_sin_cache + (long long)positions[token] * rot_dim;
  rope_heads<kNeox>(q + token * q_heads * head_dim, q_heads, head_dim, rot_dim, cache_row);
  rope_heads<kNeox>(k + token * kv_heads * head_dim, kv_heads, head_dim, rot_dim, cache_row);
  // END SOLUTION
}

__global__ void rope_neox(const int* positions, float* q, float* k, const float* cos_sin_cache, int tokens,
                          int q_heads, int kv_heads, int head_dim, int rot_dim) {
  rope_token<true>(positions, q, k, cos_sin_cache, q_heads, kv_heads, head_dim, rot_dim);
}

__global__ void rope_interleaved(const int* positions, float* q, float* k, const float* cos_sin_cache, int tokens,
                                 int q_heads, int kv_heads, int head_dim, int rot_dim) {
  rope_token<false>(positions, q, k, cos_sin_cache, q_heads, kv_heads, head_dim, rot_dim);
}
