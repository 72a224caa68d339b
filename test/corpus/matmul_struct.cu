// Matrices passed by value with their elements' pointer, as the CUDA
// programming guide's shared-memory example passes them: a sub-matrix is the
// same struct with its first element's address and its parent's stride.
#include <cuda_runtime.h>

#define TILE 8

typedef struct {
  int width;
  int height;
  int stride;
  float* elements;
} Matrix;

__device__ float get(const Matrix m, int row, int col) {
  return m.elements[row * m.stride + col];
}

__device__ void put(Matrix m, int row, int col, float value) {
  m.elements[row * m.stride + col] = value;
}

// C = A * B, one TILE x TILE tile of C a block; edges of any size.
__global__ void matmul_tiled(Matrix A, Matrix B, Matrix C) {
  __shared__ float as[TILE][TILE];
  __shared__ float bs[TILE][TILE];
  const int row = blockIdx.y * TILE + threadIdx.y;
  const int col = blockIdx.x * TILE + threadIdx.x;
  float sum = 0.0f;
  for (int t = 0; t < (A.width + TILE - 1) / TILE; ++t) {
    const int a_col = t * TILE + threadIdx.x;
    const int b_row = t * TILE + threadIdx.y;
    as[threadIdx.y][threadIdx.x] = (row < A.height && a_col < A.width) ? get(A, row, a_col) : 0.0f;
    bs[threadIdx.y][threadIdx.x] = (b_row < B.height && col < B.width) ? get(B, b_row, col) : 0.0f;
    __syncthreads();
    for (int k = 0; k < TILE; ++k) sum += as[threadIdx.y][k] * bs[k][threadIdx.x];
    __syncthreads();
  }
  if (row < C.height && col < C.width) put(C, row, col, sum);
}

// A gather whose sources and outputs travel in one struct: a typedef'd const
// pointer in a nested struct, an array of output planes, an optional bias
// (null for none) and a counter.
typedef const int* index_ptr;

struct Span {
  index_ptr data;
  int n;
};

struct Gather {
  Span index;
  const float* table;
  const float* bias;
  float* planes[2];
  unsigned int* count;
};

__global__ void gather_planes(Gather g) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= g.index.n) return;
  float v = g.table[g.index.data[i]];
  if (g.bias != NULL) v += g.bias[i];
  g.planes[i % 2][i / 2] = v;
  atomicAdd(g.count, 1u);
}
