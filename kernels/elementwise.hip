// Elementwise ops, unfused and fused. Every kernel stores f32, f16 or bf16 and
// computes in f32. Two loop shapes cover them all:
//
//   flat  every element on its own: a 1-D grid-stride loop over 16-byte vectors,
//         then the few elements past the last whole vector one at a time;
//   rows  a row-wise operand (a bias over the last dim, or the [2, d] halves of
//         act_and_mul): a 2-D grid-stride loop, x along the row, y over rows, so
//         each thread keeps its column (and its bias vector) for all its rows and
//         no index is ever divided. Rows are read as 16-byte vectors when the
//         launcher says every row start is aligned (`vectorized`), else by element.
//
// Pointers come from whole device buffers (256-byte aligned), which the flat
// loop relies on.
#include "fuselab/fuselab.h"

namespace fl::elementwise {

// ---- the math, in f32 ---------------------------------------------------------

// Not fmaxf(x, 0), which turns NaN into 0: a NaN stays NaN, as in PyTorch, so a
// poisoned input still shows up in the output.
__device__ __forceinline__ float relu(float x) { return x < 0.0f ? 0.0f : x; }

// erf without branches, |error| < 1.5e-7 (Abramowitz & Stegun 7.1.26). Used for
// 16-bit storage, whose rounding (2^-9 relative for bf16, 2^-12 for f16) hides
// it. erff takes one of two paths by |x|, which diverges inside a warp: on an H100
// bf16 gelu_and_mul ran at 94-96% of the copy ceiling with this, 89-94% with erff.
__device__ __forceinline__ float erf_branchless(float x) {
  const float t = __fdividef(1.0f, 1.0f + 0.3275911f * fabsf(x));
  const float poly = t * (0.254829592f + t * (-0.284496736f + t * (1.421413741f + t * (-1.453152027f + t * 1.061405429f))));
  return copysignf(1.0f - poly * __expf(-x * x), x);
}

// GELU as PyTorch defines it: x * Phi(x) with the normal CDF from erf, or the
// tanh approximation (approximate="tanh"). f32 storage keeps the exact erff.
template <typename T> __device__ __forceinline__ float gelu_erf(float x) {
  const float z = x * 0.70710678118654752f;
  return 0.5f * x * (1.0f + (sizeof(T) >= 4 ? erff(z) : erf_branchless(z)));
}

// x / (1 + e^-x). __fdividef (2 ulp) instead of an IEEE division: the division
// dominated the kernel's time, and a denominator past 2^126 (x < -87) gives the
// right answer, 0, either way.
__device__ __forceinline__ float silu(float x) { return __fdividef(x, 1.0f + expf(-x)); }

// 0.5 * x * (1 + tanh(u)) is exactly x * sigmoid(2u): one exp and one divide
// instead of tanhf, and no cancellation in 1 + tanh(u) for negative x.
__device__ __forceinline__ float gelu_tanh(float x) {
  const float two_sqrt_2_over_pi = 1.5957691216057308f;
  const float u2 = two_sqrt_2_over_pi * (x + 0.044715f * x * x * x);
  return __fdividef(x, 1.0f + expf(-u2));
}

template <typename T, bool TANH> __device__ __forceinline__ float gelu(float x) {
  return TANH ? gelu_tanh(x) : gelu_erf<T>(x);
}

// ---- elementwise functions as functors, so one loop serves every op -----------

struct AddFn { __device__ float operator()(float a, float b) const { return a + b; } };
struct MulFn { __device__ float operator()(float a, float b) const { return a * b; } };
struct AddReluFn { __device__ float operator()(float a, float b) const { return relu(a + b); } };
struct AddReluScaleFn {
  float s;
  __device__ float operator()(float a, float b) const { return relu(a + b) * s; }
};
struct ReluFn { __device__ float operator()(float x) const { return relu(x); } };
template <typename T, bool TANH> struct GeluFn { __device__ float operator()(float x) const { return gelu<T, TANH>(x); } };
struct SiluFn { __device__ float operator()(float x) const { return silu(x); } };
struct ExpFn { __device__ float operator()(float x) const { return expf(x); } };
template <bool FUSE_RELU> struct ReluScaleFn {
  float s;
  __device__ float operator()(float x) const { return (FUSE_RELU ? relu(x) : x) * s; }
};
// With a bias: f(x, b) where b is bias[column].
template <bool FUSE_RELU> struct ReluScaleBiasFn {
  float s;
  __device__ float operator()(float x, float b) const { return (FUSE_RELU ? relu(x) : x) * s + b; }
};
template <typename T, bool TANH> struct BiasGeluFn {
  __device__ float operator()(float x, float b) const { return gelu<T, TANH>(x + b); }
};
struct SiluMulFn { __device__ float operator()(float gate, float up) const { return silu(gate) * up; } };
template <typename T, bool TANH> struct GeluMulFn {
  __device__ float operator()(float gate, float up) const { return gelu<T, TANH>(gate) * up; }
};

// ---- loops ----------------------------------------------------------------------

template <typename T> constexpr int kVec = fl::vec16<T>::n;

__device__ __forceinline__ long long global_thread_x() { return (long long)blockIdx.x * blockDim.x + threadIdx.x; }
__device__ __forceinline__ long long grid_threads_x() { return (long long)gridDim.x * blockDim.x; }
__device__ __forceinline__ long long global_thread_y() { return (long long)blockIdx.y * blockDim.y + threadIdx.y; }
__device__ __forceinline__ long long grid_threads_y() { return (long long)gridDim.y * blockDim.y; }

// out[i] = f(x[i]) for i < n.
template <typename T, typename F>
__device__ __forceinline__ void map_flat(T* __restrict__ out, const T* __restrict__ x, long long n, F f) {
  constexpr int V = kVec<T>;
  using VT = fl::vec<T, V>;
  const long long vectors = n / V;
  const long long first = global_thread_x(), stride = grid_threads_x();
  const VT* xv = reinterpret_cast<const VT*>(x);
  VT* ov = reinterpret_cast<VT*>(out);
  for (long long i = first; i < vectors; i += stride) {
    const VT a = xv[i];
    VT r;
    for (int k = 0; k < V; ++k) r.v[k] = fl::from_float<T>(f(fl::to_float(a.v[k])));
    ov[i] = r;
  }
  for (long long i = vectors * V + first; i < n; i += stride) out[i] = fl::from_float<T>(f(fl::to_float(x[i])));
}

// out[i] = f(a[i], b[i]) for i < n.
template <typename T, typename F>
__device__ __forceinline__ void map_flat(T* __restrict__ out, const T* __restrict__ a, const T* __restrict__ b,
                                         long long n, F f) {
  constexpr int V = kVec<T>;
  using VT = fl::vec<T, V>;
  const long long vectors = n / V;
  const long long first = global_thread_x(), stride = grid_threads_x();
  const VT* av = reinterpret_cast<const VT*>(a);
  const VT* bv = reinterpret_cast<const VT*>(b);
  VT* ov = reinterpret_cast<VT*>(out);
  for (long long i = first; i < vectors; i += stride) {
    const VT va = av[i], vb = bv[i];  // both loads issued before any math
    VT r;
    for (int k = 0; k < V; ++k) r.v[k] = fl::from_float<T>(f(fl::to_float(va.v[k]), fl::to_float(vb.v[k])));
    ov[i] = r;
  }
  for (long long i = vectors * V + first; i < n; i += stride) {
    out[i] = fl::from_float<T>(f(fl::to_float(a[i]), fl::to_float(b[i])));
  }
}

// out[r, c] = f(x[r, c], bias[c]) over rows x cols, V elements at a time (V divides cols).
// An f32 thread that takes several rows loads two of them before it computes
// either: on an H100, f32 scale_bias at two rows a thread ran 2% faster so. A
// 16-bit vector is 8 values, twice the math: two in flight made bf16 bias_gelu
// 9% slower (0.2008 ms against 0.1845), so 16-bit types load one row at a time.
template <int V, typename T, typename F>
__device__ __forceinline__ void map_rows_bias(T* __restrict__ out, const T* __restrict__ x, const T* __restrict__ bias,
                                              long long rows, long long cols, F f) {
  using VT = fl::vec<T, V>;
  const long long chunks = cols / V, row_stride = grid_threads_y();
  const VT* xv = reinterpret_cast<const VT*>(x);
  const VT* biasv = reinterpret_cast<const VT*>(bias);
  VT* ov = reinterpret_cast<VT*>(out);
  for (long long c = global_thread_x(); c < chunks; c += grid_threads_x()) {
    const VT vb = biasv[c];
    float b[V];
    for (int k = 0; k < V; ++k) b[k] = fl::to_float(vb.v[k]);
    long long r = global_thread_y();
    if constexpr (sizeof(T) >= 4)
      for (; r + row_stride < rows; r += 2 * row_stride) {
        const VT a0 = xv[r * chunks + c], a1 = xv[(r + row_stride) * chunks + c];
        VT o0, o1;
        for (int k = 0; k < V; ++k) {
          o0.v[k] = fl::from_float<T>(f(fl::to_float(a0.v[k]), b[k]));
          o1.v[k] = fl::from_float<T>(f(fl::to_float(a1.v[k]), b[k]));
        }
        ov[r * chunks + c] = o0;
        ov[(r + row_stride) * chunks + c] = o1;
      }
    for (; r < rows; r += row_stride) {
      const long long i = r * chunks + c;
      const VT a = xv[i];
      VT o;
      for (int k = 0; k < V; ++k) o.v[k] = fl::from_float<T>(f(fl::to_float(a.v[k]), b[k]));
      ov[i] = o;
    }
  }
}

// map_rows_bias by 16-byte vectors when the launcher says every row start is
// aligned (`vectorized`), else by element.
template <typename T, typename F>
__device__ __forceinline__ void bias_rows(T* __restrict__ out, const T* __restrict__ x, const T* __restrict__ bias,
                                          int rows, int cols, int vectorized, F f) {
  if (vectorized) map_rows_bias<kVec<T>>(out, x, bias, rows, cols, f);
  else map_rows_bias<1>(out, x, bias, rows, cols, f);
}

// x is [rows, 2, d]: out[r, c] = f(x[r, 0, c], x[r, 1, c]), V elements at a time (V divides d).
template <int V, typename T, typename F>
__device__ __forceinline__ void map_rows_halves(T* __restrict__ out, const T* __restrict__ x,
                                                long long rows, long long d, F f) {
  using VT = fl::vec<T, V>;
  const long long chunks = d / V;
  const VT* xv = reinterpret_cast<const VT*>(x);
  VT* ov = reinterpret_cast<VT*>(out);
  for (long long c = global_thread_x(); c < chunks; c += grid_threads_x()) {
    for (long long r = global_thread_y(); r < rows; r += grid_threads_y()) {
      const VT gate = xv[2 * r * chunks + c], up = xv[(2 * r + 1) * chunks + c];
      VT o;
      for (int k = 0; k < V; ++k) o.v[k] = fl::from_float<T>(f(fl::to_float(gate.v[k]), fl::to_float(up.v[k])));
      ov[r * chunks + c] = o;
    }
  }
}

// The steps of the unfused act_and_mul chain, which read one half of x: [rows, 2, d]
// as a framework reads a strided view, x[..., HALF, :], without copying it out.
// out[r, c] = f(x[r, HALF, c], y[r, c]) (y unused, and may be null, for a unary f).
template <int V, int HALF, typename T, typename F>
__device__ __forceinline__ void map_rows_half(T* __restrict__ out, const T* __restrict__ x, const T* __restrict__ y,
                                              long long rows, long long d, F f) {
  using VT = fl::vec<T, V>;
  const long long chunks = d / V;
  const VT* xv = reinterpret_cast<const VT*>(x);
  const VT* yv = reinterpret_cast<const VT*>(y);
  VT* ov = reinterpret_cast<VT*>(out);
  for (long long c = global_thread_x(); c < chunks; c += grid_threads_x()) {
    for (long long r = global_thread_y(); r < rows; r += grid_threads_y()) {
      const VT a = xv[(2 * r + HALF) * chunks + c];
      VT b;
      if (y != nullptr) b = yv[r * chunks + c];
      VT o;
      for (int k = 0; k < V; ++k) o.v[k] = fl::from_float<T>(f(fl::to_float(a.v[k]), y != nullptr ? fl::to_float(b.v[k]) : 0.0f));
      ov[r * chunks + c] = o;
    }
  }
}

template <int HALF, typename T, typename F>
__device__ __forceinline__ void half_rows(T* __restrict__ out, const T* __restrict__ x, const T* __restrict__ y,
                                          int rows, int d, int vectorized, F f) {
  if (vectorized) map_rows_half<kVec<T>, HALF>(out, x, y, rows, d, f);
  else map_rows_half<1, HALF>(out, x, y, rows, d, f);
}

// Unary functors taking (x, unused) for half_rows.
struct SiluOfFirst { __device__ float operator()(float x, float) const { return silu(x); } };
template <typename T, bool TANH> struct GeluOfFirst { __device__ float operator()(float x, float) const { return gelu<T, TANH>(x); } };

// ---- kernels ---------------------------------------------------------------------

template <typename T>
__global__ void add_kernel(T* __restrict__ out, const T* __restrict__ a, const T* __restrict__ b, int n) {
  map_flat(out, a, b, n, AddFn{});
}

template <typename T>
__global__ void mul_kernel(T* __restrict__ out, const T* __restrict__ a, const T* __restrict__ b, int n) {
  map_flat(out, a, b, n, MulFn{});
}

template <typename T>
__global__ void relu_kernel(T* __restrict__ out, const T* __restrict__ x, int n) {
  map_flat(out, x, n, ReluFn{});
}

template <typename T, bool TANH>
__global__ void gelu_kernel(T* __restrict__ out, const T* __restrict__ x, int n) {
  map_flat(out, x, n, GeluFn<T, TANH>{});
}

template <typename T>
__global__ void silu_kernel(T* __restrict__ out, const T* __restrict__ x, int n) {
  map_flat(out, x, n, SiluFn{});
}

template <typename T>
__global__ void exp_kernel(T* __restrict__ out, const T* __restrict__ x, int n) {
  map_flat(out, x, n, ExpFn{});
}

template <typename T>
__global__ void bias_add_kernel(T* __restrict__ out, const T* __restrict__ x, const T* __restrict__ bias,
                                int rows, int cols, int vectorized) {
  bias_rows(out, x, bias, rows, cols, vectorized, AddFn{});
}

template <typename T>
__global__ void add_relu_kernel(T* __restrict__ out, const T* __restrict__ a, const T* __restrict__ b, int n) {
  map_flat(out, a, b, n, AddReluFn{});
}

template <typename T>
__global__ void add_relu_scale_kernel(T* __restrict__ out, const T* __restrict__ a, const T* __restrict__ b,
                                      float s, int n) {
  map_flat(out, a, b, n, AddReluScaleFn{s});
}

// y = [relu](x) * s: the unfused scale without FUSE_RELU.
template <typename T, bool FUSE_RELU>
__global__ void relu_scale_kernel(T* __restrict__ out, const T* __restrict__ x, float s, int n) {
  map_flat(out, x, n, ReluScaleFn<FUSE_RELU>{s});
}

// y = [relu](x) * s + bias[col].
template <typename T, bool FUSE_RELU>
__global__ void relu_scale_bias_kernel(T* __restrict__ out, const T* __restrict__ x, float s,
                                       const T* __restrict__ bias, int rows, int cols, int vectorized) {
  bias_rows(out, x, bias, rows, cols, vectorized, ReluScaleBiasFn<FUSE_RELU>{s});
}

template <typename T, bool TANH>
__global__ void bias_gelu_kernel(T* __restrict__ out, const T* __restrict__ x, const T* __restrict__ bias,
                                 int rows, int cols, int vectorized) {
  bias_rows(out, x, bias, rows, cols, vectorized, BiasGeluFn<T, TANH>{});
}

template <typename T, typename F>
__device__ __forceinline__ void act_and_mul(T* __restrict__ out, const T* __restrict__ x, int rows, int d,
                                            int vectorized, F f) {
  if (vectorized) map_rows_halves<kVec<T>>(out, x, rows, d, f);
  else map_rows_halves<1>(out, x, rows, d, f);
}

template <typename T>
__global__ void silu_and_mul_kernel(T* __restrict__ out, const T* __restrict__ x, int rows, int d, int vectorized) {
  act_and_mul(out, x, rows, d, vectorized, SiluMulFn{});
}

template <typename T, bool TANH>
__global__ void gelu_and_mul_kernel(T* __restrict__ out, const T* __restrict__ x, int rows, int d, int vectorized) {
  act_and_mul(out, x, rows, d, vectorized, GeluMulFn<T, TANH>{});
}

// The unfused act_and_mul chain: act(gate) from x's first half, then * up from its second.
template <typename T>
__global__ void silu_gate_kernel(T* __restrict__ out, const T* __restrict__ x, int rows, int d, int vectorized) {
  half_rows<0>(out, x, static_cast<const T*>(nullptr), rows, d, vectorized, SiluOfFirst{});
}

template <typename T, bool TANH>
__global__ void gelu_gate_kernel(T* __restrict__ out, const T* __restrict__ x, int rows, int d, int vectorized) {
  half_rows<0>(out, x, static_cast<const T*>(nullptr), rows, d, vectorized, GeluOfFirst<T, TANH>{});
}

template <typename T>
__global__ void mul_up_kernel(T* __restrict__ out, const T* __restrict__ act, const T* __restrict__ x, int rows, int d,
                              int vectorized) {
  half_rows<1>(out, x, act, rows, d, vectorized, MulFn{});
}

// ---- exports: <op>_<dtype>; gelu's tanh approximation adds _tanh to the op -------

FL_EXPORT_DTYPES(add, "out[n] a[n] b[n] n", add_kernel)
FL_EXPORT_DTYPES(mul, "out[n] a[n] b[n] n", mul_kernel)
FL_EXPORT_DTYPES(relu, "out[n] x[n] n", relu_kernel)
FL_EXPORT_DTYPES(gelu, "out[n] x[n] n", gelu_kernel, false)
FL_EXPORT_DTYPES(gelu_tanh, "out[n] x[n] n", gelu_kernel, true)
FL_EXPORT_DTYPES(silu, "out[n] x[n] n", silu_kernel)
FL_EXPORT_DTYPES(exp, "out[n] x[n] n", exp_kernel)
FL_EXPORT_DTYPES(bias_add, "out[rows*cols] x[rows*cols] bias[cols] rows cols vectorized", bias_add_kernel)
FL_EXPORT_DTYPES(add_relu, "out[n] a[n] b[n] n", add_relu_kernel)
FL_EXPORT_DTYPES(add_relu_scale, "out[n] a[n] b[n] s n", add_relu_scale_kernel)
// scale and scale_bias are relu_scale and relu_scale_bias without the relu.
FL_EXPORT_DTYPES(scale, "out[n] x[n] s n", relu_scale_kernel, false)
FL_EXPORT_DTYPES(relu_scale, "out[n] x[n] s n", relu_scale_kernel, true)
FL_EXPORT_DTYPES(scale_bias, "out[rows*cols] x[rows*cols] s bias[cols] rows cols vectorized", relu_scale_bias_kernel, false)
FL_EXPORT_DTYPES(relu_scale_bias, "out[rows*cols] x[rows*cols] s bias[cols] rows cols vectorized", relu_scale_bias_kernel, true)
FL_EXPORT_DTYPES(bias_gelu, "out[rows*cols] x[rows*cols] bias[cols] rows cols vectorized", bias_gelu_kernel, false)
FL_EXPORT_DTYPES(bias_gelu_tanh, "out[rows*cols] x[rows*cols] bias[cols] rows cols vectorized", bias_gelu_kernel, true)
FL_EXPORT_DTYPES(silu_and_mul, "out[rows*d] x[rows*2*d] rows d vectorized", silu_and_mul_kernel)
FL_EXPORT_DTYPES(gelu_and_mul, "out[rows*d] x[rows*2*d] rows d vectorized", gelu_and_mul_kernel, false)
FL_EXPORT_DTYPES(gelu_tanh_and_mul, "out[rows*d] x[rows*2*d] rows d vectorized", gelu_and_mul_kernel, true)
FL_EXPORT_DTYPES(silu_gate, "out[rows*d] x[rows*2*d] rows d vectorized", silu_gate_kernel)
FL_EXPORT_DTYPES(gelu_gate, "out[rows*d] x[rows*2*d] rows d vectorized", gelu_gate_kernel, false)
FL_EXPORT_DTYPES(gelu_tanh_gate, "out[rows*d] x[rows*2*d] rows d vectorized", gelu_gate_kernel, true)
FL_EXPORT_DTYPES(mul_up, "out[rows*d] act[rows*d] x[rows*2*d] rows d vectorized", mul_up_kernel)

}  // namespace fl::elementwise
