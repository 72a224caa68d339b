// Exercise 09: RoPE in place on q and k: pairs rot_dim/2 apart (neox) or side by side (interleaved).
#include <fuselab/fuselab.h>

// Turns the first rot_dim values of each of `heads` heads (head_dim apart, from x) by the angles of
// cache_row: cos in its first rot_dim/2 values, sin in the rest. kNeox: pairs (j, j + rot_dim/2), else (2j, 2j + 1).
template <bool kNeox>
__device__ void rope_heads(float* x, int heads, int head_dim, int rot_dim, const float* cache_row) {
  // TODO: fill in, about 11 lines
}

// One block a token: its query heads and its key heads, by its position's row of the cache.
template <bool kNeox>
__device__ void rope_token(const int* positions, float* q, float* k, const float* cos_sin_cache, int q_heads,
                           int kv_heads, int head_dim, int rot_dim) {
  // TODO: fill in, about 4 lines
}

__global__ void rope_neox(const int* positions, float* q, float* k, const float* cos_sin_cache, int tokens,
                          int q_heads, int kv_heads, int head_dim, int rot_dim) {
  rope_token<true>(positions, q, k, cos_sin_cache, q_heads, kv_heads, head_dim, rot_dim);
}

__global__ void rope_interleaved(const int* positions, float* q, float* k, const float* cos_sin_cache, int tokens,
                                 int q_heads, int kv_heads, int head_dim, int rot_dim) {
  rope_token<false>(positions, q, k, cos_sin_cache, q_heads, kv_heads, head_dim, rot_dim);
}
