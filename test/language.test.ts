// The kernel language of fl.compile as real CUDA and HIP sources write it: the
// toolkit's headers, macro-made and template kernels, kernels in namespaces,
// the _sync warp operations with their lane masks, the bit and float
// intrinsics, the 16-bit float API (bit for bit), vector types, static and
// aligned shared memory. Each test runs on the test device (the GPU under
// test:gpu); those about the emulator's own semantics open a "cpu" device.
import { expect } from "chai";
import * as childProcess from "child_process";
import * as path from "path";
import * as fl from "../src";
import { f32ToBf16Bits, f32ToF16Bits } from "../src/dtype";
import { gridSyncFunctions } from "../src/grid-sync";
import { withoutHostCode } from "../src/host-code";
import { findKernels } from "../src/signature";
import { expectRejects, expectThrows, range, testDevice } from "./helpers";
import { Mrg32k3a, Philox, Xorwow, boxMuller, uniformDoubleOf, uniformOf } from "./reference/curand";
import { fp8Code, fp8Value, roundBf16, roundBf16Fma, roundF16, roundF16Fma, roundF32Fma } from "./reference/half";

// erf from its Taylor series, to the last bit for |x| below about 1.5 (cancellation grows past it).
function erfSeries(x: number): number {
  let sum = 0, term = x;
  for (let k = 0; Math.abs(term) > 1e-18 * Math.abs(sum); k++) {
    sum += term / (2 * k + 1);
    term *= (-x * x) / (k + 1);
  }
  return (2 / Math.sqrt(Math.PI)) * sum;
}

/** f16 values as their bits, for bit-for-bit comparisons (every NaN alike: the GPU gives one NaN, 0x7fff). */
function f16Bits(values: ArrayLike<number>): (number | string)[] {
  return Array.from(values, (v) => (Number.isNaN(v) ? "NaN" : f32ToF16Bits(v)));
}

/** bf16 values as their bits, every NaN alike. */
function bf16Bits(values: ArrayLike<number>): (number | string)[] {
  return Array.from(values, (v) => (Number.isNaN(v) ? "NaN" : f32ToBf16Bits(v)));
}

/**
 * Expects a conversion kernel's codes, `columns` of them for each input x, to be the
 * expected ones, naming the first that is not (its input and column).
 */
function expectCodes(codes: (number | string)[], expected: (number | string)[], inputs: ArrayLike<number>, columns: number): void {
  const wrong = codes.findIndex((c, i) => c !== expected[i]);
  const where = wrong < 0 ? "" : `x = ${inputs[Math.floor(wrong / columns)]}, column ${wrong % columns}: got ${codes[wrong]}, expected ${expected[wrong]}`;
  expect(wrong, where).to.equal(-1);
  expect(codes.length).to.equal(expected.length);
}

/**
 * Runs `kernel` (x, out, n) of `module` over the doubles `values`, writing `columns`
 * byte codes for each x, and expects them to be `expected`'s.
 */
function expectConversions(module: fl.Module, kernel: string, values: number[], columns: number, expected: number[]): void {
  const n = values.length;
  const out = fl.full([n * columns], 0xee, { dtype: "u8", device: testDevice() });
  module.fn(kernel).launch({ grid: Math.ceil(n / 128), block: 128 }, fl.tensor(values, { dtype: "f64", device: testDevice() }), out, n);
  expectCodes(Array.from(out.toArray()), expected, values, columns);
}

// The start of a kernel converting x[i], a double, also as a float, f, and that float as
// a half, h, and a bfloat16, b.
const NARROW_INPUTS = `
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const double d = x[i];
  const float f = (float)d;
  const __half h = __float2half(f);
  const __nv_bfloat16 b = __float2bfloat16(f);`;

describe("kernel language", () => {
  const dev = testDevice;

  it("finds the toolkit's headers, the C and C++ headers kernels include, and the host libraries' headers their host code includes", () => {
    const module = fl.compile(`
#include <cuda_runtime.h>
#include <cuda.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <cooperative_groups.h>
#include <cstdint>
#include <stdint.h>
#include <cstdio>
#include <cassert>
#include <cmath>
#include <cfloat>
#include <climits>
#include <cstring>
#include <string.h>
#include <ctime>
#include <time.h>
#include <algorithm>
#include <functional>
#include <limits>
#include <type_traits>
#include <cublas.h>
#include <cublas_v2.h>
#include <cublasLt.h>
#include <helper_cuda.h>
#include <helper_functions.h>
#include <cuda_profiler_api.h>
#include <driver_functions.h>
#include <cusparse.h>
#include <Python.h>
#include <iostream>
#include <omp.h>
#include <linux/videodev2.h>
extern "C" {
#include <memory.h>
#include <stdint.h>
#include <stdbool.h>
#include <iso646.h>
#include <stdalign.h>
}

// Host declarations naming the host libraries' types.
cusparseStatus_t multiply(cusparseHandle_t handle, cusparseSpMatDescr_t a, cusparseOperation_t op);
PyObject* make_module(PyModuleDef* definition);
// A project's host state, naming the runtime's handles and arrays.
struct camera_state { cudaArray* planes[2]; cudaArray_t staging; cudaStream_t stream; cudaEvent_t done; };
template <typename T> __device__ T largest() { return std::numeric_limits<T>::max(); }
struct pair_u32 { uint32_t first, second; };
// A compound literal, C99's, which nvcc's C++ takes.
__device__ pair_u32 swapped(pair_u32 p) { return (pair_u32){ p.second, p.first }; }

__global__ void limits_and_types(float* out, int* ints) {
  static_assert(std::is_same<uint32_t, unsigned int>::value, "uint32_t is unsigned int");
  static_assert(sizeof(clock_t) >= 4 && sizeof(time_t) >= 4, "the time types");
  assert(threadIdx.x < 4);
  const int i = swapped((pair_u32){ 0u, threadIdx.x }).first;
  out[i] = i == 0 ? INFINITY : i == 1 ? FLT_MAX : i == 2 ? largest<float>() : std::min(2.5f, std::max(1.5f, 7.0f));
  const float three = __half2float(__float2half(3.0f));
  int three_bits;
  memcpy(&three_bits, &three, sizeof three_bits);
  ints[i] = i == 0 ? INT_MAX : i == 1 ? static_cast<int>(sizeof(int64_t)) : i == 2 ? static_cast<int>(UINT8_MAX) : three_bits;
}
`, { device: dev() });
    const out = fl.empty([4], { device: dev() });
    const ints = fl.empty([4], { dtype: "i32", device: dev() });
    module.fn("limits_and_types").launch({ grid: 1, block: 4 }, out, ints);
    const flt = 3.4028234663852886e38;
    expect(Array.from(out.toArray())).to.deep.equal([Infinity, flt, flt, 2.5]);
    expect(Array.from(ints.toArray())).to.deep.equal([2147483647, 8, 255, 0x40400000]);
  });

  it("reads kernels as the compiler will see them: after the preprocessor", () => {
    const source = `
#define BLOCK 64
#define CONCAT(a, b) a##b
#define DEFINE_SCALE(T, suffix)                                            \\
  __global__ void CONCAT(scale_, suffix)(T* out, const T* in, T s, int n) { \\
    int i = blockIdx.x * BLOCK + threadIdx.x;                               \\
    if (i < n) out[i] = in[i] * s;                                          \\
  }
DEFINE_SCALE(float, f32)
DEFINE_SCALE(int, i32)
#if BLOCK > 32 && defined(CONCAT)
__global__ void chosen(float* out) { out[threadIdx.x] = 1.0f; }
#else
__global__ void not_chosen(float* out) { out[threadIdx.x] = 2.0f; }
#endif
#ifdef UNDEFINED_NAME
__global__ void hidden(int x) {}
#endif
#define REAL float
__global__ void after_macros(REAL* out, const REAL* in) { out[threadIdx.x] = in[threadIdx.x]; }
// Comments inside a directive, over a continued line and over a line break (lines are spliced first).
#define SCALE_BY /* a comment that     \\
   goes on */ 2
#define OFFSET 1 /* and one
   over a line break */ + 1
__global__ void after_comments(int* out) { out[0] = SCALE_BY * OFFSET; }
`;
    const found = findKernels(source, { FL_TARGET_CPU: "1" });
    expect(found.kernels.map((k) => k.name)).to.deep.equal(["scale_f32", "scale_i32", "chosen", "after_macros", "after_comments"]);
    expect(found.kernels[1].params.map((p) => p.declaration)).to.deep.equal(["int*", "const int*", "int", "int"]);
    expect(found.kernels[3].params.map((p) => p.declaration)).to.deep.equal(["float*", "const float*"]);
    expect(found.kernels[2].line).to.equal(12);

    const module = fl.compile(source, { device: dev() });
    const n = 100;
    const x = fl.tensor(range(n), { dtype: "i32", device: dev() });
    const y = fl.empty([n], { dtype: "i32", device: dev() });
    module.fn("scale_i32").launch({ grid: 2, block: 64 }, y, x, -3, n);
    expect(Array.from(y.toArray())).to.deep.equal(range(n).map((i) => -3 * i + 0));
    const value = fl.full([1], -1, { dtype: "i32", device: dev() });
    module.fn("after_comments").launch({ grid: 1, block: 1 }, value);
    expect(Array.from(value.toArray())).to.deep.equal([2 * 1 + 1]);
  });

  it("launches variadic kernel templates: a pack of template arguments, a function parameter pack one parameter an argument", () => {
    const module = fl.compile(`
template <int unroll, typename R, typename... IN>
__global__ void sum_inputs(R* out, int n, const IN*... in) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = (R(unroll) + ... + R(in[i]));
}
template <typename... Ts>
__global__ void count_values(int* out, Ts... values) { out[0] = static_cast<int>(sizeof...(Ts)); }
`, { device: dev() });
    const n = 37;
    const a = fl.tensor(range(n), { device: dev() });
    const b = fl.tensor(range(n).map((i) => 10 * i), { dtype: "i32", device: dev() });
    const c = fl.tensor(range(n).map((i) => 0.5 * i), { dtype: "f64", device: dev() });
    const out = fl.full([n], NaN, { device: dev() });
    const three = module.fn("sum_inputs<1, float, float, int, double>");
    expect(three.params.map((p) => `${p.name}: ${p.declaration}`)).to.deep.equal(["out: float*", "n: int", "in_0: const float*", "in_1: const int*", "in_2: const double*"]);
    three.launch({ grid: 2, block: 32 }, out, n, a, b, c);
    expect(Array.from(out.toArray())).to.deep.equal(range(n).map((i) => 1 + i + 10 * i + 0.5 * i));
    module.fn("sum_inputs<2, float>").launch({ grid: 2, block: 32 }, out, n);
    expect(Array.from(out.toArray())).to.deep.equal(range(n).map(() => 2));
    const count = fl.full([1], -1, { dtype: "i32", device: dev() });
    module.fn("count_values<int, float, int>").launch({ grid: 1, block: 1 }, count, 1, 2.5, 3);
    expect(Array.from(count.toArray())).to.deep.equal([3]);
    expectThrows(() => three.launch({ grid: 1, block: 32 }, out, n, a, a, c), fl.ArgumentError, /argument 3 \(in_1\) must be an i32 tensor \(const int\*\), got an f32 tensor/);
  });

  it("takes a struct defined after a kernel template as its template argument (a library's header, then the user's functor)", () => {
    const module = fl.compile(`
template <typename F>
__global__ void apply(F f, float* out, const float* in, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = f(in[i]);
}
struct Affine {
  float scale, shift;
  __device__ float operator()(float x) const { return scale * x + shift; }
};
`, { device: dev() });
    const n = 50;
    const out = fl.full([n], NaN, { device: dev() });
    module.fn("apply<Affine>").launch({ grid: 2, block: 32 }, { scale: 0.5, shift: -1 }, out, fl.tensor(range(n), { device: dev() }), n);
    expect(Array.from(out.toArray())).to.deep.equal(range(n).map((i) => 0.5 * i - 1));
  });

  it("takes a pointer's typedef for a parameter, its const the pointer's (a hiprtc sample's realptr)", () => {
    const module = fl.compile(`
typedef float real;
typedef float* realptr;
typedef int index_t;
typedef const index_t* index_list;
using out_ptr = real*;
extern "C" __global__ void gather_axpy(const real a, const realptr x, index_list at, out_ptr y, const unsigned int n) {
  const unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[at[i]] + y[i];
}`, { device: dev() });
    const n = 37;
    const x = fl.tensor(range(n).map((i) => i * 0.5), { device: dev() });
    const at = fl.tensor(range(n).map((i) => (i * 7) % n), { dtype: "i32", device: dev() });
    const y = fl.tensor(range(n).map(() => 1), { device: dev() });
    const kernel = module.fn("gather_axpy");
    expect(kernel.params.map((p) => p.declaration)).to.deep.equal(["float", "float*", "const int*", "float*", "unsigned int"]);
    kernel.launch({ grid: 2, block: 32 }, 2, x, at, y, n);
    expect(Array.from(y.toArray())).to.deep.equal(range(n).map((i) => 2 * (((i * 7) % n) * 0.5) + 1));
    expectThrows(() => kernel.launch({ grid: 2, block: 32 }, 2, x, x, y, n), fl.ArgumentError, /argument 2 \(at\) must be an i32 tensor \(const int\*\), got an f32 tensor/);
  });

  it("launches template kernels: instantiations in the source, and others by name expression", () => {
    const module = fl.compile(`
template <typename T, int BLOCK = 128>
__global__ void fill_iota(T* out, T start, int n) {
  __shared__ T tile[BLOCK];
  tile[threadIdx.x] = start + static_cast<T>(blockIdx.x * BLOCK + threadIdx.x);
  __syncthreads();
  const int i = blockIdx.x * BLOCK + threadIdx.x;
  if (i < n) out[i] = tile[threadIdx.x];
}
template __global__ void fill_iota<int, 64>(int*, int, int);

// Every parameter defaulted: launched by its bare name, as \`block_size<<<grid, block>>>\` launches it.
template <const int NUM_THREADS = 256>
__global__ void block_size(int* out) { if (threadIdx.x == 0) out[blockIdx.x] = NUM_THREADS; }

namespace ops {
namespace detail {
__global__ void negate(float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = -x[i];
}
}  // namespace detail
}  // namespace ops
`, { device: dev() });
    expect(module.kernels).to.deep.equal(["fill_iota<int, 64>", "ops::detail::negate"]);
    expect(module.templates).to.deep.equal(["fill_iota", "block_size"]);
    const sizes = fl.full([2], -1, { dtype: "i32", device: dev() });
    module.fn("block_size").launch({ grid: 2, block: 32 }, sizes);
    expect(Array.from(sizes.toArray())).to.deep.equal([256, 256]);
    expect(module.fn("block_size")).to.equal(module.fn("block_size<>"));
    const n = 300;
    const ints = fl.empty([n], { dtype: "i32", device: dev() });
    module.fn("fill_iota<int,64>").launch({ grid: Math.ceil(n / 64), block: 64 }, ints, 7, n);
    expect(Array.from(ints.toArray())).to.deep.equal(range(n).map((i) => i + 7));

    const floats = fl.empty([n], { device: dev() });
    const instance = module.fn("fill_iota<float>");
    expect(instance.signature()).to.equal("fill_iota<float>(float* out, float start, int n)");
    expect(module.fn("fill_iota< float >")).to.equal(instance);
    instance.launch({ grid: Math.ceil(n / 128), block: 128 }, floats, 0.5, n);
    expect(Array.from(floats.toArray())).to.deep.equal(range(n).map((i) => i + 0.5));

    module.fn("ops::detail::negate").launch({ grid: 3, block: 128 }, floats, n);
    expect(Array.from(floats.toArray())).to.deep.equal(range(n).map((i) => -(i + 0.5)));

    expectThrows(() => module.fn("negate"), fl.ArgumentError,
      "module.fn: name must be one of the module's kernels (fill_iota<int, 64>, ops::detail::negate, fill_iota<...>, block_size<...>), got \"negate\"");
    expectThrows(() => module.fn("fill_iota"), fl.ArgumentError, /got "fill_iota"$/);
    expectThrows(() => module.fn("fill_iota<float, 32, 1>"), fl.ArgumentError,
      "module.fn: name must be fill_iota with at most 2 template arguments (line 3), got \"fill_iota<float, 32, 1>\"");
    expectThrows(() => module.fn("fill_iota<double, 64>").launch({ grid: 1, block: 64 }, floats, 1, n), fl.ArgumentError,
      /argument 0 \(out\) must be an f64 tensor \(double\*\), got an f32 tensor/);
    expectThrows(() => module.fn("fill_iota<float"), fl.ArgumentError, /got "fill_iota<float"/);
  });

  it("compiles the template instances options.instances names with the module, as CuPy's name_expressions", () => {
    const source = `
template <typename T> __device__ T squared(T x) { return x * x; }
template <typename T, int STRIDE>
__global__ void square_every(T* out, const T* in, int n) {
  const int i = (blockIdx.x * blockDim.x + threadIdx.x) * STRIDE;
  if (i < n) out[i] = squared(in[i]);
}
__global__ void plain(int* out) { out[threadIdx.x] = 1; }
template <typename T> __global__ void typed(T* out, T v) { out[threadIdx.x] = v; }
template <typename T> __global__ void typed(T* out, const T* in) { out[threadIdx.x] = in[threadIdx.x]; }
`;
    const module = fl.compile(source, { device: dev(), instances: ["square_every<float, 1>", "square_every<double,2>", "square_every< float , 1 >", "typed<int>(int*, int)"] });
    expect(module.kernels).to.deep.equal(["plain", "square_every<float, 1>", "square_every<double, 2>", "typed<int>(int*, int)"]);
    const n = 9, x = fl.tensor(range(n).map((i) => i - 4), { device: dev() }), y = fl.full([n], NaN, { device: dev() });
    module.fn("square_every<float, 1>").launch({ grid: 1, block: 32 }, y, x, n);
    expect(Array.from(y.toArray())).to.deep.equal(range(n).map((i) => (i - 4) ** 2));
    const xd = fl.tensor(Float64Array.from(range(n), (i) => i / 2), { device: dev() }), yd = fl.full([n], -1, { dtype: "f64", device: dev() });
    module.fn("square_every<double, 2>").launch({ grid: 1, block: 32 }, yd, xd, n);
    expect(Array.from(yd.toArray())).to.deep.equal(range(n).map((i) => (i % 2 === 0 ? (i / 2) ** 2 : -1)));
    const ints = fl.zeros([3], { dtype: "i32", device: dev() });
    module.fn("typed<int>(int*, int)").launch({ grid: 1, block: 3 }, ints, 5);
    expect(Array.from(ints.toArray())).to.deep.equal([5, 5, 5]);
    // Another list is another module; an instance not listed is still compiled on first use.
    const other = fl.compile(source, { device: dev(), instances: [] });
    expect(other).to.not.equal(module);
    expect(other.kernels).to.deep.equal(["plain"]);
    expect(other.fn("square_every<float, 1>").signature()).to.equal("square_every<float, 1>(float* out, const float* in, int n)");
    expectThrows(() => fl.compile(source, { device: dev(), instances: ["squared<float>"] }), fl.ArgumentError,
      "fl.compile: options.instances[0] must be an instance of one of the source's template kernels (square_every<...>), got \"squared<float>\"");
    expectThrows(() => fl.compile(source, { device: dev(), instances: "square_every<float, 1>" as unknown as string[] }), fl.ArgumentError,
      "fl.compile: options.instances must be an array of template kernels' name expressions, got \"square_every<float, 1>\"");
  });

  it("takes functions as template arguments, also ones with parameters of their own", () => {
    const module = fl.compile(`
template <typename T> __device__ T twice(const T& x) { return x + x; }
template <typename T> __device__ T at_least(const T& x, const float floor) { return x > floor ? x : T(floor); }

template <typename T, T (*OP)(const T&)>
__global__ void apply(T* out, const T* in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = OP(in[i]);
}

template <typename T, T (*OP)(const T&, const float), bool add_one>
__global__ void apply_with(T* out, const T* in, int n, const float p) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = OP(in[i], p) + (add_one ? T(1) : T(0));
}
`, { device: dev() });
    const n = 77;
    const xs = range(n).map((i) => i - 30);
    const input = fl.tensor(xs, { dtype: "i32", device: dev() });
    const doubled = fl.full([n], -7, { dtype: "i32", device: dev() });
    module.fn("apply<int, twice<int>>").launch({ grid: 2, block: 64 }, doubled, input, n);
    expect(Array.from(doubled.toArray())).to.deep.equal(xs.map((x) => 2 * x));
    const clamped = fl.full([n], -7, { dtype: "i32", device: dev() });
    const withFloor = module.fn("apply_with<int, at_least<int>, true>");
    expect(withFloor.signature()).to.equal("apply_with<int, at_least<int>, true>(int* out, const int* in, int n, float p)");
    withFloor.launch({ grid: 2, block: 64 }, clamped, input, n, 4.5);
    expect(Array.from(clamped.toArray())).to.deep.equal(xs.map((x) => (x > 4.5 ? x : 4) + 1));
  });

  it("compiles the host helpers sources keep beside their kernels: error checks, launcher declarations, device properties", () => {
    const module = fl.compile(`
#include <cuda_runtime.h>
#include <cstdio>

extern cudaDeviceProp deviceProp;
#define CUDA_CHECK(call) gpuAssert((call), __FILE__, __LINE__)
inline void gpuAssert(cudaError_t code, const char* file, int line) {
  if (code != cudaSuccess) printf("GPUassert: %s (%s) %s %d\\n", cudaGetErrorString(code), cudaGetErrorName(code), file, line);
}
void scale_on(float* x, int n, cudaStream_t stream, cudaEvent_t done);

__global__ void codes(int* out) {
  const cudaError_t seen[] = {cudaSuccess, cudaErrorInvalidValue, cudaErrorMemoryAllocation, cudaErrorIllegalAddress, cudaErrorLaunchFailure};
  out[threadIdx.x] = seen[threadIdx.x];
  if (threadIdx.x == 0) out[5] = cudaMemcpyDeviceToHost;
}
`, { device: dev() });
    const out = fl.full([6], -1, { dtype: "i32", device: dev() });
    module.fn("codes").launch({ grid: 1, block: 5 }, out);
    expect(Array.from(out.toArray())).to.deep.equal([0, 1, 2, 700, 719, 2]);
  });

  it("finds kernels under #if __CUDA_ARCH__ where the device compiles them, and names the #if where it does not", () => {
    const source = `
#define FILL_OP(NAME, VALUE) extern "C" __global__ void NAME(float* x) { x[threadIdx.x] = VALUE; }
#if __CUDA_ARCH__ >= 530 || defined(__HIP_DEVICE_COMPILE__)
FILL_OP(fill_gpu, 2.0f)
#endif
#ifdef __CUDA_ARCH__
FILL_OP(fill_nvidia, 3.0f)
#endif
#if __CUDA_ARCH__ >= 1000
FILL_OP(fill_blackwell, 4.0f)
#endif
FILL_OP(fill_any, 1.0f)
`;
    const module = fl.compile(source, { device: dev(), name: "gated" });
    const out = fl.full([4], -1, { device: dev() });
    module.fn("fill_any").launch({ grid: 1, block: 4 }, out);
    expect(Array.from(out.toArray())).to.deep.equal([1, 1, 1, 1]);
    const backend = dev().backend;
    // The CPU emulator compiles sm_90's device code, as the H100 does.
    module.fn("fill_gpu").launch({ grid: 1, block: 4 }, out);
    expect(Array.from(out.toArray())).to.deep.equal([2, 2, 2, 2]);
    if (backend !== "hip") {
      module.fn("fill_nvidia").launch({ grid: 1, block: 4 }, out);
      expect(Array.from(out.toArray())).to.deep.equal([3, 3, 3, 3]);
    } else {
      expectThrows(() => module.fn("fill_nvidia"), fl.ArgumentError, /got "fill_nvidia", defined only under #ifdef __CUDA_ARCH__ \(line 6\), a branch this device does not compile/);
    }
    if (backend === "cpu") {
      expectThrows(() => module.fn("fill_blackwell"), fl.ArgumentError, "module.fn: name must be one of the module's kernels (fill_gpu, fill_nvidia, fill_any), " +
        "got \"fill_blackwell\", defined only under #if __CUDA_ARCH__ >= 1000 (line 9), a branch this device does not compile " +
        "(the CPU emulator compiles sm_90's device code (__CUDA_ARCH__ 900), or options.arch's)");
      // options.arch picks another GPU's device code, or nvcc's host pass.
      const older = fl.compile(source, { device: dev(), arch: "sm_52" });
      expect(older.kernels).to.deep.equal(["fill_nvidia", "fill_any"]);
      expectThrows(() => older.fn("fill_gpu"), fl.ArgumentError, /defined only under #if __CUDA_ARCH__ >= 530 \|\| defined\(__HIP_DEVICE_COMPILE__\) \(line 3\), a branch this device does not compile \(the CPU emulator compiles sm_52's device code \(__CUDA_ARCH__ 520\), or options.arch's\)$/);
      expect(fl.compile(source, { device: dev(), arch: "sm_100a" }).kernels).to.deep.equal(["fill_gpu", "fill_nvidia", "fill_blackwell", "fill_any"]);
      const host = fl.compile(source, { device: dev(), arch: "host" });
      expect(host.kernels).to.deep.equal(["fill_any"]);
      expectThrows(() => host.fn("fill_nvidia"), fl.ArgumentError, /\(line 6\), a branch this device does not compile \(the CPU emulator compiled this source as nvcc's host pass reads it, with no __CUDA_ARCH__, as options.arch "host" asks\)$/);
      for (const arch of ["sm90", "compute_90", "gfx90a", 90, null]) {
        expectThrows(() => fl.compile(source, { device: dev(), arch } as unknown as fl.CompileOptions), fl.ArgumentError,
          `fl.compile: options.arch must be a GPU architecture whose device code the CPU emulator compiles ("sm_80", "sm_90"), or "host", got ${typeof arch === "string" ? JSON.stringify(arch) : String(arch)}`);
      }
    } else {
      expect(fl.compile(source, { device: dev(), arch: dev().props.arch.split(":")[0] }).kernels).to.include("fill_any");
      expectThrows(() => fl.compile(source, { device: dev(), arch: "sm_52" }), fl.ArgumentError,
        new RegExp(`^fl.compile: options.arch must be "${dev().props.arch.split(":")[0]}", the architecture of .*, or left out, got "sm_52"$`));
    }
    expectThrows(() => module.fn("fill_none"), fl.ArgumentError, /got "fill_none"$/);
  });

  it("reads a source with nvcc's macros on every NVIDIA target: __NVCC__, and <cuda_runtime.h>'s guards over host helpers (the CUDA samples' helper_cuda.h)", () => {
    const module = fl.compile(`
#include <cuda_runtime.h>
#include <vector>
#if defined(__CUDA_RUNTIME_H__) && defined(__DRIVER_TYPES_H__)
inline size_t device_list_size() { std::vector<int> devices(3); return devices.size(); }
#endif
#if defined(__NVCC__) && defined(__CUDACC__)
extern "C" __global__ void nvcc_fill(int* out) { out[threadIdx.x] = 1; }
#endif
`, { device: dev(), name: "nvcc_macros" });
    const out = fl.full([32], 0, { dtype: "i32", device: dev() });
    module.fn("nvcc_fill").launch({ grid: 1, block: 32 }, out);
    expect(Array.from(out.toArray())).to.deep.equal(range(32).map(() => 1));
  });

  it("compiles a family of extern \"C\" kernels a macro defines, each invocation ended with ';' and some only under #if __CUDA_ARCH__ (candle's binary.cu)", () => {
    // A GPU's run-time compiler looks kernels up in its host pass, where those under
    // #if __CUDA_ARCH__ do not exist: an extern "C" kernel is found by its name instead.
    const module = fl.compile(`
#define SCALE_OP(TYPENAME, FN_NAME, FACTOR) \\
extern "C" __global__ void FN_NAME(const size_t numel, const TYPENAME* inp, TYPENAME* out) { \\
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < numel; i += blockDim.x * gridDim.x) \\
    out[i] = inp[i] * (TYPENAME)FACTOR; \\
} \\

#if __CUDA_ARCH__ >= 800
SCALE_OP(float, scale3_f32, 3);
#endif
SCALE_OP(float, scale2_f32, 2);
SCALE_OP(double, scale2_f64, 2)
SCALE_OP(int, scale2_i32, 2);
`, { device: dev(), name: "candle_style" });
    expect(module.kernels).to.deep.equal(["scale3_f32", "scale2_f32", "scale2_f64", "scale2_i32"]);
    const n = 300, values = range(n).map((i) => i - 150);
    for (const [kernel, dtype, factor] of [["scale3_f32", "f32", 3], ["scale2_f32", "f32", 2], ["scale2_f64", "f64", 2], ["scale2_i32", "i32", 2]] as const) {
      const out = fl.full([n], 7, { dtype, device: dev() });
      module.fn(kernel).launch({ grid: 2, block: 64 }, n, fl.tensor(values, { dtype, device: dev() }), out);
      expect(Array.from(out.toArray()), kernel).to.deep.equal(values.map((v) => v * factor));
    }
  });

  it("gives CUDA_VERSION from <cuda.h>, also through PyTorch's CUDA headers: the toolkit's where it compiles, on the emulator the CUDA 13.0 whose device API it gives", () => {
    const source = (include: string) => `
#include <${include}>
__global__ void version(int* out) {
#ifdef CUDA_VERSION
  out[0] = CUDA_VERSION;
#else
  out[0] = -1;
#endif
}
#if CUDA_VERSION >= 12000
__global__ void since_cuda12(int* out) { out[0] = 12; }
#endif
`;
    const versionWith = (include: string) => {
      const module = fl.compile(source(include), { device: dev() });
      const out = fl.full([1], 0, { dtype: "i32", device: dev() });
      module.fn("version").launch({ grid: 1, block: 1 }, out);
      const version = Number(out.toArray()[0]);
      // Read as the compiler reads it: a kernel under #if CUDA_VERSION is found where the version allows it.
      expect(module.kernels.includes("since_cuda12"), include).to.equal(version >= 12000);
      return version;
    };
    // PyTorch's c10/cuda/CUDAException.h includes <cuda.h>, and the CUDA headers an extension
    // includes reach it (sglang's token-bitmask kernels are under #if CUDA_VERSION >= 12040).
    for (const include of ["cuda.h", "ATen/cuda/CUDAContext.h", "c10/cuda/CUDAGuard.h", "THC/THCAtomics.cuh"]) {
      const version = versionWith(include);
      if (dev().backend === "cuda") expect(version >= 11000 && version % 10 === 0, `CUDA_VERSION ${version} with ${include}`).to.equal(true);
      else expect(version, include).to.equal(13000);
    }
    // Its CPU headers do not.
    expect(versionWith("torch/extension.h")).to.equal(-1);
  });

  it("takes true or false for a bool parameter, beside a bool template parameter", () => {
    const module = fl.compile(`
template <bool NEGATE>
__global__ void pick(float* out, const float* in, const bool twice, int n, const bool add_one) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = NEGATE ? -in[i] : in[i];
  if (twice) v *= 2.0f;
  out[i] = v + (add_one ? 1.0f : 0.0f);
}
`, { device: dev() });
    const n = 45;
    const xs = range(n).map((i) => i - 20);
    const input = fl.tensor(xs, { device: dev() });
    for (const [negate, twice, addOne] of [[false, true, false], [true, false, true], [true, true, true]]) {
      const out = fl.full([n], NaN, { device: dev() });
      const kernel = module.fn(`pick<${negate}>`);
      kernel.launch({ grid: 2, block: 32 }, out, input, twice, n, addOne);
      expect(Array.from(out.toArray()), `${negate} ${twice} ${addOne}`).to.deep.equal(xs.map((x) => (negate ? -x : x) * (twice ? 2 : 1) + (addOne ? 1 : 0)));
    }
    expect(module.fn("pick<true>").signature()).to.equal("pick<true>(float* out, const float* in, bool twice, int n, bool add_one)");
    expectThrows(() => module.fn("pick<false>").launch({ grid: 1, block: 32 }, input, input, 1, n, false), fl.ArgumentError,
      "kernel pick<false>: argument 2 (twice) must be true or false (bool), got 1");
  });

  it("reads typedef'd scalar types in kernel parameters", () => {
    const module = fl.compile(`
typedef unsigned int uint;
using index_t = int64_t;
__global__ void count_to(int* out, uint n, index_t offset) {
  if (threadIdx.x < n) out[threadIdx.x] = static_cast<int>(threadIdx.x + offset);
}
`, { device: dev() });
    const count = module.fn("count_to");
    expect(count.params.map((p) => p.type)).to.deep.equal(["i32", "u32", "i64"]);
    const out = fl.zeros([8], { dtype: "i32", device: dev() });
    count.launch({ grid: 1, block: 8 }, out, 5, 10n);
    expect(Array.from(out.toArray())).to.deep.equal([10, 11, 12, 13, 14, 0, 0, 0]);
  });

  it("types a template kernel's parameters from its own template parameters, not from an alias of the same name inside a host function or a class", () => {
    // vLLM's rotary_embedding() dispatches with `using cache_t = scalar_t;` in a lambda.
    const module = fl.compile(`
template <typename scalar_t, typename cache_t>
__global__ void widen(scalar_t* out, const cache_t* cache, int n) {
  if (threadIdx.x < n) out[threadIdx.x] = static_cast<scalar_t>(cache[threadIdx.x] * 2);
}
struct Traits { using cache_t = double; };
void launcher(float* out, const int* cache) {
  auto dispatch = [&] {
    using cache_t = int;
    widen<float, cache_t><<<1, 32>>>(out, cache, 3);
  };
  dispatch();
}
`, { device: dev() });
    const widen = module.fn("widen<int, float>");
    expect(widen.params.map((p) => p.type)).to.deep.equal(["i32", "f32", "i32"]);
    const out = fl.full([4], -1, { dtype: "i32", device: dev() });
    widen.launch({ grid: 1, block: 32 }, out, fl.tensor([1.5, 2.25, 4, 8], { device: dev() }), 3);
    expect(Array.from(out.toArray())).to.deep.equal([3, 4, 8, -1]);
  });

  it("takes extern \"C\" run into __global__ (grcuda's saxpy.cu), and a range helper deriving from std::iterator in a grid-stride range-for (NVIDIA's C++11 post)", () => {
    const module = fl.compile(`#include <iterator>
template <typename T>
struct stepping : std::iterator<std::input_iterator_tag, T> {
  T at, step;
  __device__ stepping(T at, T step) : at(at), step(step) {}
  __device__ T operator*() const { return at; }
  __device__ stepping& operator++() { at += step; return *this; }
  __device__ bool operator!=(const stepping& end) const { return at < end.at; }
};
template <typename T>
struct grid_range {
  T first, last, step;
  __device__ stepping<T> begin() const { return stepping<T>(first, step); }
  __device__ stepping<T> end() const { return stepping<T>(last, step); }
};
extern "C"__global__
void count_vowels(int* count, const char* text, int n) {
  grid_range<int> all{(int)(blockIdx.x * blockDim.x + threadIdx.x), n, (int)(gridDim.x * blockDim.x)};
  auto vowel = [](char c) { return c == 'a' || c == 'e' || c == 'i' || c == 'o' || c == 'u'; };
  for (int i : all) if (vowel(text[i])) atomicAdd(count, 1);
}`, { device: dev(), name: "ranges" });
    const text = range(1000).map((i) => "abcdefghijklmnopqrstuvwxyz".charCodeAt((i * 7) % 26));
    const count = fl.zeros([1], { dtype: "i32", device: dev() });
    module.fn("count_vowels").launch({ grid: 3, block: 64 }, count, fl.tensor(text, { dtype: "i8", device: dev() }), text.length);
    expect(count.toArray()[0]).to.equal(text.filter((c) => "aeiou".includes(String.fromCharCode(c))).length);
  });

  it("takes a source as a sample ships it: host helpers and globals (dynamically initialised too) beside the kernels, glibc's uint and u_int32_t, M_PI with no #include, cub's umbrella header", async () => {
    const source = `
#include <cub/cub.cuh>
#define FLOOR(a, b) (a - (a % b))
static const char* sample_name = "block sums";
int MATRIX_SIZE_X = 1024;
int MAX_TILES = (FLOOR(MATRIX_SIZE_X, 512) *
                 FLOOR(MATRIX_SIZE_X, 512)) / 4;
static uint* d_partial_sums;
const int kFirstWeight = 1;
inline unsigned iDivUp(unsigned a, unsigned b) { return (a + b - 1) / b; }
bool isPow2(unsigned x) { return (x & (x - 1)) == 0; }

template <int BLOCK>
__global__ void block_sums(int* sums, const int* x, u_int32_t n) {
  typedef cub::BlockReduce<int, BLOCK> Reduce;
  __shared__ typename Reduce::TempStorage storage;
  const uint i = blockIdx.x * BLOCK + threadIdx.x;
  const int total = Reduce(storage).Sum(i < n ? kFirstWeight * x[i] : 0);
  // M_PI with no #include of <math.h>: nvcc's implicit cuda_runtime.h brings it.
  if (threadIdx.x == 0) sums[blockIdx.x] = total + (M_PI > 3.14 && M_PI < 3.15 ? 0 : 1000);
}
template __global__ void block_sums<128>(int*, const int*, u_int32_t);
`;
    const module = fl.compile(source, { device: dev() });
    const n = 1000, blocks = Math.ceil(n / 128);
    const xs = range(n).map((i) => ((i * 7) % 11) - 5);
    const sums = fl.full([blocks], -1, { dtype: "i32", device: dev() });
    module.fn("block_sums<128>").launch({ grid: blocks, block: 128 }, sums, fl.tensor(xs, { dtype: "i32", device: dev() }), n);
    expect(Array.from(sums.toArray())).to.deep.equal(
      range(blocks).map((b) => xs.slice(b * 128, (b + 1) * 128).reduce((s, v) => s + v, 0)));
    // A BlockReduce sized for more threads than the block runs: a GPU combines warp totals no thread wrote.
    const checked = fl.device("cpu", { check: true });
    fl.compile(source, { device: checked }).fn("block_sums<128>")
      .launch({ grid: 1, block: 100 }, fl.zeros([1], { dtype: "i32", device: checked }), fl.zeros([100], { dtype: "i32", device: checked }), 100);
    await expectRejects(checked.synchronize(), fl.DeviceError, /kernel 'block_sums<128>': cub::BlockReduce of 128 threads in a block of 100: a full Reduce or Sum needs the block to run the threads the template names/);
  });

  it("finds kernels a source defines only for newer GPUs (#if __CUDA_ARCH__ >= 800) on NVIDIA GPUs and the CPU emulator, and says why AMD's have none", () => {
    const module = fl.compile(`
#include <cuda_bf16.h>
__global__ void scale_f32(float* out, const float* x, float s, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = x[i] * s;
}
#if __CUDA_ARCH__ >= 800
__global__ void scale_bf16(__nv_bfloat16* out, const __nv_bfloat16* x, float s, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = __float2bfloat16(__bfloat162float(x[i]) * s);
}
#endif
`, { device: dev() });
    const n = 77;
    const xs = range(n).map((i) => (i % 13) - 6);
    const out = fl.full([n], NaN, { device: dev() });
    module.fn("scale_f32").launch({ grid: 2, block: 64 }, out, fl.tensor(xs, { device: dev() }), 0.5, n);
    expect(Array.from(out.toArray())).to.deep.equal(xs.map((v) => v * 0.5));
    if (dev().backend === "hip") {
      expectThrows(() => module.fn("scale_bf16"), fl.ArgumentError, /"scale_bf16", defined only under #if __CUDA_ARCH__ >= 800 \(line 7\), a branch this device does not compile$/);
    } else {
      const halves = fl.full([n], NaN, { dtype: "bf16", device: dev() });
      module.fn("scale_bf16").launch({ grid: 2, block: 64 }, halves, fl.tensor(xs, { dtype: "bf16", device: dev() }), 0.5, n);
      expect(Array.from(halves.toArray())).to.deep.equal(xs.map((v) => v * 0.5));
    }
  });

  it("keeps from NVRTC only the host code device code cannot use: host functions and non-const variables at namespace scope", () => {
    const source = [
      "#include <cstdio>",
      "const char* sSDKsample = \"sample; with a semicolon\";  // gone",
      "int MAX_TILES = (1024 / 512) *",
      "#if 1",
      "                2;",
      "#endif",
      "static unsigned* d_partial, *d_more;",
      "std::vector<int> sizes;",
      "const int kTile = 32;",
      "constexpr int kTwice = 2 * kTile;",
      "float* const kFixed = nullptr;",
      "__device__ int counter = 0;",
      "__constant__ float table[2] = {1, 2};",
      "struct Params { int a; float b; };",
      "template <int B> __global__ void k(float* o) { int local = B; o[0] = local; }",
      "int after_template = 5;",
      "inline unsigned iDivUp(unsigned a, unsigned b) { unsigned q = (a + b - 1) / b; return q; }",
      "extern \"C\" {",
      "int in_extern_c = 7;",
      "__global__ void kc(int* o) { int here = kTile; o[0] = here; }",
      "}",
      "namespace ns { int in_ns = 1; const float pi = 3.14f; }",
      "int declared(int);",
      "constexpr int twice(int x) { return 2 * x; }",
      "__host__ __device__ inline float squared(float x) { return x * x; }",
      "static void gpuAssert(int code, const char* file) {",
      "  if (code != 0) { fprintf(stderr, \"%s\\n\", file); exit(code); }",
      "}",
      "template <typename T> T host_max(T a, T b) { return a > b ? a : b; }",
      "inline void check(int code, const char* file, bool abort = true) { if (code && abort) exit(code); }",
      "__global__ void with_default(int* o, int n = 3) { o[0] = n; }",
      "int after_default = 1;",
      "template <class It, typename std::enable_if<(sizeof(It) > 1), int>::type = 0> void format_range(It a, It b) { print(a, b); }",
      "struct HostClock { void start() { begin = now(); } double begin; };",
      "class Timer { std::chrono::steady_clock::time_point begin_; public: void start() { begin_ = std::chrono::steady_clock::now(); } };",
      "template <class T> struct Box { T value; };",
      "int after_class_templates = 2;",
      "#define HOST_DEVICE_INLINE __device__ __host__ inline",
      "#define HD HOST_DEVICE_INLINE",
      "#define CONSTANT __constant__",
      "HD int div_ceil(int a, int b) { return (a + b - 1) / b; }",
      "CONSTANT float taps[3];",
      "std::string launch_gemm_test(int m, int n, int k);",
      "std::vector<int> layouts(const std::string& name);",
      "C10_HOST_DEVICE constexpr auto kFp8Max = 448.f;",
      "HD constexpr int kTwiceHD = 2;",
      "template <int pack_size> typename std::enable_if<pack_size == 1, void>::type launch_impl(float* x) { run(x); }",
      "struct Launcher { static int launch(const float* p) { constexpr int kMax = 4; return aligned(p, kMax); } };",
      "typedef struct { unsigned rows; std::unique_ptr<unsigned int> data_host; } Matrix;",
      "void nms(std::vector<Detection>& res, float* output, float conf_thresh, float nms_thresh = 0.5);",
      "int after_prototype = 0;",
    ].join("\n");
    const lines = withoutHostCode(source).split("\n");
    expect(lines.length).to.equal(source.split("\n").length);
    const gone = lines.map((l, i) => (l.trim() === "" ? i + 1 : 0)).filter((n) => n > 0);
    // Line 34: a class whose member functions device code could not call, which nothing kept names.
    // Lines 41 and 42: an execution space through a macro; lines 43 and 44: host declarations of the host-only library's types.
    // Line 47: a host template whose return type compares (==); line 48: a host class whose member has a constexpr local.
    // Line 50: a host prototype of the host-only library's types with a default argument (tensorrtx's nms).
    expect(gone).to.deep.equal([2, 3, 5, 7, 8, 16, 17, 19, 26, 27, 28, 29, 30, 32, 33, 34, 37, 43, 44, 47, 48, 50, 51]);
    // Line 35: a class built on the host-only library stays declared, for host declarations that name it.
    expect(lines[34].trim()).to.equal("class Timer;");
    // Line 49: a typedef'd struct built on it (CUDA-CCL's Matrix), declared by its typedef's name.
    expect(lines[48].trim()).to.equal("struct Matrix;");
    expect(lines[3]).to.equal("#if 1");
    expect(lines[21]).to.equal("namespace ns {" + " ".repeat(16) + "const float pi = 3.14f; }");
    // A __host__ __device__ variable keeps its declaration without them, as nvcc reads it (NVRTC refuses them).
    expect(lines.slice(44, 46).map((l) => l.trim())).to.deep.equal(["constexpr auto kFp8Max = 448.f;", "constexpr int kTwiceHD = 2;"]);
  });

  it("reads host code as the target's preprocessor does: one branch of a decided #if, every branch of one a header decides, a file saved on Windows", () => {
    const source = [
      "#if CUDART_VERSION >= 11000",           // 1: decided by a header: both branches are read
      "void launch_new() { k<<<1, 1>>>(); }",
      "#else",
      "void launch_old() { k<<<1, 1>>>(); }",
      "#endif",
      "int gemm(int m,",                       // 6: each branch closes the declaration
      "#if defined(SOME_OTHER_PLATFORM)",
      "         int algo = 1);",
      "#else",
      "         int algo = 0);",
      "#endif",
      "__global__ void k() {}",                 // 12
      "void launch() { k<<<1, 1>>>(); }",       // 13
      "int gemm_ex(int m,",                    // 14: decided though a header's name is in it
      "#if defined(__HIP_PLATFORM_AMD__) && (TORCH_VERSION_MAJOR < 2)",
      "         int algo = 1);",
      "#else",
      "         int algo = 0);",
      "#endif",
      "void launch_again() { k<<<1, 1>>>(); }", // 20
    ].join("\n");
    const lines = withoutHostCode(source, { functionsMatching: /<<</, predefined: {} }).split("\n");
    expect(lines.map((l, i) => (l.trim() === "" ? i + 1 : 0)).filter((n) => n > 0)).to.deep.equal([2, 4, 13, 20]);
    expect(lines[11]).to.equal("__global__ void k() {}");
    // A file saved on Windows, with a byte-order mark and \r\n line ends, reads the same.
    const module = fl.compile(`\uFEFF${source}\n__global__ void fill(int* x) { x[threadIdx.x] = 7; }\n`.replace(/\n/g, "\r\n"), { device: dev() });
    const x = fl.zeros([4], { dtype: "i32", device: dev() });
    module.fn("fill").launch({ grid: 1, block: 4 }, x);
    expect(Array.from(x.toArray())).to.deep.equal([7, 7, 7, 7]);
  });

  it("gives vector types, static and aligned shared memory, and dim3 views of the launch", () => {
    const module = fl.compile(`
__global__ void vectors(float* out, int* ints) {
  static __shared__ __align__(16) float staged[4];
  __shared__ double2 pair;
  const dim3 block = blockDim;
  const uint3 thread = threadIdx;
  float3 p = make_float3(1.0f, 2.0f, 3.0f);
  uchar4 bytes = make_uchar4(1, 2, 3, 250);
  if (thread.x == 0) pair = make_double2(0.25, 0.5);
  staged[thread.x] = p.x * thread.x + p.y + p.z;
  __syncthreads();
  out[thread.x] = staged[block.x - 1 - thread.x] + static_cast<float>(pair.x + pair.y);
  ints[thread.x] = bytes.w + static_cast<int>(sizeof(float3)) * 100 + static_cast<int>(alignof(double2)) * 10000 +
                   static_cast<int>(reinterpret_cast<unsigned long long>(staged) % 16) * 1000000;
}
`, { device: dev() });
    const out = fl.empty([4], { device: dev() });
    const ints = fl.empty([4], { dtype: "i32", device: dev() });
    module.fn("vectors").launch({ grid: 1, block: 4 }, out, ints);
    expect(Array.from(out.toArray())).to.deep.equal([3, 2, 1, 0].map((t) => t + 5 + 0.75));
    expect(Array.from(ints.toArray())).to.deep.equal([0, 1, 2, 3].map(() => 250 + 1200 + 160000));
  });

  it("places a static __shared__ array 16-byte aligned, as a GPU places a block's first, so a __half tile is copied through int4 (cuda_hgemm's staging)", () => {
    // Another kernel's arrays share the module: on the CPU, where each array is a
    // thread-local variable of the module, they decide where the tile would fall.
    const source = `
#include <cuda_fp16.h>
__global__ void stage(const half* a, half* c) {
  __shared__ half tile[16][16];
  const int lane = threadIdx.x;
  *(reinterpret_cast<int4*>(&tile[lane / 2][0]) + lane % 2) = *(reinterpret_cast<const int4*>(&a[(lane / 2) * 16]) + lane % 2);
  __syncthreads();
  *(reinterpret_cast<int4*>(&c[(lane / 2) * 16]) + lane % 2) = *(reinterpret_cast<const int4*>(&tile[15 - lane / 2][0]) + lane % 2);
}
__global__ void pair(const half* a, half* c) {
  __shared__ half a_tile[16][16];
  __shared__ half b_tile[8][16];
  a_tile[threadIdx.x][0] = a[threadIdx.x];
  if (threadIdx.x < 8) b_tile[threadIdx.x][0] = a[threadIdx.x + 16];
  __syncthreads();
  c[threadIdx.x] = __hadd(a_tile[threadIdx.x][0], b_tile[threadIdx.x % 8][0]);
}`;
    const values = range(256).map((i) => (i % 97) - 40);
    for (const d of dev().kind === "gpu" ? [dev()] : [dev(), fl.device("cpu", { check: true })]) {
      const module = fl.compile(source, { device: d });
      const a = fl.tensor(values, { dtype: "f16", device: d });
      const c = fl.empty([256], { dtype: "f16", device: d }), paired = fl.empty([16], { dtype: "f16", device: d });
      module.fn("stage").launch({ grid: 1, block: 32 }, a, c);
      module.fn("pair").launch({ grid: 1, block: 16 }, a, paired);
      expect(Array.from(c.toArray()), d.describe()).to.deep.equal(range(256).map((i) => values[(15 - Math.floor(i / 16)) * 16 + (i % 16)]));
      expect(Array.from(paired.toArray()), d.describe()).to.deep.equal(range(16).map((i) => values[i] + values[(i % 8) + 16]));
    }
  });

  it("gives dynamic shared memory however real sources declare it: file scope, specifiers in any order, __align__(sizeof(T)), rows of N", () => {
    // Each kernel writes its block's values into dynamic shared memory and reads them back reversed,
    // offset by the block so that blocks seeing one another's memory would show.
    const source = `
extern __shared__ float file_scope[];
namespace staging { extern __shared__ int in_namespace[]; }

__global__ void from_file_scope(float* out) {
  file_scope[threadIdx.x] = threadIdx.x + 100.0f * blockIdx.x;
  __syncthreads();
  out[blockIdx.x * blockDim.x + threadIdx.x] = file_scope[blockDim.x - 1 - threadIdx.x];
}
__global__ void from_namespace(int* out) {
  staging::in_namespace[threadIdx.x] = threadIdx.x + 100 * blockIdx.x;
  __syncthreads();
  out[blockIdx.x * blockDim.x + threadIdx.x] = staging::in_namespace[blockDim.x - 1 - threadIdx.x];
}
__global__ void type_first(float* out) {
  extern float __shared__ staged[];
  staged[threadIdx.x] = threadIdx.x + 100.0f * blockIdx.x;
  __syncthreads();
  out[blockIdx.x * blockDim.x + threadIdx.x] = staged[blockDim.x - 1 - threadIdx.x];
}
__global__ void volatile_shared(float* out) {
  extern volatile __shared__ float staged[];
  staged[threadIdx.x] = threadIdx.x + 100.0f * blockIdx.x;
  __syncthreads();
  out[blockIdx.x * blockDim.x + threadIdx.x] = staged[blockDim.x - 1 - threadIdx.x];
}
// cuda_hgemm's wmma kernels: \`extern __shared__ half smem[][AB_SMEM_STRIDE];\`, rows of a fixed length.
#define ROW 8
__global__ void rows_of_n(float* out) {
  extern __shared__ float rows[][ROW];
  rows[threadIdx.x / ROW][threadIdx.x % ROW] = threadIdx.x + 100.0f * blockIdx.x;
  __syncthreads();
  const unsigned back = blockDim.x - 1 - threadIdx.x;
  out[blockIdx.x * blockDim.x + threadIdx.x] = rows[back / ROW][back % ROW];
}
extern __shared__ int grid_rows[][2][4];
template <int Columns>
__global__ void rows_of_template(int* out) {
  extern __shared__ __align__(16) int cells[][Columns];
  cells[threadIdx.x / Columns][threadIdx.x % Columns] = threadIdx.x + 100 * blockIdx.x;
  __syncthreads();
  const unsigned back = blockDim.x - 1 - threadIdx.x;
  out[blockIdx.x * blockDim.x + threadIdx.x] = grid_rows[back / 8][(back / 4) % 2][back % 4];
}
template <typename T>
__global__ void raw_bytes(T* out) {
  extern __shared__ __align__(sizeof(T)) unsigned char raw[];
  T* staged = reinterpret_cast<T*>(raw);
  staged[threadIdx.x] = threadIdx.x + T(100) * blockIdx.x;
  __syncthreads();
  out[blockIdx.x * blockDim.x + threadIdx.x] = staged[blockDim.x - 1 - threadIdx.x];
}
`;
    const blocks = 3, threads = 40;
    const expected = range(blocks * threads).map((i) => threads - 1 - (i % threads) + 100 * Math.floor(i / threads));
    const devices = testDevice().backend === "cpu" ? [dev(), fl.device("cpu", { check: true })] : [dev()];
    for (const d of devices) {
      const module = fl.compile(source, { device: d });
      for (const [kernel, dtype, bytes] of [["from_file_scope", "f32", 4], ["from_namespace", "i32", 4], ["type_first", "f32", 4], ["volatile_shared", "f32", 4], ["raw_bytes<double>", "f64", 8],
        ["rows_of_n", "f32", 4], ["rows_of_template<5>", "i32", 4]] as const) {
        const out = fl.full([blocks * threads], dtype === "i32" ? -1 : NaN, { dtype, device: d });
        module.fn(kernel).launch({ grid: blocks, block: threads, sharedBytes: threads * bytes }, out);
        expect(Array.from(out.toArray(), Number), `${kernel} on ${d.describe()}`).to.deep.equal(expected);
      }
    }
  });

  it("takes volatile objects as nvcc does: a volatile local stored to volatile memory (kaolin), members of a volatile shared array of vectors", () => {
    const module = fl.compile(`
__global__ void reversed_twice(float* out) {
  volatile __shared__ float shm[32];
  volatile float v = out[threadIdx.x] * 2.0f;
  shm[threadIdx.x] = v;
  __syncthreads();
  out[threadIdx.x] = shm[31 - threadIdx.x];
}
__global__ void lane_numbers(volatile float* out) {
  volatile float v = threadIdx.x;
  out[threadIdx.x] = v;
}
__global__ void folded_pairs(float* out) {
  volatile __shared__ float2 s[64];
  const int t = threadIdx.x;
  s[t].x = t;
  s[t].y = 2 * t;
  __syncthreads();
  if (t < 32) {
    s[t].x += s[t + 32].x;
    s[t].y = s[t].y + s[t + 32].y;
  }
  __syncthreads();
  if (t < 32) {
    out[t] = s[t].x;
    out[32 + t] = s[t].y;
  }
}`, { device: dev() });
    const out = fl.tensor(range(32).map((i) => i - 9), { device: dev() });
    module.fn("reversed_twice").launch({ grid: 1, block: 32 }, out);
    expect(Array.from(out.toArray())).to.deep.equal(range(32).map((i) => 2 * (31 - i - 9)));
    module.fn("lane_numbers").launch({ grid: 1, block: 32 }, out);
    expect(Array.from(out.toArray())).to.deep.equal(range(32));
    const pairs = fl.full([64], NaN, { device: dev() });
    module.fn("folded_pairs").launch({ grid: 1, block: 64 }, pairs);
    expect(Array.from(pairs.toArray())).to.deep.equal([...range(32).map((t) => 2 * t + 32), ...range(32).map((t) => 4 * t + 64)]);
  });

  it("calls math functions and CUDA's min and max on a volatile shared value and another type (Kilosort's copysign(1.0f, sWup[t]))", () => {
    const module = fl.compile(`
#include <cmath>
using namespace std;
__global__ void mixed(const double* in, double* out) {
  volatile __shared__ double s[32];
  volatile __shared__ float f[32];
  s[threadIdx.x] = in[threadIdx.x];
  f[threadIdx.x] = in[threadIdx.x];
  __syncthreads();
  const int t = threadIdx.x;
  out[t] = copysign(1.0f, s[t]) + 10 * max(0.5f, s[t]) + 100 * fmax(f[t], 0.25) + 1000 * pow(2.0f, s[t]) +
           10000 * min(f[t], 2.0) + 100000 * atan2(0.0f, s[t] * s[t]);
}`, { device: dev() });
    const x = [-2, 3, -1, 1];
    const out = fl.full([4], NaN, { dtype: "f64", device: dev() });
    module.fn("mixed").launch({ grid: 1, block: 4 }, fl.tensor(x, { dtype: "f64", device: dev() }), out);
    expect(Array.from(out.toArray())).to.deep.equal(x.map((v) => Math.sign(v) + 10 * Math.max(0.5, v) + 100 * Math.max(v, 0.25) + 1000 * 2 ** v + 10000 * Math.min(v, 2)));
  });

  it("casts a pointer to volatile to a plain pointer or an integer (MIOpen's atomicAdd(const_cast<float*>(addr), v))", () => {
    const module = fl.compile(`
#include <hip/hip_runtime.h>
__device__ inline void atomic_add_g(volatile float* addr, const float val) { atomicAdd(const_cast<float*>(addr), val); }
__device__ inline unsigned long long address_of(volatile unsigned* p) { return reinterpret_cast<unsigned long long>(p); }
__global__ void segment_sum(const float* x, volatile float* sums, unsigned* misalignment, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomic_add_g(sums + i % 3, x[i]);
  if (i == 0) misalignment[0] = address_of(reinterpret_cast<volatile unsigned*>(misalignment)) % 4;
}`, { device: dev() });
    const n = 100;
    const sums = fl.zeros([3], { device: dev() });
    const misalignment = fl.full([1], 7, { dtype: "u32", device: dev() });
    module.fn("segment_sum").launch({ grid: 4, block: 32 }, fl.tensor(range(n), { device: dev() }), sums, misalignment, n);
    expect(Array.from(sums.toArray())).to.deep.equal([0, 1, 2].map((r) => range(n).filter((i) => i % 3 === r).reduce((a, b) => a + b, 0)));
    expect(Array.from(misalignment.toArray())).to.deep.equal([0]);
  });

  it("says why a kernel template that host code instantiates with a lambda cannot be launched from TS (CSC's lambda lessons)", () => {
    const module = fl.compile(`#include <hip/hip_runtime.h>
template <typename F>
__global__ void apply(F f, int n, int* out) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = f(i); }
struct Square { __device__ int operator()(int i) const { return i * i; } };
template __global__ void apply<Square>(Square, int, int*);
int main() { int* d = nullptr; apply<<<1, 64>>>([] __host__ __device__ (int i) { return i * i; }, 64, d); }`, { device: dev(), name: "lambda_template" });
    expectThrows(() => module.fn("apply"), fl.ArgumentError, /got "apply", a template whose arguments the source's host code may give as lambdas \(line 6\), whose types have no name a launch from TS can spell: instantiate it in the source with a named functor/);
    const out = fl.full([40], -1, { dtype: "i32", device: dev() });
    module.fn("apply<Square>").launch({ grid: 1, block: 64 }, {}, 40, out);
    expect(Array.from(out.toArray())).to.deep.equal(range(40).map((i) => i * i));
  });

  it("reads through a reference to a temporary the statement ended, as the GPU's registers keep it (torchaudio's Indexer2D)", () => {
    const module = fl.compile(`
struct Indexer2D {
  const int& size2_;
  __forceinline__ __host__ __device__ Indexer2D(const int& size2) : size2_(size2) {}
  __forceinline__ __host__ __device__ int operator()(int index1, int index2) { return index1 * size2_ + index2; }
};
__global__ void flat_index(int maxU, int* out) {
  Indexer2D idxr2(maxU - 1);
  float scratch[8];
  for (int i = 0; i < 8; ++i) scratch[i] = i * 3.5f + maxU;
  out[threadIdx.x] = idxr2(threadIdx.x, 1) + (int)scratch[threadIdx.x % 8] * 0;
}`, { device: dev(), name: "dangling_temporary" });
    const out = fl.full([4], -1, { dtype: "i32", device: dev() });
    module.fn("flat_index").launch({ grid: 1, block: 4 }, 6, out);
    expect(Array.from(out.toArray())).to.deep.equal([1, 6, 11, 16]);
  });

  it("shows a kernel's printf output before the wait for the kernel returns, as cudaDeviceSynchronize flushes it", () => {
    // In a process of its own, whose standard output is a pipe, as a notebook kernel's is.
    const script = `
const fl = require(${JSON.stringify(path.resolve(__dirname, "..", "src"))});
const dev = fl.device();
const module = fl.compile('#include <cstdio>\\n__global__ void hello() { printf("block %d thread %d\\\\n", blockIdx.x, threadIdx.x); }', { device: dev });
module.fn("hello").launch({ grid: 2, block: 2 });
dev.synchronize().then(() => process.stdout.write("synchronized\\n"));`;
    const run = childProcess.spawnSync(process.execPath, ["-e", script], { encoding: "utf8", timeout: 120_000 });
    expect(run.status, run.stderr).to.equal(0);
    const lines = run.stdout.trim().split("\n");
    expect(lines[lines.length - 1]).to.equal("synchronized");
    expect(lines.slice(0, -1).sort()).to.deep.equal(["block 0 thread 0", "block 0 thread 1", "block 1 thread 0", "block 1 thread 1"]);
  });

  it("tells shared, local and global addresses apart (__isShared, __isLocal, __isGlobal) and takes nvcc's __builtin_assume and __assume", () => {
    const module = fl.compile(`
__device__ unsigned spaces(const void* p) { return __isShared(p) | __isLocal(p) << 1 | __isGlobal(p) << 2; }
__global__ void where(const float* x, unsigned* out, int n) {
  __shared__ float tile[64];
  extern __shared__ float more[];
  float mine[4];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  __builtin_assume(n > 0);
  __assume(blockDim.x == 64);
  tile[threadIdx.x] = mine[threadIdx.x % 4] = 1.0f;
  __syncthreads();
  if (i < n) out[i] = spaces(&tile[threadIdx.x]) | spaces(more + threadIdx.x) << 4 | spaces(&mine[i % 4]) << 8 | spaces(x + i) << 12 | (tile[threadIdx.x] == mine[i % 4]) << 16;
}`, { device: dev() });
    const n = 100;
    const out = fl.full([n], 0xffffffff, { dtype: "u32", device: dev() });
    module.fn("where").launch({ grid: 2, block: 64, sharedBytes: 256 }, fl.zeros([n], { device: dev() }), out, n);
    expect(Array.from(out.toArray())).to.deep.equal(range(n).map(() => 0x1_4211));
  });

  it("stores the compiler's _Float16 to a half, as HIP's __half takes it (MIOpen's static_cast<_Float16>(acc))", () => {
    const module = fl.compile(`
#include <hip/hip_fp16.h>
#include <hip/hip_runtime.h>
extern "C" __global__ void to_half(const float* x, half* y, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = static_cast<_Float16>(x[i] * 2.0f);
}`, { device: dev() });
    const x = range(37).map((i) => i / 8 - 2);
    const y = fl.full([37], NaN, { dtype: "f16", device: dev() });
    module.fn("to_half").launch({ grid: 2, block: 32 }, fl.tensor(x, { device: dev() }), y, 37);
    expect(Array.from(y.toArray())).to.deep.equal(x.map((v) => 2 * v));
  });

  it("calls __builtin_memcpy and __builtin_memset in device code, as nvcc and hipcc take them (MIOpen's type punning)", () => {
    const module = fl.compile(`
__device__ inline unsigned bits_of(float x) { unsigned u; __builtin_memcpy(&u, &x, sizeof(u)); return u; }
__global__ void punned(const float* x, unsigned* bits, int* zeros, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  bits[i] = bits_of(x[i]);
  int z[2];
  __builtin_memset(z, 0, sizeof(z));
  zeros[i] = z[0] + z[1];
}`, { device: dev() });
    const x = range(37).map((i) => i / 4 - 3);
    const bits = fl.full([37], 7, { dtype: "u32", device: dev() }), zeros = fl.full([37], 7, { dtype: "i32", device: dev() });
    module.fn("punned").launch({ grid: 2, block: 32 }, fl.tensor(x, { device: dev() }), bits, zeros, 37);
    expect(Array.from(bits.toArray())).to.deep.equal(Array.from(new Uint32Array(Float32Array.from(x).buffer)));
    expect(Array.from(zeros.toArray())).to.deep.equal(range(37).map(() => 0));
  });

  it("gives a launch the dynamic shared memory a kernel opts in to on the device (227 KiB on an H100/H200 and the 32-lane CPU, AMD's 64 KiB on the 64-lane CPU)", () => {
    // A GEMM or attention kernel with large tiles asks for more than 64 KiB (its host code calls
    // cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes), which launches from TS do for it).
    const source = `
__global__ void spread(int* out, int words) {
  extern __shared__ int tile[];
  for (int i = threadIdx.x; i < words; i += blockDim.x) tile[i] = i % 7 + blockIdx.x;
  __syncthreads();
  int sum = 0;
  for (int i = threadIdx.x; i < words; i += blockDim.x) sum += tile[words - 1 - i];
  atomicAdd(&out[blockIdx.x], sum);
}
`;
    const devices = testDevice().backend === "cpu" ? [dev(), fl.device("cpu", { warpSize: 64 })] : [dev()];
    for (const d of devices) {
      const limit = d.props.sharedPerBlockOptin;
      if (d.backend === "cpu") expect(limit, d.describe()).to.equal(d.props.warpSize === 64 ? 64 * 1024 : 227 * 1024);
      const words = limit / 4, blocks = 2;
      const out = fl.zeros([blocks], { dtype: "i32", device: d });
      const kernel = fl.compile(source, { device: d }).fn("spread");
      kernel.launch({ grid: blocks, block: 256, sharedBytes: limit }, out, words);
      const base = range(words).reduce((sum, i) => sum + (i % 7), 0);
      expect(Array.from(out.toArray()), d.describe()).to.deep.equal(range(blocks).map((b) => base + b * words));
      expectThrows(() => kernel.launch({ grid: 1, block: 256, sharedBytes: limit + 4 }, out, words), fl.ArgumentError,
        `kernel spread: sharedBytes must be at most ${limit} (the device's limit), got ${limit + 4}`);
    }
  });

  it("compiles a source's own fallbacks for older GPUs, and locals and parameters named like the built-in variables", () => {
    // Under #if __CUDA_ARCH__ < N (compiled on the CPU when options.arch names an older GPU) the source
    // defines functions the toolkit also has; both must give the same results.
    const module = fl.compile(`
#include <cuda_fp16.h>
#include <cmath>
#if __CUDA_ARCH__ < 600
__device__ double atomicAdd(double* address, double val) {
  unsigned long long int* address_as_ull = (unsigned long long int*)address;
  unsigned long long int old = *address_as_ull, assumed;
  do {
    assumed = old;
    old = atomicCAS(address_as_ull, assumed, __double_as_longlong(val + __longlong_as_double(assumed)));
  } while (assumed != old);
  return __longlong_as_double(old);
}
#endif
#if __CUDA_ARCH__ < 800
__device__ __forceinline__ __half __hmax_nan(__half a, __half b) {
  return __hisnan(a) ? a : (__hisnan(b) ? b : __hmax(a, b));
}
#endif
__device__ int block_number() { return blockIdx.y * gridDim.x + blockIdx.x; }
__device__ int global_thread() {
  int blockIdx = block_number();
  return blockIdx * (blockDim.x * blockDim.y) + threadIdx.y * blockDim.x + threadIdx.x;
}
__device__ unsigned wrapped(unsigned i, unsigned gridDim) { return i % gridDim; }

__global__ void fallbacks(const double* x, double* total, const __half* a, const __half* b, __half* larger,
                          long long* largest, double* cdf, unsigned* wraps, int n) {
  const int i = global_thread();
  if (i >= n) return;
  atomicAdd(total, x[i]);
  larger[i] = __hmax_nan(a[i], b[i]);
  atomicMax(largest, static_cast<long long>(x[i]) * -1000000000000LL);
  cdf[i] = normcdf(x[i] / 8.0);
  wraps[i] = wrapped(i, 7);
}
`, { device: dev(), ...(dev().backend === "cpu" ? { arch: "sm_52" } : {}) });
    const n = 150;
    const xs = range(n).map((i) => ((i * 37) % 101) - 50);
    const as = range(n).map((i) => ((i * 13) % 29) / 4 - 3), bs = range(n).map((i) => ((i * 7) % 31) / 4 - 3.5);
    const total = fl.full([1], 0, { dtype: "f64", device: dev() });
    const largest = fl.full([1], -(2n ** 62n), { dtype: "i64", device: dev() });
    const larger = fl.full([n], NaN, { dtype: "f16", device: dev() });
    const cdf = fl.full([n], NaN, { dtype: "f64", device: dev() });
    const wraps = fl.full([n], 99, { dtype: "u32", device: dev() });
    module.fn("fallbacks").launch({ grid: [2, 2], block: [8, 5] }, fl.tensor(xs, { dtype: "f64", device: dev() }), total,
      fl.tensor(as, { dtype: "f16", device: dev() }), fl.tensor(bs, { dtype: "f16", device: dev() }), larger, largest, cdf, wraps, n);
    expect(Array.from(total.toArray())).to.deep.equal([xs.reduce((s, v) => s + v, 0)]);
    expect(Array.from(larger.toArray())).to.deep.equal(as.map((a, i) => Math.max(a, bs[i])));
    expect(Array.from(largest.toArray())).to.deep.equal([BigInt(Math.min(...xs)) * -1000000000000n]);
    fl.assertClose(cdf, xs.map((v) => 0.5 * (1 + erfSeries(v / 8 / Math.SQRT2))), { atol: 3e-7, rtol: 0 });
    expect(Array.from(wraps.toArray())).to.deep.equal(range(n).map((i) => i % 7));
  });

  it("sets __constant__ memory from the host, in order with the launches, as cudaMemcpyToSymbol does", () => {
    const module = fl.compile(`
__constant__ float coeffs[4];
__constant__ __align__(16) int offsets[3];
template <int DEGREE>
__global__ void poly(float* out, const float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float acc = 0.0f;
  for (int k = DEGREE; k >= 0; --k) acc = acc * x[i] + coeffs[k];
  out[i] = acc + offsets[i % 3];
}
template __global__ void poly<3>(float*, const float*, int);
`, { device: dev() });
    const n = 100;
    const x = fl.tensor(range(n).map((i) => (i % 7) - 3), { device: dev() });
    const coeffs = module.constant("coeffs");
    expect([coeffs.type, coeffs.length, coeffs.bytes]).to.deep.equal(["f32", 4, 16]);
    const first = fl.empty([n], { device: dev() });
    const second = fl.empty([n], { device: dev() });
    coeffs.set([1, 2, 0, 1]);
    module.constant("offsets").set([0, 10, 20]);
    module.fn("poly<3>").launch({ grid: 1, block: 128 }, first, x, n);
    coeffs.set([0.5, 0, 1]);  // a prefix: the last coefficient stays 1
    module.fn("poly<3>").launch({ grid: 1, block: 128 }, second, x, n);
    const xs = x.toArray();
    const poly = (c: number[], v: number) => c.reduceRight((acc, k) => acc * v + k, 0);
    expect(Array.from(first.toArray())).to.deep.equal(range(n).map((i) => poly([1, 2, 0, 1], xs[i]) + 10 * (i % 3)));
    expect(Array.from(second.toArray())).to.deep.equal(range(n).map((i) => poly([0.5, 0, 1, 1], xs[i]) + 10 * (i % 3)));
    // An instance compiled later gets the values set so far.
    const quadratic = fl.empty([n], { device: dev() });
    module.fn("poly<2>").launch({ grid: 1, block: 128 }, quadratic, x, n);
    expect(Array.from(quadratic.toArray())).to.deep.equal(range(n).map((i) => poly([0.5, 0, 1], xs[i]) + 10 * (i % 3)));

    expectThrows(() => coeffs.set([1, 2, 3, 4, 5]), fl.ArgumentError, "constant coeffs.set: values must be at most 4 f32 values (the variable's size), got 5 values");
    expectThrows(() => module.constant("offset"), fl.ArgumentError,
      "module.constant: name must be one of the module's __constant__ or __device__ variables (coeffs, offsets), got \"offset\"");
  });

  it("sets __device__ variables from the host as cudaMemcpyToSymbol and hipMemcpyToSymbol do, static ones and those of named namespaces too", () => {
    const module = fl.compile(`
#include <hip/hip_runtime.h>
__device__ float bias[3];
__device__ __align__(8) unsigned int epoch = 7;
static __device__ int launches_seen;
__device__ int twice(int x) { return 2 * x; }
namespace conv { namespace detail { static __constant__ float taps[2]; __device__ int shift_by; } }
namespace { __constant__ int unnamed[2]; }
__global__ void shift(float* out, const float* x, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i == 0) launches_seen = twice(launches_seen + 1);
  if (i < n) out[i] = x[i] + bias[i % 3] + epoch + conv::detail::taps[i % 2] + conv::detail::shift_by + unnamed[0];
}
__global__ void seen(int* out) { out[0] = launches_seen; }
struct Tally { float sum; int count; };
__device__ Tally tally;
__global__ void add_up(const float* x, int n) {
  if (threadIdx.x != 0) return;
  for (int i = 0; i < n; i++) tally.sum += x[i];
  tally.count += n;
}
`, { device: dev() });
    const n = 37;
    const x = fl.tensor(range(n).map((i) => i * 0.5), { device: dev() });
    const bias = module.constant("bias"), epoch = module.constant("epoch");
    expect([bias.type, bias.length, epoch.type, epoch.length]).to.deep.equal(["f32", 3, "u32", 1]);
    const first = fl.full([n], NaN, { device: dev() }), second = fl.full([n], NaN, { device: dev() });
    bias.set([1, 2, 3]);
    module.fn("shift").launch({ grid: 2, block: 32 }, first, x, n);
    epoch.set([100]);
    module.fn("shift").launch({ grid: 2, block: 32 }, second, x, n);
    expect(Array.from(first.toArray())).to.deep.equal(range(n).map((i) => i * 0.5 + (i % 3) + 1 + 7));
    expect(Array.from(second.toArray())).to.deep.equal(range(n).map((i) => i * 0.5 + (i % 3) + 1 + 100));
    // A static variable, and one in a named namespace, by its qualified name.
    module.constant("launches_seen").set([20]);
    module.constant("conv::detail::taps").set([0.25, -0.5]);
    module.constant("conv::detail::shift_by").set([1000]);
    const third = fl.full([n], NaN, { device: dev() }), seen = fl.full([1], -1, { dtype: "i32", device: dev() });
    module.fn("shift").launch({ grid: 2, block: 32 }, third, x, n);
    module.fn("seen").launch({ grid: 1, block: 1 }, seen);
    expect(Array.from(third.toArray())).to.deep.equal(range(n).map((i) => i * 0.5 + (i % 3) + 1 + 100 + (i % 2 ? -0.5 : 0.25) + 1000));
    expect(Array.from(seen.toArray())).to.deep.equal([42]);
    // Read back after the launches, as cudaMemcpyFromSymbol reads: numbers of the type, or a struct's bytes.
    expect(Array.from(module.constant("launches_seen").get())).to.deep.equal([42]);
    expect(Array.from(module.constant("conv::detail::taps").get())).to.deep.equal([0.25, -0.5]);
    const start = new DataView(new ArrayBuffer(8));
    start.setFloat32(0, 1.5, true);
    start.setInt32(4, 2, true);
    module.constant("tally").set(start);
    module.fn("add_up").launch({ grid: 1, block: 32 }, x, n);
    const tally = module.constant("tally").get() as Uint8Array;
    const read = new DataView(tally.buffer, tally.byteOffset, tally.byteLength);
    expect([tally.length, read.getFloat32(0, true), read.getInt32(4, true)]).to.deep.equal([8, Math.fround(1.5 + range(n).reduce((a, i) => a + i * 0.5, 0)), 2 + n]);
    // A variable of an unnamed namespace has no symbol outside its file; a function is no variable.
    for (const name of ["unnamed", "twice"]) {
      expectThrows(() => module.constant(name), fl.ArgumentError,
        `module.constant: name must be one of the module's __constant__ or __device__ variables (bias, epoch, launches_seen, conv::detail::taps, conv::detail::shift_by, tally), got "${name}"`);
    }
  });

  it("takes the toolkit's declarations a source repeats (ccminer's cuda_helper.h), and a texture reference beside plain kernels", () => {
    const helper = fl.compile(`
#include <cuda_runtime.h>
#ifndef __CUDA_ARCH__
extern const dim3 blockDim; extern const uint3 threadIdx;
#endif
extern __device__ __device_builtin__ void __threadfence(void);
extern __device__ __device_builtin__ void __syncthreads(void);
__global__ void reverse(unsigned* out, const unsigned* in, int n) {
  __shared__ unsigned tile[64];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  tile[threadIdx.x] = i < n ? in[i] : 0u;
  __syncthreads();
  __threadfence();
  if (i < n) out[i] = tile[blockDim.x - 1 - threadIdx.x];
}`, { device: dev() });
    const n = 100, block = 64;
    const out = fl.full([n], 7, { dtype: "u32", device: dev() });
    helper.fn("reverse").launch({ grid: 2, block }, out, fl.tensor(Uint32Array.from(range(n), (i) => 1000 + i), { device: dev() }), n);
    expect(Array.from(out.toArray())).to.deep.equal(range(n).map((i) => {
      const mirrored = Math.floor(i / block) * block + block - 1 - (i % block);
      return mirrored < n ? 1000 + mirrored : 0;
    }));

    // A texture reference (CUDA 11 and before): the other kernels run; a fetch through it stops its launch.
    const source = `
texture<unsigned char, 2, cudaReadModeElementType> image;
__global__ void brighten(unsigned char* out, const unsigned char* in, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] + 1;
}
__global__ void sample(unsigned char* out) {
  out[threadIdx.x] = tex2D(image, threadIdx.x, 0);
}`;
    if (dev().backend === "cuda") {
      expectThrows(() => fl.compile(source, { device: dev() }), fl.DeviceError, /Texture references \(texture<T, dim, mode> at namespace scope\) were removed in CUDA 12/);
      return;
    }
    const module = fl.compile(source, { device: dev() });
    const bytes = fl.zeros([5], { dtype: "u8", device: dev() });
    module.fn("brighten").launch({ grid: 1, block: 32 }, bytes, fl.tensor([1, 2, 3, 4, 250], { dtype: "u8", device: dev() }), 5);
    expect(Array.from(bytes.toArray())).to.deep.equal([2, 3, 4, 5, 251]);
    if (dev().backend !== "cpu") return;  // hiprtc has texture references: a fetch reads whatever is bound
    module.fn("sample").launch({ grid: 1, block: 4 }, bytes);
    expectThrows(() => bytes.toArray(), fl.DeviceError,
      /kernel 'sample': a texture or surface access \(tex2D of a texture reference \(removed in CUDA 12\)\), which needs a GPU's texture unit \(the CPU emulator has none\), was reached at brighten\.hip:8 /);
    // Named by <texture_types.h>'s kinds (lprec's layered texture), in a source choosing its shuffles by nvcc's version.
    const layered = fl.compile(`
texture<float, cudaTextureType2DLayered, cudaReadModeElementType> layers;
__global__ void interpolate(float* out, int layer) { out[threadIdx.x] = tex2DLayered(layers, threadIdx.x + 0.5f, 0.5f, layer); }
__global__ void neighbour(int* out) {
#if __CUDACC_VER_MAJOR__ >= 9 && defined(__CUDACC_VER_MINOR__)
  out[threadIdx.x] = __shfl_down_sync(0xffffffff, static_cast<int>(threadIdx.x), 1);
#else
  out[threadIdx.x] = -1;
#endif
}`, { device: dev() });
    const next = fl.full([32], -7, { dtype: "i32", device: dev() });
    layered.fn("neighbour").launch({ grid: 1, block: 32 }, next);
    expect(Array.from(next.toArray())).to.deep.equal(range(32).map((i) => Math.min(i + 1, 31)));
    const sampled = fl.zeros([4], { device: dev() });
    layered.fn("interpolate").launch({ grid: 1, block: 4 }, sampled, 1);
    expectThrows(() => sampled.toArray(), fl.DeviceError, /kernel 'interpolate': a texture or surface access \(tex2DLayered of a texture reference \(removed in CUDA 12\)\), which needs a GPU's texture unit \(the CPU emulator has none\), was reached at interpolate\.hip:3 /);
  });

  it("compiles a PyTorch 1 extension's kernels (THC's headers and state, THCCeilDiv, doLdg, ATen's Context) and ATen's numeric limits", () => {
    const module = fl.compile(`
#include <ATen/ATen.h>
#include <ATen/Context.h>
#include <THC/THC.h>
#include <THC/THCAtomics.cuh>
#include <THC/THCDeviceUtils.cuh>
extern THCState *state;
#define CUDA_KERNEL_LOOP(i, n) for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < (n); i += blockDim.x * gridDim.x)
template <typename scalar_t>
__global__ void tiles_and_sums(const int n, const int tile, const scalar_t* data, int* tiles, scalar_t* total) {
  CUDA_KERNEL_LOOP(index, n) {
    tiles[index] = THCRoundUp(index + 1, tile) + THCCeilDiv(index + 1, tile);
    atomicAdd(total, doLdg(data + index));
  }
}
void launch(at::Tensor data) { tiles_and_sums<float><<<1, 64, 0, at::cuda::getCurrentCUDAStream()>>>(data.numel(), 5, data.data_ptr<float>(), nullptr, nullptr); }
// at::inf, which THCAtomics.cuh brought (SoftPool's copy of NumericLimits.cuh reads it in namespace at).
namespace at { __device__ inline float lowest_bound() { return -inf; } }
__global__ void infinities(float* out) { out[0] = at::lowest_bound(); out[1] = static_cast<float>(at::inf); }
#include <ATen/NumericUtils.h>
// A maximum from at::numeric_limits' identity, NaNs skipped (PyTorch 2's headers).
template <typename scalar_t>
__global__ void largest(const scalar_t* x, scalar_t* out, int n) {
  scalar_t best = at::numeric_limits<scalar_t>::lower_bound();
  for (int i = 0; i < n; i++)
    if (!at::_isnan(x[i]) && x[i] > best) best = x[i];
  out[0] = best;
}
`, { device: dev() });
    const n = 300;
    const tiles = fl.full([n], -1, { dtype: "i32", device: dev() }), total = fl.zeros([1], { device: dev() });
    module.fn("tiles_and_sums<float>").launch({ grid: 2, block: 64 }, n, 7, fl.tensor(range(n).map((i) => (i % 4) * 0.5), { device: dev() }), tiles, total);
    expect(Array.from(tiles.toArray())).to.deep.equal(range(n).map((i) => Math.ceil((i + 1) / 7) * 7 + Math.ceil((i + 1) / 7)));
    expect(Array.from(total.toArray())).to.deep.equal([range(n).reduce((sum, i) => sum + (i % 4) * 0.5, 0)]);
    const largest = (name: string, values: number[], dtype: "f32" | "i32") => {
      const out = fl.zeros([1], { dtype, device: dev() });
      module.fn(name).launch({ grid: 1, block: 1 }, fl.tensor(values, { dtype, device: dev() }), out, values.length);
      return out.toArray()[0];
    };
    expect([largest("largest<float>", [NaN, 1, 5, -2], "f32"), largest("largest<float>", [NaN, NaN], "f32"), largest("largest<int>", [-7, -9], "i32"),
      largest("largest<int>", [], "i32")]).to.deep.equal([5, -Infinity, -7, -(2 ** 31)]);
    const infinities = fl.zeros([2], { device: dev() });
    module.fn("infinities").launch({ grid: 1, block: 1 }, infinities);
    expect(Array.from(infinities.toArray())).to.deep.equal([-Infinity, Infinity]);
  });

  it("compiles operator libraries' headers as they are written: torch/serialize/tensor.h, ATen's aligned vectors, std::memcpy from c10, a ROCm build's own __ldg of at::Half, CUDA_KERNEL_ASSERT", () => {
    // OpenPCDet's op headers include <torch/serialize/tensor.h>; megablocks' BitCast calls std::memcpy with only
    // torch's headers; torch_sparse's utils.cuh defines __ldg for at::Half under USE_ROCM, where c10 declares none;
    // TensorRT's quantization kernels check their input with c10's CUDA_KERNEL_ASSERT.
    const source = (rocm: boolean) => `${rocm ? "#define USE_ROCM 1\n" : ""}#include <torch/serialize/tensor.h>
#include <ATen/DeviceGuard.h>
#include <ATen/native/cuda/MemoryAccess.cuh>
#include <torch/extension.h>
// fast-ops' Lion update loads its elements as ATen's aligned vectors.
static_assert(sizeof(at::native::memory::aligned_vector<at::Half, 4>) == 8 && alignof(at::native::memory::aligned_vector<at::Half, 4>) == 8, "ATen's aligned vector");
#ifdef USE_ROCM
__device__ __inline__ at::Half __ldg(const at::Half* ptr) { return *ptr; }
#endif
template <typename To, typename From> __device__ To bit_cast(const From& from) {
  To to;
  std::memcpy(&to, &from, sizeof(To));
  return to;
}
__global__ void copy_bits(const at::Half* in, at::Half* out, short* bits, int n) {
  CUDA_KERNEL_ASSERT(n > 0);
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) { out[i] = __ldg(in + i); bits[i] = bit_cast<short>(in[i]); }
}
void launch(at::Tensor x) {}
`;
    const n = 37, values = range(n).map((i) => (i - 18) * 0.75);
    for (const rocm of [false, true]) {
      const input = fl.tensor(values, { dtype: "f16", device: dev() });
      const out = fl.full([n], NaN, { dtype: "f16", device: dev() }), bits = fl.full([n], -1, { dtype: "i16", device: dev() });
      const copy = fl.compile(source(rocm), { device: dev() }).fn("copy_bits");
      copy.launch({ grid: 2, block: 32 }, input, out, bits, n);
      expect([Array.from(out.toArray()), Array.from(bits.toArray())], `USE_ROCM ${rocm}`).to.deep.equal(
        [values, values.map((v) => { const b = f32ToF16Bits(v); return b > 32767 ? b - 65536 : b; })]);
      // A GPU's device-side assert loses its context for the process: the failing check runs on the CPU.
      if (dev().backend === "cpu") {
        copy.launch({ grid: 1, block: 4 }, input, out, bits, 0);
        expectThrows(() => out.toArray(), fl.DeviceError, /kernel 'copy_bits': device-side assertion `n > 0' failed at copy_bits\.cu:\d+ \(block \(0,0,0\), thread \(0,0,0\)\)/);
      }
    }
  });

  it("gives cub's binary searches of one thread (LowerBound, UpperBound, MergePathSearch)", () => {
    const module = fl.compile(`
#include <cub/thread/thread_search.cuh>
__global__ void searches(const int* sorted, int n, const int* b, int b_len, int* lower, int* upper, int2* path) {
  const int t = threadIdx.x;
  lower[t] = cub::LowerBound(sorted, n, t - 3);
  upper[t] = cub::UpperBound(sorted, n, t - 3);
  if (t <= n + b_len) {
    int2 at;
    cub::MergePathSearch(t, sorted, b, n, b_len, at);
    path[t] = at;
  }
}
`, { device: dev() });
    const sorted = [-2, 0, 0, 1, 4, 4, 4, 9, 12], b = [-5, 0, 3, 4, 4, 20], threads = 20;
    const lower = fl.full([threads], -9, { dtype: "i32", device: dev() }), upper = fl.full([threads], -9, { dtype: "i32", device: dev() });
    const path = fl.full([threads, 2], -9, { dtype: "i32", device: dev() });
    module.fn("searches").launch({ grid: 1, block: threads }, fl.tensor(sorted, { dtype: "i32", device: dev() }), sorted.length,
      fl.tensor(b, { dtype: "i32", device: dev() }), b.length, lower, upper, path);
    const keys = range(threads).map((t) => t - 3);
    // The merge, a's items first on ties: after `d` items, how many came from a.
    const merged: ("a" | "b")[] = [];
    for (let i = 0, j = 0; i < sorted.length || j < b.length;) merged.push(j >= b.length || (i < sorted.length && sorted[i] <= b[j]) ? (i++, "a") : (j++, "b"));
    const fromA = (d: number) => merged.slice(0, d).filter((s) => s === "a").length;
    expect([Array.from(lower.toArray()), Array.from(upper.toArray())]).to.deep.equal([
      keys.map((k) => sorted.filter((v) => v < k).length), keys.map((k) => sorted.filter((v) => v <= k).length)]);
    expect(Array.from(path.toArray())).to.deep.equal(range(threads).flatMap((d) => (d <= merged.length ? [fromA(d), d - fromA(d)] : [-9, -9])));
  });

  it("passes a pointer to a __device__ function read from the module's variable, as cudaMemcpyFromSymbol reads it before a launch", () => {
    const module = fl.compile(`
#include <cuda_runtime.h>
typedef float (*combine_t)(float, float);
using scale_t = float (*)(float value);
__device__ float smaller(float a, float b) { return a < b ? a : b; }
__device__ float larger(float a, float b) { return a > b ? a : b; }
__device__ float halve(float v) { return 0.5f * v; }
__device__ combine_t d_min = smaller;
__device__ combine_t d_max = larger;
__device__ float (*d_sum)(float, float) = nullptr;
__device__ scale_t d_halve = halve;
__device__ float add(float a, float b) { return a + b; }
// The device picks a function, as a variable's initializer would.
__global__ void choose_sum() { d_sum = add; }
// One block's combination of its items, in shared memory, as a tone-mapping min/max reduce has it.
__global__ void reduce_by(const float* in, float* out, int n, combine_t combine, float (*finish)(float v)) {
  extern __shared__ float items[];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  items[threadIdx.x] = in[i < n ? i : blockIdx.x * blockDim.x];
  __syncthreads();
  for (int half = blockDim.x / 2; half > 0; half /= 2) {
    if (threadIdx.x < half) items[threadIdx.x] = combine(items[threadIdx.x], items[threadIdx.x + half]);
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = finish ? (*finish)(items[0]) : items[0];
}
`, { device: dev() });
    const n = 200, block = 64, blocks = Math.ceil(n / block);
    const values = range(n).map((i) => ((i * 37) % 101) - 50.25);
    const x = fl.tensor(values, { device: dev() });
    expect(module.fn("reduce_by").signature()).to.equal("reduce_by(const float* in, float* out, int n, float(*)(float, float) combine, float(*)(float) finish)");
    // Each block's items, the last one's filled out with its first item, as the kernel fills them.
    const padded = range(blocks).map((b) => range(block).map((t) => values[b * block + t < n ? b * block + t : b * block]));
    const per = (f: (a: number, b: number) => number) => padded.map((items) => items.reduce((a, b) => f(a, b)));
    const run = (combine: unknown, finish: unknown) => {
      const out = fl.full([blocks], NaN, { device: dev() });
      module.fn("reduce_by").launch({ grid: blocks, block, sharedBytes: block * 4 }, x, out, n, combine as fl.KernelArg, finish as fl.KernelArg);
      return Array.from(out.toArray());
    };
    expect(run(module.constant("d_min"), null)).to.deep.equal(per(Math.min));
    expect(run(module.constant("d_max"), module.constant("d_halve"))).to.deep.equal(per(Math.max).map((v) => v / 2));
    // A value the device wrote, read at the launch that takes it.
    module.fn("choose_sum").launch({ grid: 1, block: 1 });
    const sums = run(module.constant("d_sum"), null);
    // Quarters below 2^24 add exactly in f32, in any order.
    expect(sums).to.deep.equal(per((a, b) => a + b));
    // Set from another variable of its type, as cudaMemcpyToSymbol(d_max, &h_min) does.
    module.constant("d_max").set(module.constant("d_min"));
    expect(run(module.constant("d_max"), null)).to.deep.equal(per(Math.min));

    // Only the module's variables of the parameter's type, never an address from TS.
    const label = "kernel reduce_by: argument 3 (combine) must be a __device__ variable of the kernel's module holding a float(*)(float, float), module.constant(name), or null";
    expectThrows(() => run(module.constant("d_halve"), null), fl.ArgumentError, `${label}, got the variable d_halve, a float(*)(float)`);
    expectThrows(() => run(module.constant("d_min").get()[0], null), fl.ArgumentError, `${label}, got ${module.constant("d_min").get()[0]}n`);
    const other = fl.compile("typedef float (*combine_t)(float, float);\n__device__ float f(float a, float b) { return a; }\n__device__ combine_t d_min = f;\n__global__ void k() {}", { device: dev() });
    expectThrows(() => run(other.constant("d_min"), null), fl.ArgumentError, `${label}, got the variable d_min, of another module`);
    expectThrows(() => module.constant("d_min").set([1234]), fl.ArgumentError,
      "constant d_min.set: values must be null or a __device__ variable of the module holding a float(*)(float, float) (module.constant(name)), got [1234]");
    other.dispose();
  });

  it("leaves out host code that calls the runtime through a macro naming it, in a class template another class holds (GPUMD's gpuMalloc for cudaMalloc)", () => {
    const module = fl.compile(`
#define gpuMalloc cudaMalloc
#define gpuFree gpuFree_cuda
#define gpuFree_cuda cudaFree
template <typename T> class GPU_Vector {
 public:
  void resize(size_t n) { gpuMalloc((void**)&data_, n); size_ = n; }
  ~GPU_Vector() { gpuFree(data_); }
  T* data() { return data_; }
 private:
  T* data_ = nullptr;
  size_t size_ = 0;
};
class Neighbor {
 public:
  GPU_Vector<int> NN, NL;
};
__global__ void count_cells(const float* x, int* counts, int n, float cell) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&counts[(int)(x[i] / cell)], 1);
}`, { device: dev(), name: "runtime_alias" });
    const x = range(50).map((i) => (i * 7) % 10);
    const counts = fl.zeros([5], { dtype: "i32", device: dev() });
    module.fn("count_cells").launch({ grid: 2, block: 32 }, fl.tensor(x, { device: dev() }), counts, 50, 2);
    expect(Array.from(counts.toArray())).to.deep.equal(range(5).map((c) => x.filter((v) => Math.floor(v / 2) === c).length));
  });

  it("leaves out a class's host members, those that call the runtime and those marked __host__, keeping its device ones (a spin lock passed by value, as CUDA by Example's)", () => {
    const module = fl.compile(`
class SpinLock {
 public:
  SpinLock() { cudaMalloc((void**)&word, sizeof(int)); cudaMemset(word, 0, sizeof(int)); }
  ~SpinLock() { cudaFree(word); }
  __device__ void acquire() { while (atomicCAS(word, 0, 1) != 0) {} }
  __device__ void release() { atomicExch(word, 0); }
 private:
  int* word;
};
__global__ void locked_sum(SpinLock lock, const float* x, float* total, int n) {
  __shared__ float partial[64];
  float sum = 0.0f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) sum += x[i];
  partial[threadIdx.x] = sum;
  __syncthreads();
  for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) partial[threadIdx.x] += partial[threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    lock.acquire();
    *total += partial[0];
    lock.release();
  }
}`, { device: dev() });
    const n = 5000;
    const total = fl.zeros([1], { device: dev() });
    const word = fl.zeros([1], { dtype: "i32", device: dev() });
    module.fn("locked_sum").launch({ grid: 7, block: 64 }, { word }, fl.tensor(range(n).map((i) => i % 8), { device: dev() }), total, n);
    expect(Array.from(total.toArray())).to.deep.equal([range(n).reduce((a, i) => a + (i % 8), 0)]);
    expect(Array.from(word.toArray())).to.deep.equal([0]);
    // hip-clang's overloads on the execution space: device code takes the __device__ one.
    const overloaded = fl.compile(`
struct Counter {
  __host__ Counter() { start = 1; }
  __device__ Counter() { start = 2; }
  __host__ int step() const { return 10; }
  __device__ int step() const { return 20; }
  int start;
};
__host__ int offset() { return 100; }
__device__ int offset() { return 200; }
__global__ void count(int* out) { Counter c; out[threadIdx.x] = c.start + c.step() + offset(); }`, { device: dev() });
    const counted = fl.full([5], -1, { dtype: "i32", device: dev() });
    overloaded.fn("count").launch({ grid: 1, block: 5 }, counted);
    expect(Array.from(counted.toArray())).to.deep.equal([222, 222, 222, 222, 222]);
    // Prototypes marked __host__ alone, members and free functions, in a project's header
    // (a workshop's kernel.hpp), defined for the host beside the kernel: NVRTC refuses them even unused.
    const header = `#pragma once
struct matrix {
  int* data;
  unsigned n;
  __host__ __device__ int& at(unsigned col, unsigned row);
};
struct runner {
  __host__ static matrix make_gpu(unsigned n);
  __host__ static void cleanup(matrix& gpu);
};
__host__ void run_all(const matrix& a, matrix& b);
`;
    const prototyped = fl.compile(`#include "kernel.hpp"
__host__ __device__ int& matrix::at(unsigned col, unsigned row) { return data[row * n + col]; }
__host__ matrix runner::make_gpu(unsigned n) { matrix m{nullptr, n}; cudaMalloc(&m.data, n * n * sizeof(int)); return m; }
__host__ void runner::cleanup(matrix& gpu) { cudaFree(gpu.data); }
__global__ void transpose_into(matrix a, matrix b) { b.at(threadIdx.y, threadIdx.x) = a.at(threadIdx.x, threadIdx.y); }
__host__ void run_all(const matrix& a, matrix& b) { transpose_into<<<1, dim3(a.n, a.n)>>>(a, b); }`, { device: dev(), headers: { "kernel.hpp": header } });
    const square = fl.tensor(range(9), { dtype: "i32", device: dev() });
    const transposed = fl.full([9], -1, { dtype: "i32", device: dev() });
    prototyped.fn("transpose_into").launch({ grid: 1, block: [3, 3] }, { data: square, n: 3 }, { data: transposed, n: 3 });
    expect(Array.from(transposed.toArray())).to.deep.equal([0, 3, 6, 1, 4, 7, 2, 5, 8]);
  });

  it("launches a kernel that syncs its grid (grid.sync(), also through a device function) cooperatively, every block at once, on the CPU and an NVIDIA GPU", () => {
    const source = `
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
__device__ void grid_barrier() { cg::this_grid().sync(); }
__global__ void two_phase_sum(const float* x, float* partial, float* total, int n) {
  cg::grid_group grid = cg::this_grid();
  __shared__ float s[128];
  float v = 0.f;
  for (unsigned long long i = grid.thread_rank(); i < n; i += grid.size()) v += x[i];
  s[threadIdx.x] = v;
  __syncthreads();
  for (int k = blockDim.x / 2; k > 0; k >>= 1) {
    if (threadIdx.x < k) s[threadIdx.x] += s[threadIdx.x + k];
    __syncthreads();
  }
  if (threadIdx.x == 0) partial[blockIdx.x] = s[0];
  grid.sync();
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    float t = 0.f;
    for (int b = 0; b < gridDim.x; ++b) t += partial[b];
    *total = t;
  }
}
__global__ void through_helper(int* flags, int* seen) {
  if (threadIdx.x == 0) flags[blockIdx.x] = 1;
  grid_barrier();
  if (threadIdx.x == 0) { int c = 0; for (int b = 0; b < gridDim.x; ++b) c += flags[b]; seen[blockIdx.x] = c; }
}
// Each step reads what every block wrote in the one before: wrong at once if a block ran ahead.
__global__ void relay(int* a, int* b, int steps, unsigned long long* grid_facts) {
  cg::grid_group grid = cg::this_grid();
  const unsigned long long i = grid.thread_rank(), n = grid.size();
  a[i] = static_cast<int>(i);
  for (int s = 0; s < steps; ++s) {
    cg::sync(grid);
    b[i] = a[(i + 1) % n] + 1;
    grid.sync();
    a[i] = b[i];
  }
  if (i == 0) {
    grid_facts[0] = grid.is_valid();
    grid_facts[1] = grid.num_blocks();
    grid_facts[2] = grid.block_rank();
  }
}
__global__ void one_block_leaves(int* x) { if (blockIdx.x == 2) return; cg::this_grid().sync(); x[blockIdx.x] = 1; }
// No sync: an ordinary launch, of a grid larger than any GPU holds at once.
__global__ void ranks(unsigned* out) { out[cg::this_grid().thread_rank()] = static_cast<unsigned>(cg::this_grid().thread_rank()); }`;
    const module = fl.compile(source, { device: dev() });
    // Which kernels are launched cooperatively: read after preprocessing, through the functions they call.
    const synced = gridSyncFunctions(`
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
#define SYNC_ALL() cg::this_grid().sync()
__device__ void step_a() { SYNC_ALL(); }
template <int N> __device__ void step_b(int* x) { auto g = cg::this_grid(); if (N > 0) g.sync(); }
__device__ void by_free_function(cg::grid_group& grid) { cg::sync(grid); }
__device__ void block_only() { cg::this_thread_block().sync(); unsigned long long r = cg::this_grid().thread_rank(); (void)r; }
__global__ void k1() { step_a(); }
__global__ void k2(int* x) { step_b<3>(x); }
__global__ void k3() { cg::grid_group grid = cg::this_grid(); by_free_function(grid); }
__global__ void k4() { block_only(); }
__global__ void k5() { if (false) { } }`, {});
    expect([...synced].sort()).to.deep.equal(["by_free_function", "k1", "k2", "k3", "step_a", "step_b"]);
    const n = 10007;
    const x = fl.tensor(range(n).map((i) => (i % 13) - 6), { device: dev() });
    const partial = fl.full([8], -1, { device: dev() }), total = fl.full([1], -1, { device: dev() });
    const flags = fl.zeros([16], { dtype: "i32", device: dev() }), seen = fl.full([16], -1, { dtype: "i32", device: dev() });
    const many = fl.full([4096 * 128], 7, { dtype: "u32", device: dev() });
    module.fn("ranks").launch({ grid: 4096, block: 128 }, many);
    expect(Array.from(many.toArray()).every((v, i) => v === i)).to.equal(true);
    if (dev().backend === "hip") {
      expectThrows(() => { module.fn("two_phase_sum").launch({ grid: 8, block: 128 }, x, partial, total, n); total.toArray(); }, fl.DeviceError,
        /its grid\.sync\(\) needs a cooperative launch, which fuselab makes on NVIDIA GPUs only/);
      return;
    }
    module.fn("two_phase_sum").launch({ grid: 8, block: 128 }, x, partial, total, n);
    expect(Array.from(total.toArray())).to.deep.equal([range(n).reduce((a, i) => a + (i % 13) - 6, 0)]);
    expectThrows(() => module.fn("through_helper").launch({ grid: 100000, block: 128 }, flags, seen), fl.DeviceError,
      /launch of through_helper: grid must hold at most \d+ blocks of 128 threads on .*, as its grid\.sync\(\) needs every block resident \(a cooperative launch\), got 100000/);
    // The device is sound after the refusal.
    module.fn("through_helper").launch({ grid: 16, block: 128 }, flags, seen);
    expect(Array.from(seen.toArray())).to.deep.equal(range(16).map(() => 16));
    // Many syncs, on an awkward grid and block (also in check mode and with 64-lane warps on the CPU).
    const devices = dev().backend === "cpu" ? [dev(), fl.device("cpu", { check: true }), fl.device("cpu", { warpSize: 64 })] : [dev()];
    for (const d of devices) {
      const m = d === dev() ? module : fl.compile(source, { device: d });
      const grid = 13, block = 67, steps = 9, total_threads = grid * block;
      const a = fl.full([total_threads], -7, { dtype: "i32", device: d }), b = fl.full([total_threads], -7, { dtype: "i32", device: d });
      const facts = fl.full([3], 99n, { dtype: "u64", device: d });
      m.fn("relay").launch({ grid, block }, a, b, steps, facts);
      expect(Array.from(a.toArray()), d.name).to.deep.equal(range(total_threads).map((i) => ((i + steps) % total_threads) + steps));
      expect(Array.from(facts.toArray())).to.deep.equal([1n, BigInt(grid), 0n]);
      // A block that returns before a grid.sync() the others wait at: a GPU hangs; the CPU says so.
      if (d.backend !== "cpu") continue;
      const marks = fl.zeros([5], { dtype: "i32", device: d });
      expectThrows(() => { m.fn("one_block_leaves").launch({ grid: 5, block: 40 }, marks); marks.toArray(); }, fl.DeviceError,
        /kernel 'one_block_leaves' deadlocked at grid\.sync\(\) on line \d+: block \(2,0,0\) ended without reaching it/);
    }
  });

  it("stops a cooperative launch on the CPU whose block faults or runs on while the others wait at grid.sync(), and the device stays sound", function () {
    if (dev().backend !== "cpu") this.skip();  // a GPU cannot stop a kernel: the time limit and faults are the CPU's here
    const limited = fl.device("cpu", { timeoutMs: 2000 });
    const module = fl.compile(`
#include <cooperative_groups.h>
__global__ void runs_on(int* x) { if (blockIdx.x == 1) for (;;) atomicAdd(x, 1); cooperative_groups::this_grid().sync(); }
__global__ void faults(int* x, int far) { if (blockIdx.x == 3 && threadIdx.x == 5) x[far] = 1; cooperative_groups::this_grid().sync(); x[blockIdx.x] = 2; }`, { device: limited });
    const x = fl.zeros([8], { dtype: "i32", device: limited });
    expectThrows(() => { module.fn("runs_on").launch({ grid: 6, block: 32 }, x); x.toArray(); }, fl.DeviceError, /kernel 'runs_on' ran past the 2000 ms limit/);
    expectThrows(() => { module.fn("faults").launch({ grid: 6, block: 32 }, x, 1 << 20); x.toArray(); }, fl.DeviceError,
      /kernel 'faults' .*\(block \(3,0,0\), thread \(5,0,0\)\)/);
    const y = fl.zeros([8], { dtype: "i32", device: limited });
    module.fn("faults").launch({ grid: 6, block: 32 }, y, 0);
    expect(Array.from(y.toArray())).to.deep.equal([2, 2, 2, 2, 2, 2, 0, 0]);
  });

  it("sets pointer variables and structs of pointers from tensors, as cudaMemcpyToSymbol of device pointers does (the CS149 renderer's constants)", () => {
    const module = fl.compile(`
struct GlobalConstants {
  int count;
  const float* position;
  float* image;
  float scale;
};
__constant__ GlobalConstants params;
__device__ float* g_marks;
__device__ const int* g_order;
__global__ void render() {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= params.count) return;
  params.image[i] = params.position[g_order[i]] * params.scale;
  if (g_marks != NULL) g_marks[i] = 1.0f;
}`, { device: dev() });
    const n = 45;
    const position = fl.tensor(range(n).map((i) => i * 0.5), { device: dev() });
    const order = fl.tensor(range(n).map((i) => n - 1 - i), { dtype: "i32", device: dev() });
    const image = fl.full([n], NaN, { device: dev() });
    const marks = fl.zeros([n + 3], { device: dev() });
    module.constant("params").set({ count: n, position, image, scale: 4 });
    module.constant("g_order").set(order);
    module.constant("g_marks").set(marks.view(3));
    module.fn("render").launch({ grid: 2, block: 32 }, );
    expect(Array.from(image.toArray())).to.deep.equal(range(n).map((i) => (n - 1 - i) * 0.5 * 4));
    expect(Array.from(marks.toArray())).to.deep.equal([0, 0, 0, ...new Array(n).fill(1)]);
    module.constant("g_marks").set(null);
    expect(module.constant("g_marks").get()).to.deep.equal(new BigUint64Array([0n]));
    const on = dev().describe();
    expectThrows(() => module.constant("g_order").set(image), fl.ArgumentError, `constant g_order.set: values must be an i32 tensor (int*), got an f32 tensor of shape [${n}] on ${on}`);
    expectThrows(() => module.constant("params").set({ count: n, position: 7, image, scale: 1 }), fl.ArgumentError,
      "constant params.set: values.position must be an f32 tensor, a view of one or null (const float*), got 7");
    // A struct's bytes from a typed array: its length in bytes.
    expectThrows(() => module.constant("params").set(new Float32Array(9)), fl.ArgumentError,
      "constant params.set: values must be at most 32 bytes (the variable's size), got 36 bytes (Float32Array(9))");
  });

  it("sets each variable of a declaration naming several (the Oxford course's __constant__ float T, r, sigma;)", () => {
    const module = fl.compile(`
__constant__ float T, r, sigma;
__constant__ float taps[3], scale = 1.0f;
__device__ int lo, hi[2];
__global__ void read_all(float* out) {
  out[0] = T; out[1] = r; out[2] = sigma; out[3] = taps[2] * scale; out[4] = lo + hi[1];
}`, { device: dev() });
    module.constant("T").set([1.5]);
    module.constant("r").set([-2]);
    module.constant("sigma").set([0.25]);
    module.constant("taps").set([0, 0, 3]);
    module.constant("scale").set([4]);
    module.constant("lo").set([5]);
    module.constant("hi").set([6, 7]);
    expect([module.constant("taps").length, module.constant("hi").length, module.constant("sigma").length]).to.deep.equal([3, 2, 1]);
    const out = fl.full([5], NaN, { device: dev() });
    module.fn("read_all").launch({ grid: 1, block: 1 }, out);
    expect(Array.from(out.toArray())).to.deep.equal([1.5, -2, 0.25, 12, 12]);
  });

  it("sets a variable template's instances, named as the source names them (HeCBench's convolution1D: hipMemcpyToSymbol(mask<T>, ...))", () => {
    const module = fl.compile(`
#include <hip/hip_runtime.h>
#define MAX_MASK_WIDTH 8
template <typename T> __constant__ T mask[MAX_MASK_WIDTH];
template <typename T> __device__ T offset;
namespace taps { template <int N> __constant__ float w[N]; }
template <typename T>
__global__ void conv(T* out, const T* in, int n, int width) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  T sum = offset<T>;
  for (int j = 0; j < width; j++) if (i + j < n) sum += in[i + j] * mask<T>[j];
  out[i] = sum;
}
template __global__ void conv<float>(float*, const float*, int, int);
template <int N> __global__ void fir(float* out, const float* in) { out[threadIdx.x] = taps::w<N>[threadIdx.x % N] * in[threadIdx.x]; }
template __global__ void fir<3>(float*, const float*);
`, { device: dev() });
    const n = 45, width = 5;
    const x = range(n).map((i) => (i % 7) - 3);
    const weights = [0.5, -1, 2, 0.25, 1];
    const expected = range(n).map((i) => range(width).reduce((sum, j) => (i + j < n ? sum + x[i + j] * weights[j] : sum), 10));
    const mask = module.constant("mask<float>");
    expect([mask.type, mask.length]).to.deep.equal(["f32", 8]);
    mask.set(weights);
    module.constant("offset<float>").set([10]);
    const out = fl.full([n], NaN, { device: dev() });
    module.fn("conv<float>").launch({ grid: 2, block: 32 }, out, fl.tensor(x, { device: dev() }), n, width);
    expect(Array.from(out.toArray())).to.deep.equal(expected);
    // An instance no code has yet is set before the launch that uses it, as the host's
    // hipMemcpyToSymbol(mask<double>, ...) precedes it; fn() compiles its own copy, set as the module's is.
    module.constant("mask<double>").set(weights);
    module.constant("offset<double>").set([10]);
    const conv64 = module.fn("conv<double>");
    expectThrows(() => module.constant("mask<Undeclared>"), fl.ArgumentError,
      /^module\.constant: name must be an instance of a variable template that the source's types make, got "mask<Undeclared>", which does not compile \(.*Undeclared/);
    const out64 = fl.full([n], NaN, { dtype: "f64", device: dev() });
    conv64.launch({ grid: 2, block: 32 }, out64, fl.tensor(x, { dtype: "f64", device: dev() }), n, width);
    expect(Array.from(out64.toArray())).to.deep.equal(expected);
    // In a namespace, with an integer argument.
    module.constant("taps::w<3>").set([1, 2, 3]);
    const firOut = fl.full([6], NaN, { device: dev() });
    module.fn("fir<3>").launch({ grid: 1, block: 6 }, firOut, fl.tensor(range(6), { device: dev() }));
    expect(Array.from(firOut.toArray())).to.deep.equal([0, 2, 6, 3, 8, 15]);
    expect(Array.from(module.constant("taps::w<3>").get())).to.deep.equal([1, 2, 3]);
  });

  it("takes what projects' sources hold beside their kernels: enum parameters, operators at namespace scope, launchers instantiated by macro, FLT_MAX from cub", () => {
    const launchers = `
template <typename T>
void launch_scale(T* out, const T* in, int n, cudaStream_t stream);
`;
    const module = fl.compile(`
#include <cub/cub.cuh>
#include "launchers.h"
typedef enum { ADAM_MODE_0 = 0, ADAM_MODE_1 = 1 } adamMode_t;
enum class Rounding : uint8_t { Down, Up };
enum pool_op { OP_MAX, OP_AVG };
// An enum's name written with its keyword, as C does (llama.cpp's pool2d.cu), and GNU's
// __extension__ on an anonymous union (its ggml-common.h's block formats).
typedef struct {
  __extension__ union {
    struct { short d; short m; };
    int dm;
  };
} block_q;
__global__ void pool_kind(float* out, const enum pool_op op) {
  block_q q;
  q.dm = 0;
  q.m = 1;
  out[0] = (op == OP_AVG ? 2.0f : 1.0f) + q.d + (q.dm != 0 ? 0.0f : 100.0f);
}
struct V { int x; };
__host__ __device__ __forceinline__ bool operator!=(const V& a, const V& b) { return a.x != b.x; }
__host__ __device__ __forceinline__ bool operator==(const V& a, const V& b) { return a.x == b.x; }
template <typename T>
__global__ void scale(T* out, const T* in, int n, adamMode_t mode, Rounding rounding) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  V a{i}, b{3};
  if (i < n) out[i] = in[i] * (mode == ADAM_MODE_1 ? T(2) : T(3)) + (rounding == Rounding::Up ? T(1) : T(0)) + (a != b ? T(0) : -FLT_MAX);
}
template <typename T>
void launch_scale(T* out, const T* in, int n, cudaStream_t stream) {
  scale<T><<<(n + 127) / 128, 128, 0, stream>>>(out, in, n, ADAM_MODE_1, Rounding::Up);
}
#define INSTANTIATE_LAUNCH_SCALE(T) template void launch_scale<T>(T * out, const T* in, int n, cudaStream_t stream);
INSTANTIATE_LAUNCH_SCALE(float)
INSTANTIATE_LAUNCH_SCALE(double)
`, { device: dev(), headers: { "launchers.h": launchers } });
    const n = 9;
    const out = fl.full([n], NaN, { device: dev() });
    module.fn("scale<float>").launch({ grid: 1, block: 32 }, out, fl.tensor(range(n), { device: dev() }), n, 1, 1);
    expect(Array.from(out.toArray())).to.deep.equal(range(n).map((i) => (i === 3 ? -3.4028234663852886e38 : 2 * i + 1)));
    module.fn("scale<float>").launch({ grid: 1, block: 32 }, out, fl.tensor(range(n), { device: dev() }), n, 0, 0);
    expect(Array.from(out.toArray())).to.deep.equal(range(n).map((i) => (i === 3 ? -3.4028234663852886e38 : 3 * i)));
    expectThrows(() => module.fn("scale<float>").launch({ grid: 1, block: 32 }, out, out, n, 0, 256), fl.ArgumentError, /rounding.*256/);
    module.fn("pool_kind").launch({ grid: 1, block: 1 }, out, 1);
    expect(out.toArray()[0]).to.equal(2);
    // Host functions a macro defines, invoked through another macro, leave with the host helpers they call (cub's test_util.h).
    const overloads = fl.compile(`#include <iostream>
template <typename T> T CoutCast(T val) { return val; }
#define VEC_OVERLOAD_1(T) std::ostream& operator<<(std::ostream& os, const T& val) { os << CoutCast(val.x); return os; } \\
    __host__ __device__ T operator+(const T& a, const T& b) { T r = {a.x + b.x}; return r; }
#define VEC_OVERLOAD(B) VEC_OVERLOAD_1(B##1)
VEC_OVERLOAD(int)
VEC_OVERLOAD(float)
__global__ void offsets(int* out) { out[threadIdx.x] = threadIdx.x + 5; }
`, { device: dev() });
    const offsets = fl.full([4], -1, { dtype: "i32", device: dev() });
    overloads.fn("offsets").launch({ grid: 1, block: 4 }, offsets);
    expect(Array.from(offsets.toArray())).to.deep.equal([5, 6, 7, 8]);
  });

  it("leaves out a host class's explicit instantiations, written out or made by macros, also a nested macro's last one without its ';' (caffe's INSTANTIATE_CLASS, INSTANTIATE_LAYER_GPU_FUNCS)", () => {
    const module = fl.compile(`#include <vector>
#define INSTANTIATE_CLASS(classname) template class classname<float>; template class classname<double>
#define INSTANTIATE_FORWARD(classname) \\
  template void classname<float>::Forward_gpu(const std::vector<float*>& bottom); \\
  template void classname<double>::Forward_gpu(const std::vector<double*>& bottom);
#define INSTANTIATE_BACKWARD(classname) \\
  template void classname<float>::Backward_gpu(const std::vector<float*>& top); \\
  template void classname<double>::Backward_gpu(const std::vector<double*>& top)
#define INSTANTIATE_FUNCS(classname) INSTANTIATE_FORWARD(classname); INSTANTIATE_BACKWARD(classname)
template <typename Dtype> class Layer {
 public:
  void Forward_gpu(const std::vector<Dtype*>& bottom);
  void Backward_gpu(const std::vector<Dtype*>& top);
};
template <typename Dtype> __global__ void relu(Dtype* x, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = x[i] > 0 ? x[i] : 0;
}
template <typename Dtype> void Layer<Dtype>::Forward_gpu(const std::vector<Dtype*>& bottom) { relu<Dtype><<<1, 32>>>(bottom[0], 32); }
template <typename Dtype> void Layer<Dtype>::Backward_gpu(const std::vector<Dtype*>& top) { relu<Dtype><<<1, 32>>>(top[0], 32); }
INSTANTIATE_CLASS(Layer);
INSTANTIATE_FUNCS(Layer);
template class Layer<int>;
template __global__ void relu<float>(float* x, int n);
`, { device: dev() });
    expect(module.kernels).to.deep.equal(["relu<float>"]);
    const x = fl.tensor([-2, -0.5, 0, 1.5, 3], { device: dev() });
    module.fn("relu<float>").launch({ grid: 1, block: 32 }, x, 5);
    expect(Array.from(x.toArray())).to.deep.equal([0, 0, 0, 1.5, 3]);
  });

  it("reads namespace-scope constants initialized from other constants, as nvcc's host pass initializes them (CUDA Programming's neighbor_gpu.cu)", () => {
    const module = fl.compile(`
typedef double real;
const real cutoff = 1.9;
const real cutoff_square = cutoff * cutoff;
const int N = 64, M = 3;
static const unsigned int MASK = 0xffu;
__global__ void within(double* out, const double* d2, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = (d2[i] < cutoff_square ? 1.0 : 0.0) + N * M + (MASK & 1);
}`, { device: dev() });
    const d2 = [0, 3.6, 3.62, 4];
    const out = fl.full([4], NaN, { dtype: "f64", device: dev() });
    module.fn("within").launch({ grid: 1, block: 32 }, out, fl.tensor(d2, { dtype: "f64", device: dev() }), 4);
    expect(Array.from(out.toArray())).to.deep.equal(d2.map((v) => (v < 1.9 * 1.9 ? 1 : 0) + 193));
  });

  it("ignores __restrict__ on the class a pointer points to, as nvcc and g++ do, and keeps it on the pointer (lightllm's rmsnorm parameters)", () => {
    const module = fl.compile(`
#include <cuda_bf16.h>
using bf16_t = __nv_bfloat16;
__device__ float value_at(const bf16_t __restrict__ *x, int i) { return __bfloat162float(x[i]); }
__global__ void scale_rows(bf16_t __restrict__ *y, const bf16_t __restrict__ *x, const float* __restrict__ w, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = __float2bfloat16(value_at(x, i) * w[i % 3]);
}`, { device: dev() });
    const n = 77, xs = range(n).map((i) => (i % 9) - 4), w = [0.5, 2, -1];
    const y = fl.full([n], NaN, { dtype: "bf16", device: dev() });
    module.fn("scale_rows").launch({ grid: 2, block: 64 }, y, fl.tensor(xs, { dtype: "bf16", device: dev() }), fl.tensor(w, { device: dev() }), n);
    expect(Array.from(y.toArray())).to.deep.equal(xs.map((v, i) => v * w[i % 3]));
  });

  it("takes a pointer to pointers for a world of objects made with device-side new, virtual functions and all (Ray Tracing in One Weekend in CUDA)", () => {
    const module = fl.compile(`
class shape {
 public:
  __device__ virtual float area() const = 0;
  __device__ virtual ~shape() {}
};
class square : public shape {
 public:
  __device__ square(float s) : side(s) {}
  __device__ float area() const override { return side * side; }
  float side;
};
class disc : public shape {
 public:
  __device__ disc(float r) : radius(r) {}
  __device__ float area() const override { return 3.0f * radius * radius; }
  float radius;
};
__global__ void create_world(shape** d_list, int n) {
  if (threadIdx.x == 0 && blockIdx.x == 0)
    for (int i = 0; i < n; i++) d_list[i] = i % 2 ? static_cast<shape*>(new disc(i)) : new square(i);
}
__global__ void areas(float* out, shape** d_list, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = d_list[i]->area();
}
__global__ void free_world(shape** d_list, int n) {
  if (threadIdx.x == 0 && blockIdx.x == 0) for (int i = 0; i < n; i++) delete d_list[i];
}`, { device: dev() });
    const n = 7;
    const list = fl.zeros([n], { dtype: "u64", device: dev() }), out = fl.full([n], NaN, { device: dev() });
    module.fn("create_world").launch({ grid: 1, block: 1 }, list, n);
    module.fn("areas").launch({ grid: 1, block: 32 }, out, list, n);
    module.fn("free_world").launch({ grid: 1, block: 1 }, list, n);
    expect(Array.from(out.toArray())).to.deep.equal(range(n).map((i) => (i % 2 ? 3 * i * i : i * i)));
    expect(module.kernels).to.deep.equal(["create_world", "areas", "free_world"]);
  });

  it("reads a course's helper header and a challenge's cub scan: alias templates with __restrict__, thrust's containers in aliases, thrust's function objects", () => {
    const cx = `
#include <thrust/host_vector.h>
#include <thrust/device_vector.h>
template <typename T> using r_Ptr = T* __restrict__;
template <typename T> using cr_Ptr = const T* __restrict__;
using fptr = float* __restrict__;
template <typename T> using thrustHvec = thrust::host_vector<T>;
template <typename T> using thrustDvec = thrust::device_vector<T>;
template <typename T> T* trDptr(thrustDvec<T>& a) { return thrust::raw_pointer_cast(a.data()); }
`;
    const module = fl.compile(`
#include "cx.h"
#include <sm_30_intrinsics.h>
#include <cub/cub.cuh>
__global__ void saxpy(r_Ptr<float> y, cr_Ptr<float> x, fptr z, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) { y[i] = a * x[i] + y[i]; z[i] = thrust::maximum<float>()(x[i], 0.f); }
}
__global__ void running_sum(float* out, const float* in, int n) {
  typedef cub::BlockScan<float, 128> Scan;
  __shared__ typename Scan::TempStorage storage;
  float v = threadIdx.x < n ? in[threadIdx.x] : 0.f, total;
  Scan(storage).InclusiveScan(v, v, thrust::plus<float>(), total);
  if (threadIdx.x < n) out[threadIdx.x] = v + (thrust::less<void>()(total, 0) ? 1000.f : 0.f);
}`, { device: dev(), headers: { "cx.h": cx } });
    const n = 100;
    const x = fl.tensor(range(n).map((i) => (i % 7) - 3), { device: dev() }), y = fl.tensor(range(n), { device: dev() }), z = fl.full([n], NaN, { device: dev() });
    module.fn("saxpy").launch({ grid: 1, block: 128 }, y, x, z, 2, n);
    expect(Array.from(y.toArray())).to.deep.equal(range(n).map((i) => 2 * ((i % 7) - 3) + i));
    expect(Array.from(z.toArray())).to.deep.equal(range(n).map((i) => Math.max((i % 7) - 3, 0)));
    const sums = fl.full([n], NaN, { device: dev() });
    module.fn("running_sum").launch({ grid: 1, block: 128 }, sums, fl.tensor(range(n), { device: dev() }), n);
    expect(Array.from(sums.toArray())).to.deep.equal(range(n).map((i) => (i * (i + 1)) / 2));
  });

  it("names the dynamic shared memory as an array, so that a reference cast from it is the shared memory (cub's example_block_reduce_dyn_smem.cu)", () => {
    const module = fl.compile(`
struct Totals { int sum; int count; int max; int pad; };
extern __shared__ float file_scope[];
__global__ void tally(int* out, float* seen, const int* in, int n) {
  extern __shared__ __align__(16) char smem[];
  Totals& totals = reinterpret_cast<Totals&>(smem);
  if (threadIdx.x == 0) totals = Totals{0, 0, -1, 0};
  __syncthreads();
  if (threadIdx.x < n) { atomicAdd(&totals.sum, in[threadIdx.x]); atomicAdd(&totals.count, 1); atomicMax(&totals.max, in[threadIdx.x]); }
  __syncthreads();
  if (threadIdx.x < 3) out[threadIdx.x] = reinterpret_cast<int*>(smem)[threadIdx.x];
  float* past = file_scope + 4;
  if (threadIdx.x == 0) { past[0] = 1.5f; seen[0] = file_scope[4]; }
}`, { device: dev() });
    const n = 50;
    const input = range(n).map((i) => (i * 37) % 101);
    const out = fl.full([3], -7, { dtype: "i32", device: dev() }), seen = fl.full([1], NaN, { device: dev() });
    module.fn("tally").launch({ grid: 1, block: 64, sharedBytes: 64 }, out, seen, fl.tensor(input, { dtype: "i32", device: dev() }), n);
    expect(Array.from(out.toArray())).to.deep.equal([input.reduce((a, b) => a + b, 0), n, Math.max(...input)]);
    expect(Array.from(seen.toArray())).to.deep.equal([1.5]);
  });

  it("makes warpSize a constant in HIP sources, as HIP through ROCm 6 does, sizing an array by it (AMD's training reduction; emulator)", () => {
    const source = `#include <hip/hip_runtime.h>
constexpr int BLOCKSIZE = 256;
__global__ void block_sum(const double* in, double* out) {
  __shared__ double warpSums[(BLOCKSIZE / warpSize)];
  double v = in[threadIdx.x];
  for (int offset = warpSize / 2; offset > 0; offset /= 2) v += __shfl_down(v, offset);
  if (threadIdx.x % warpSize == 0) warpSums[threadIdx.x / warpSize] = v;
  __syncthreads();
  if (threadIdx.x == 0) { double s = 0; for (int i = 0; i < blockDim.x / warpSize; i++) s += warpSums[i]; *out = s + sizeof(warpSums) / sizeof(double); }
}`;
    for (const warpSize of [32, 64] as const) {
      const cpu = fl.device("cpu", { warpSize });
      const out = fl.full([1], NaN, { dtype: "f64", device: cpu });
      fl.compile(source, { device: cpu }).fn("block_sum").launch({ grid: 1, block: 256 }, fl.tensor(range(256), { dtype: "f64", device: cpu }), out);
      expect(Array.from(out.toArray()), `warpSize ${warpSize}`).to.deep.equal([255 * 128 + 256 / warpSize]);
    }
  });

  it("rounds float and double arithmetic toward zero, up and down as its _rz, _ru and _rd intrinsics name, bit for bit", () => {
    // One kernel for each type, its operations' names: add, sub, mul, div, fma, rcp, sqrt.
    const directed = (name: string, T: string, [add, sub, mul, div, fma, rcp, sqrt]: string[]) => `
__global__ void ${name}(const ${T}* a, const ${T}* b, const ${T}* c, ${T}* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const ${T} r[] = {EACH(${add}), EACH(${sub}), EACH(${mul}), EACH(${div}),
                    ${fma}_rz(a[i], b[i], c[i]), ${fma}_ru(a[i], b[i], c[i]), ${fma}_rd(a[i], b[i], c[i]),
                    ${rcp}_rz(b[i]), ${rcp}_ru(b[i]), ${rcp}_rd(b[i]), ${sqrt}_rz(b[i]), ${sqrt}_ru(b[i]), ${sqrt}_rd(b[i])};
  for (int k = 0; k < 25; k++) out[25 * i + k] = r[k];
  // The next launch's values: the mode of this thread's worker is back to nearest.
  out[25 * n + i] = a[i] / 3 + b[i];
}`;
    const module = fl.compile(`
#define EACH(op) op##_rz(a[i], b[i]), op##_ru(a[i], b[i]), op##_rd(a[i], b[i]), op##_rn(a[i], b[i])
${directed("directed_f32", "float", ["__fadd", "__fsub", "__fmul", "__fdiv", "__fmaf", "__frcp", "__fsqrt"])}
${directed("directed_f64", "double", ["__dadd", "__dsub", "__dmul", "__ddiv", "__fma", "__drcp", "__dsqrt"])}`, { device: dev() });
    // float: the exact result lies strictly between two floats unless its double is one;
    // values are chosen so that a double holds every sum, product and fma exactly.
    const up = (x: number) => { const f = new Float32Array([x]), u = new Int32Array(f.buffer); u[0] += x >= 0 ? 1 : -1; return x === 0 ? 1.401298464324817e-45 : f[0]; };
    const down = (x: number) => -up(-x);
    const rounded = (exact: number) => {
      const near = Math.fround(exact);
      const below = near > exact ? down(near) : near, above = near < exact ? up(near) : near;
      return [exact < 0 ? above : below, above, below, near];
    };
    const n = 41;
    const a = range(n).map((i) => Math.fround((i % 2 ? -1 : 1) * (1 + i * 0.37) / 7));
    const b = range(n).map((i) => Math.fround(0.3 + i * 1.13));
    const c = range(n).map((i) => Math.fround((i % 3 - 1) * 1e-3 * (i + 1)));
    const out = fl.full([25 * n + n], NaN, { device: dev() });
    module.fn("directed_f32").launch({ grid: 2, block: 32 }, fl.tensor(a, { device: dev() }), fl.tensor(b, { device: dev() }), fl.tensor(c, { device: dev() }), out, n);
    const expected = range(n).flatMap((i) => {
      const [x, y, z] = [a[i], b[i], c[i]];
      const quotient = x / y, reciprocal = 1 / y, root = Math.sqrt(y);
      for (const v of [quotient, reciprocal, root]) expect(Math.fround(v) === v, `${v} is a float`).to.equal(false);
      return [...rounded(x + y), ...rounded(x - y), ...rounded(x * y), ...rounded(quotient),
        ...rounded(x * y + z).slice(0, 3), ...rounded(reciprocal).slice(0, 3), ...rounded(root).slice(0, 3)];
    });
    expect(Array.from(out.toArray())).to.deep.equal([...expected, ...range(n).map((i) => Math.fround(Math.fround(a[i] / 3) + b[i]))]);
    // The fma that keeps denormals under -ftz=true rounds alike.
    const ieee = fl.compile(`
__global__ void fma_ieee(const float* a, const float* b, const float* c, float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  out[4 * i] = __fmaf_ieee_rz(a[i], b[i], c[i]); out[4 * i + 1] = __fmaf_ieee_ru(a[i], b[i], c[i]);
  out[4 * i + 2] = __fmaf_ieee_rd(a[i], b[i], c[i]); out[4 * i + 3] = __fmaf_ieee_rn(a[i], b[i], c[i]);
}`, { device: dev() });
    const fused = fl.full([4 * n], NaN, { device: dev() });
    ieee.fn("fma_ieee").launch({ grid: 2, block: 32 }, fl.tensor(a, { device: dev() }), fl.tensor(b, { device: dev() }), fl.tensor(c, { device: dev() }), fused, n);
    expect(Array.from(fused.toArray())).to.deep.equal(range(n).flatMap((i) => rounded(a[i] * b[i] + c[i])));
    // double: results known to the bit (e: 2^-52).
    const e = 2 ** -52;
    const da = [1, -1, 1 + e, 1, 1 + e], db = [2 ** -60, -(2 ** -60), 1 + e, 3, 2], dc = [0, 0, -1, 0, 0];
    const dout = fl.full([25 * 5 + 5], NaN, { dtype: "f64", device: dev() });
    module.fn("directed_f64").launch({ grid: 1, block: 8 }, fl.tensor(da, { dtype: "f64", device: dev() }), fl.tensor(db, { dtype: "f64", device: dev() }),
      fl.tensor(dc, { dtype: "f64", device: dev() }), dout, 5);
    const got = Array.from(dout.toArray() as Float64Array);
    const row = (i: number) => got.slice(25 * i, 25 * i + 25);
    expect(row(0).slice(0, 4), "1 + 2^-60").to.deep.equal([1, 1 + e, 1, 1]);
    expect(row(1).slice(0, 4), "-1 - 2^-60").to.deep.equal([-1, -1, -1 - e, -1]);
    expect(row(2).slice(8, 12), "(1 + e)^2").to.deep.equal([1 + 2 * e, 1 + 3 * e, 1 + 2 * e, 1 + 2 * e]);
    expect(row(2).slice(16, 19), "fma((1 + e), (1 + e), -1)").to.deep.equal([2 * e, 2 * e + 2 ** -103, 2 * e]);
    const third = 1 / 3;  // below a third
    expect(row(3).slice(12, 16), "1 / 3").to.deep.equal([third, third + 2 ** -54, third, third]);
    expect(row(3).slice(19, 22), "rcp(3)").to.deep.equal([third, third + 2 ** -54, third]);
    const root2 = Math.SQRT2;  // above the square root of 2
    expect(row(4).slice(22, 25), "sqrt(2)").to.deep.equal([root2 - e, root2, root2 - e]);
    expect(got.slice(125), "nearest again").to.deep.equal(range(5).map((i) => da[i] / 3 + db[i]));
  });

  it("gives CUDA's math functions beside the C library's: the inverse error functions, sinpi and cospi exact at integers and halves, scaled norms, Bessel's I0 and I1, __fns, umax and the like, __hcmadd", () => {
    const module = fl.compile(`
#include <cuda_fp16.h>
__global__ void functions(const double* x, double* out, float* outf) {
  const int i = threadIdx.x;
  const double v = x[i];
  double s, c;
  sincospi(v, &s, &c);
  float sf, cf;
  sincospif(static_cast<float>(v), &sf, &cf);
  out[8 * i] = sinpi(v);
  out[8 * i + 1] = cospi(v);
  out[8 * i + 2] = s + 2 * c;
  out[8 * i + 3] = sf + 2 * cf + sinpif(static_cast<float>(v)) * 4 + cospif(static_cast<float>(v)) * 8;
  out[8 * i + 4] = erfinv(v / 4);
  out[8 * i + 5] = erfcinv(v / 4 + 1);
  out[8 * i + 6] = cyl_bessel_i0(v) + 10 * cyl_bessel_i1(v);
  out[8 * i + 7] = normcdfinv(v / 8 + 0.5);
  outf[4 * i] = erfinvf(static_cast<float>(v / 4));
  outf[4 * i + 1] = erfcinvf(static_cast<float>(v / 4 + 1));
  outf[4 * i + 2] = cyl_bessel_i0f(static_cast<float>(v)) + 10 * cyl_bessel_i1f(static_cast<float>(v));
  outf[4 * i + 3] = normcdfinvf(static_cast<float>(v / 8 + 0.5));
}
__global__ void exact(double* out, unsigned* bits, __half2* complex, const __half2* ca, const __half2* cb, const __half2* cc) {
  const double big[4] = {3e300, 4e300, 12e300, 84e300};
  const float small[4] = {3e-30f, 4e-30f, 12e-30f, 84e-30f};
  out[0] = norm(4, big);
  out[1] = norm3d(3e300, 4e300, 12e300);
  out[2] = norm4d(3, 4, 12, 84);
  out[3] = rnorm3d(3, 4, 12);
  out[4] = normf(4, small);
  out[5] = norm3df(3e30f, 4e30f, 12e30f);
  out[6] = rnorm4df(3, 4, 12, 84);
  out[7] = rnormf(4, small);
  out[8] = erfcinv(1e-300);
  out[9] = rnorm4d(3, 4, 12, 84) + norm4df(3, 4, 12, 84) + rnorm3df(3, 4, 12);
  const unsigned mask = 0x8c0c4a31u;
  const int offsets[6] = {0, 1, 3, -1, -4, 20};
  for (int k = 0; k < 6; k++) {
    bits[k] = __fns(mask, 9, offsets[k]);
    bits[6 + k] = __fns(mask, 0, offsets[k]);
  }
  bits[12] = __fns(mask, 8, 0);
  bits[13] = umax(7u, 0xfffffff0u) + umin(3u, 9u);
  bits[14] = static_cast<unsigned>(llmin(-5, 3) + llmax(-5, 3) * 10);
  bits[15] = static_cast<unsigned>(ullmax(1ull << 40, 5) >> 20) + static_cast<unsigned>(ullmin(1ull << 40, 5));
  complex[threadIdx.x] = __hcmadd(ca[threadIdx.x], cb[threadIdx.x], cc[threadIdx.x]);
}`, { device: dev() });
    const xs = [0, 1, -2, 0.5, -1.5, 2.25, 3, 1e-3, -0.75, 7.5];
    const out = fl.full([8 * xs.length], NaN, { dtype: "f64", device: dev() }), outf = fl.full([4 * xs.length], NaN, { device: dev() });
    module.fn("functions").launch({ grid: 1, block: xs.length }, fl.tensor(xs, { dtype: "f64", device: dev() }), out, outf);
    const got = Array.from(out.toArray() as Float64Array), gotf = Array.from(outf.toArray());
    const sinpi = (v: number) => (Number.isInteger(v) ? (v < 0 || Object.is(v, -0) ? -0 : 0) : Number.isInteger(v - 0.5) ? (Math.floor(v) % 2 === 0 ? 1 : -1) : Math.sin(Math.PI * v));
    const cospi = (v: number) => (Number.isInteger(v - 0.5) ? 0 : Number.isInteger(v) ? (Math.abs(v) % 2 === 0 ? 1 : -1) : Math.cos(Math.PI * v));
    // Exactly at integers and halves; elsewhere within 2 ulps of the double.
    const close = (g: number, want: number, rel: number, what: string) => expect(Math.abs(g - want), `${what}: got ${g}, expected ${want}`).to.be.at.most(rel * Math.max(Math.abs(want), 1e-300));
    xs.forEach((v, i) => {
      if (Number.isInteger(2 * v)) {
        expect([got[8 * i], got[8 * i + 1]], `sinpi, cospi of ${v}`).to.deep.equal([sinpi(v), cospi(v)]);
        expect(got[8 * i + 2], `sincospi of ${v}`).to.equal(sinpi(v) + 2 * cospi(v));
        expect(got[8 * i + 3], `sincospif, sinpif, cospif of ${v}`).to.equal(sinpi(v) + 2 * cospi(v) + 4 * sinpi(v) + 8 * cospi(v));
      } else {
        close(got[8 * i], sinpi(v), 5e-16, `sinpi(${v})`);
        close(got[8 * i + 1], cospi(v), 5e-16, `cospi(${v})`);
      }
    });
    // References from the series: erf's Taylor series, I0's and I1's; each inverse checked through its function.
    const bessel = (v: number) => {
      let i0 = 0, i1 = 0, term = 1;  // term: (v/2)^(2k) / (k!)^2
      for (let k = 0; k < 60; k++) {
        i0 += term;
        i1 += (term * (v / 2)) / (k + 1);
        term *= (v / 2) ** 2 / ((k + 1) * (k + 1));
      }
      return i0 + 10 * i1;
    };
    const inverse = (g: number, y: number, f: (x: number) => number, tolerance: number, what: string) =>
      expect(Math.abs(f(g) - y), `${what}: got ${g}, whose value is ${f(g)}`).to.be.at.most(tolerance);
    xs.forEach((v, i) => {
      const y = v / 4, p = v / 8 + 0.5;
      if (Math.abs(y) < 1) {
        inverse(got[8 * i + 4], y, erfSeries, 1e-15, `erfinv(${y})`);
        inverse(got[8 * i + 5], -y, erfSeries, 1e-15, `erfcinv(${1 + y})`);
        inverse(gotf[4 * i], y, erfSeries, 3e-7, `erfinvf(${y})`);
        inverse(gotf[4 * i + 1], -y, erfSeries, 3e-7, `erfcinvf(${1 + y})`);
      }
      close(got[8 * i + 6], bessel(v), 1e-14, `I0 + 10 I1 at ${v}`);
      close(gotf[4 * i + 2], bessel(Math.fround(v)), 1e-6, `I0f + 10 I1f at ${v}`);
      if (p > 0 && p < 1) {
        const cdf = (x: number) => 0.5 * (1 + erfSeries(x / Math.SQRT2));
        inverse(got[8 * i + 7], p, cdf, 1e-15, `normcdfinv(${p})`);
        inverse(gotf[4 * i + 3], Math.fround(p), cdf, 2e-7, `normcdfinvf(${p})`);
      }
    });
    const norms = fl.full([10], NaN, { dtype: "f64", device: dev() }), bits = fl.full([16], 7, { dtype: "u32", device: dev() });
    const ca = [[1, 2], [0.5, -3], [-2, 0.25]], cb = [[3, -1], [2, 2], [0.125, 8]], cc = [[0.5, 0.5], [-1, 4], [100, -0.75]];
    const toHalf2 = (pairs: number[][]) => fl.tensor(pairs.flat(), { dtype: "f16", device: dev() });
    const complex = fl.full([6], NaN, { dtype: "f16", device: dev() });
    module.fn("exact").launch({ grid: 1, block: 3 }, norms, bits, complex, toHalf2(ca), toHalf2(cb), toHalf2(cc));
    const normsGot = Array.from(norms.toArray() as Float64Array);
    const expectedNorms = [85e300, 13e300, 85, 1 / 13, Math.fround(85e-30), Math.fround(13e30), Math.fround(1 / 85), Math.fround(1 / 85e-30)];
    expectedNorms.forEach((want, k) => close(normsGot[k], want, k < 4 ? 4e-16 : 2.5e-7, `norm ${k}`));
    // erfc's asymptotic series, which its terms make exact to 1e-13 this far out.
    const logErfc = (x: number) => -x * x - Math.log(x * Math.sqrt(Math.PI)) + Math.log(1 - 1 / (2 * x * x) + 3 / (4 * x ** 4) - 15 / (8 * x ** 6) + 105 / (16 * x ** 8));
    expect(Math.abs(logErfc(normsGot[8]) - Math.log(1e-300)), `erfcinv(1e-300) = ${normsGot[8]}`).to.be.at.most(1e-11);
    close(normsGot[9], 1 / 85 + 85 + 1 / 13, 3e-7, "rnorm4d + norm4df + rnorm3df");
    // PTX's fns: the |offset|-th set bit from base on, itself counted; 0xffffffff when none.
    const fns = (mask: number, base: number, offset: number) => {
      if (offset === 0) return (mask >>> base) & 1 ? base : 0xffffffff;
      let count = Math.abs(offset) - 1;
      for (let pos = base; pos >= 0 && pos < 32; pos += Math.sign(offset)) {
        if (!((mask >>> pos) & 1)) continue;
        if (count === 0) return pos;
        count--;
      }
      return 0xffffffff;
    };
    const mask = 0x8c0c4a31, offsets = [0, 1, 3, -1, -4, 20];
    expect(Array.from(bits.toArray())).to.deep.equal([...offsets.map((o) => fns(mask, 9, o)), ...offsets.map((o) => fns(mask, 0, o)), fns(mask, 8, 0),
      0xfffffff0 + 3, 25, (2 ** 40 / 2 ** 20) + 5]);
    // (a.x + i a.y)(b.x + i b.y) + c, in the toolkit's order of half fmas (each exact here).
    expect(Array.from(complex.toArray())).to.deep.equal(range(3).flatMap((k) => [cc[k][0] + ca[k][0] * cb[k][0] - ca[k][1] * cb[k][1], cc[k][1] + ca[k][0] * cb[k][1] + ca[k][1] * cb[k][0]]));
  });

  it("takes CUDA's float overloads of the double names (sincos, sinpi, erfinv, j0 ... of a float) and its erfcx, scaled so that it keeps its precision far out (JAX's Kepler solver)", () => {
    const module = fl.compile(`
__global__ void overloads(const float* x, float* out, const double* d, double* scaled, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float v = x[i];
  float s, c, sf, cf;
  sincos(v, &s, &c);
  sincosf(v, &sf, &cf);
  out[4 * i] = (s == sf && c == cf) ? 1.0f : 0.0f;
  sincospi(v, &s, &c);
  sincospif(v, &sf, &cf);
  out[4 * i + 1] = (s == sf && c == cf) ? 1.0f : 0.0f;
  const bool same = exp10(v) == exp10f(v) && rsqrt(v) == rsqrtf(v) && rcbrt(v) == rcbrtf(v) && sinpi(v) == sinpif(v) && cospi(v) == cospif(v) &&
                    j0(v) == j0f(v) && j1(v) == j1f(v) && jn(2, v) == jnf(2, v) && y0(v) == y0f(v) && y1(v) == y1f(v) && yn(2, v) == ynf(2, v) &&
                    erfcx(v) == erfcxf(v) && normcdf(v) == normcdff(v);
  const float p = v / 16.0f;  // each inverse's argument within its domain
  const bool inverses = erfinv(p) == erfinvf(p) && erfcinv(p + 1.0f) == erfcinvf(p + 1.0f) && normcdfinv(p + 0.5f) == normcdfinvf(p + 0.5f);
  out[4 * i + 2] = same && inverses ? 1.0f : 0.0f;
  out[4 * i + 3] = sizeof(sinpi(v)) + sizeof(erfinv(v)) + sizeof(j0(v));
  scaled[i] = erfcx(d[i]);
}`, { device: dev() });
    const xs = [0.3, 1.7, 2.5, 3.9, 5.25], n = xs.length;
    const ds = [0, 1, -1, 0.5, 2.2, 3, 7.5, 26.5, 30, 1e4, -3];
    const out = fl.full([4 * n], NaN, { device: dev() }), scaled = fl.full([ds.length], NaN, { dtype: "f64", device: dev() });
    module.fn("overloads").launch({ grid: 1, block: 32 }, fl.tensor(xs, { device: dev() }), out, fl.tensor(ds, { dtype: "f64", device: dev() }), scaled, ds.length);
    expect(Array.from(out.toArray()).slice(0, 4 * n)).to.deep.equal(xs.flatMap(() => [1, 1, 1, 12]));
    // exp(x^2) erfc(x): from erf's Taylor series below 2, else Laplace's continued fraction for erfc.
    const erfcx = (x: number) => {
      if (x < 2) return Math.exp(x * x) * (1 - erfSeries(x));
      let fraction = x;
      for (let k = 400; k >= 1; k--) fraction = x + k / 2 / fraction;
      return 1 / (Math.sqrt(Math.PI) * fraction);
    };
    Array.from(scaled.toArray() as Float64Array).forEach((g, i) => {
      const want = ds[i] < 0 ? 2 * Math.exp(ds[i] * ds[i]) - erfcx(-ds[i]) : erfcx(ds[i]);
      expect(Math.abs(g - want), `erfcx(${ds[i]}): got ${g}, expected ${want}`).to.be.at.most(3e-14 * want);
    });
  });

  it("compares f16 and bf16 values and pairs in every form the toolkit names: ordered and unordered, lanes as 1 or 0, masks, both-lanes tests and operators", () => {
    const ops: [string, (x: number, y: number) => boolean][] = [
      ["eq", (x, y) => x === y], ["ne", (x, y) => x < y || x > y], ["lt", (x, y) => x < y], ["le", (x, y) => x <= y],
      ["gt", (x, y) => x > y], ["ge", (x, y) => x >= y], ["equ", (x, y) => !(x < y || x > y)], ["neu", (x, y) => x !== y],
      ["ltu", (x, y) => !(x >= y)], ["leu", (x, y) => !(x > y)], ["gtu", (x, y) => !(x <= y)], ["geu", (x, y) => !(x < y)]];
    const module = fl.compile(`
#include <cuda_fp16.h>
#include <cuda_bf16.h>
template <typename H2> __global__ void compare(unsigned* out, const H2* a, const H2* b) {
  const H2 x = a[threadIdx.x], y = b[threadIdx.x];
  unsigned* r = out + 54 * threadIdx.x;
  int k = 0;
#define ALL(op) r[k++] = __h##op(x.x, y.x); r[k++] = __low2float(__h##op##2(x, y)) + 2 * __high2float(__h##op##2(x, y)); \\
                r[k++] = __h##op##2_mask(x, y); r[k++] = __hb##op##2(x, y);
  ALL(eq) ALL(ne) ALL(lt) ALL(le) ALL(gt) ALL(ge) ALL(equ) ALL(neu) ALL(ltu) ALL(leu) ALL(gtu) ALL(geu)
  r[k++] = x == y; r[k++] = x != y; r[k++] = x < y; r[k++] = x <= y; r[k++] = x > y; r[k++] = x >= y;
}
template __global__ void compare<__half2>(unsigned*, const __half2*, const __half2*);
template __global__ void compare<__nv_bfloat162>(unsigned*, const __nv_bfloat162*, const __nv_bfloat162*);`, { device: dev() });
    const pairs = [[1, 2, 1, 3], [1, NaN, 1, 1], [2, 2, 2, 2], [3, 1, 2, 0], [NaN, -1, 0, -1], [-0, 5, 0, 4]];
    const expected = pairs.flatMap(([x0, x1, y0, y1]) => {
      const lanes = (f: (x: number, y: number) => boolean) => [f(x0, y0), f(x1, y1)];
      const row = ops.flatMap(([, f]) => {
        const [lo, hi] = lanes(f);
        return [+lo, +lo + 2 * +hi, (lo ? 0xffff : 0) + (hi ? 0xffff0000 : 0), +(lo && hi)];
      });
      // The pair's operators hold where both lanes do: != is __hbneu2, as the toolkit's.
      const both = (name: string) => +lanes(ops.find(([n]) => n === name)![1]).every(Boolean);
      return [...row, both("eq"), both("neu"), both("lt"), both("le"), both("gt"), both("ge")];
    });
    for (const [dtype, type] of [["f16", "__half2"], ["bf16", "__nv_bfloat162"]] as const) {
      const a = fl.tensor(pairs.flatMap((p) => [p[0], p[1]]), { dtype, device: dev() });
      const b = fl.tensor(pairs.flatMap((p) => [p[2], p[3]]), { dtype, device: dev() });
      const out = fl.full([54 * pairs.length], 7, { dtype: "u32", device: dev() });
      module.fn(`compare<${type}>`).launch({ grid: 1, block: pairs.length }, out, a, b);
      expect(Array.from(out.toArray(), Number), type).to.deep.equal(expected);
    }
  });

  it("computes sm_61's byte and half-word dot products in every form: __dp4a and __dp2a_lo/_hi on ints and on char4, uchar4, short2, ushort2", () => {
    const module = fl.compile(`
__global__ void dots(int* out, const int* a, const int* b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const int x = a[i], y = b[i];
  const unsigned ux = static_cast<unsigned>(x), uy = static_cast<unsigned>(y);
  const char4 cx = *reinterpret_cast<const char4*>(&a[i]), cy = *reinterpret_cast<const char4*>(&b[i]);
  const uchar4 ucx = *reinterpret_cast<const uchar4*>(&a[i]), ucy = *reinterpret_cast<const uchar4*>(&b[i]);
  const short2 sx = *reinterpret_cast<const short2*>(&a[i]);
  const ushort2 usx = *reinterpret_cast<const ushort2*>(&a[i]);
  int* o = out + 12 * i;
  o[0] = __dp4a(x, y, 7);
  o[1] = static_cast<int>(__dp4a(ux, uy, 7u));
  o[2] = __dp4a(cx, cy, -5);
  o[3] = static_cast<int>(__dp4a(ucx, ucy, 5u));
  o[4] = __dp2a_lo(x, y, 3);
  o[5] = __dp2a_hi(x, y, 3);
  o[6] = static_cast<int>(__dp2a_lo(ux, uy, 3u));
  o[7] = static_cast<int>(__dp2a_hi(ux, uy, 3u));
  o[8] = __dp2a_lo(sx, cy, -1);
  o[9] = __dp2a_hi(sx, cy, -1);
  o[10] = static_cast<int>(__dp2a_lo(usx, ucy, 1u));
  o[11] = static_cast<int>(__dp2a_hi(usx, ucy, 1u));
}`, { device: dev() });
    const as = [0, -1, 0x7f80ff01, 0x80808080, 0x12345678, 0xdeadbeef, -123456789, 0x00ff7f80, 0x7fff8000].map((v) => v | 0);
    const bs = [5, -1, 0x01020304, 0x80808080, 0x9abcdef0, 0x7f7f7f7f, 987654321, 0xff00ff00, 0x807f0180].map((v) => v | 0);
    const n = as.length;
    const out = fl.empty([12 * n], { dtype: "i32", device: dev() });
    module.fn("dots").launch({ grid: 2, block: 8 }, out, fl.tensor(as, { dtype: "i32", device: dev() }), fl.tensor(bs, { dtype: "i32", device: dev() }), n);
    const byte = (v: number, k: number, signed: boolean) => { const b = (v >>> (8 * k)) & 0xff; return signed && b > 127 ? b - 256 : b; };
    const half = (v: number, k: number, signed: boolean) => { const h = (v >>> (16 * k)) & 0xffff; return signed && h > 32767 ? h - 65536 : h; };
    const sum = (terms: number[]) => terms.reduce((t, v) => t + v, 0) | 0;
    const expected = as.flatMap((x, i) => {
      const y = bs[i];
      const dp4 = (signed: boolean, c: number) => sum([c, ...[0, 1, 2, 3].map((k) => byte(x, k, signed) * byte(y, k, signed))]);
      const dp2 = (signed: boolean, high: number, c: number) => sum([c, ...[0, 1].map((k) => half(x, k, signed) * byte(y, 2 * high + k, signed))]);
      return [dp4(true, 7), dp4(false, 7), dp4(true, -5), dp4(false, 5), dp2(true, 0, 3), dp2(true, 1, 3), dp2(false, 0, 3), dp2(false, 1, 3),
        dp2(true, 0, -1), dp2(true, 1, -1), dp2(false, 0, 1), dp2(false, 1, 1)];
    });
    expect(Array.from(out.toArray())).to.deep.equal(expected);
  });

  it("computes CUDA's SIMD intrinsics on 16-bit and 8-bit lanes: wrapping, saturating, averages, comparisons, sums of differences", () => {
    // BitNet's int2 kernels subtract bytes with __vsubss4; video and image code averages and compares them so.
    const module = fl.compile(`
__global__ void lanes(unsigned* out, const unsigned* a, const unsigned* b, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const unsigned x = a[i], y = b[i];
  unsigned* o = out + 82 * i;
  o[0] = __vadd2(x, y);
  o[1] = __vadd4(x, y);
  o[2] = __vsub2(x, y);
  o[3] = __vsub4(x, y);
  o[4] = __vaddss2(x, y);
  o[5] = __vaddss4(x, y);
  o[6] = __vaddus2(x, y);
  o[7] = __vaddus4(x, y);
  o[8] = __vsubss2(x, y);
  o[9] = __vsubss4(x, y);
  o[10] = __vsubus2(x, y);
  o[11] = __vsubus4(x, y);
  o[12] = __vavgs2(x, y);
  o[13] = __vavgs4(x, y);
  o[14] = __vavgu2(x, y);
  o[15] = __vavgu4(x, y);
  o[16] = __vhaddu2(x, y);
  o[17] = __vhaddu4(x, y);
  o[18] = __vabsdiffs2(x, y);
  o[19] = __vabsdiffs4(x, y);
  o[20] = __vabsdiffu2(x, y);
  o[21] = __vabsdiffu4(x, y);
  o[22] = __vmaxs2(x, y);
  o[23] = __vmaxs4(x, y);
  o[24] = __vmaxu2(x, y);
  o[25] = __vmaxu4(x, y);
  o[26] = __vmins2(x, y);
  o[27] = __vmins4(x, y);
  o[28] = __vminu2(x, y);
  o[29] = __vminu4(x, y);
  o[30] = __vcmpeq2(x, y);
  o[31] = __vcmpeq4(x, y);
  o[32] = __vcmpne2(x, y);
  o[33] = __vcmpne4(x, y);
  o[34] = __vcmpges2(x, y);
  o[35] = __vcmpges4(x, y);
  o[36] = __vcmpgeu2(x, y);
  o[37] = __vcmpgeu4(x, y);
  o[38] = __vcmpgts2(x, y);
  o[39] = __vcmpgts4(x, y);
  o[40] = __vcmpgtu2(x, y);
  o[41] = __vcmpgtu4(x, y);
  o[42] = __vcmples2(x, y);
  o[43] = __vcmples4(x, y);
  o[44] = __vcmpleu2(x, y);
  o[45] = __vcmpleu4(x, y);
  o[46] = __vcmplts2(x, y);
  o[47] = __vcmplts4(x, y);
  o[48] = __vcmpltu2(x, y);
  o[49] = __vcmpltu4(x, y);
  o[50] = __vseteq2(x, y);
  o[51] = __vseteq4(x, y);
  o[52] = __vsetne2(x, y);
  o[53] = __vsetne4(x, y);
  o[54] = __vsetges2(x, y);
  o[55] = __vsetges4(x, y);
  o[56] = __vsetgeu2(x, y);
  o[57] = __vsetgeu4(x, y);
  o[58] = __vsetgts2(x, y);
  o[59] = __vsetgts4(x, y);
  o[60] = __vsetgtu2(x, y);
  o[61] = __vsetgtu4(x, y);
  o[62] = __vsetles2(x, y);
  o[63] = __vsetles4(x, y);
  o[64] = __vsetleu2(x, y);
  o[65] = __vsetleu4(x, y);
  o[66] = __vsetlts2(x, y);
  o[67] = __vsetlts4(x, y);
  o[68] = __vsetltu2(x, y);
  o[69] = __vsetltu4(x, y);
  o[70] = __vsads2(x, y);
  o[71] = __vsads4(x, y);
  o[72] = __vsadu2(x, y);
  o[73] = __vsadu4(x, y);
  o[74] = __vabs2(x);
  o[75] = __vabs4(x);
  o[76] = __vabsss2(x);
  o[77] = __vabsss4(x);
  o[78] = __vneg2(x);
  o[79] = __vneg4(x);
  o[80] = __vnegss2(x);
  o[81] = __vnegss4(x);
}`, { device: dev() });
    const as = [0, 0xffffffff, 0x7f80ff01, 0x80808080, 0x12345678, 0xdeadbeef, 0x7fff8000, 0x00ff7f80, 0x80007fff, 0x01fe02fd];
    const bs = [0, 0x01010101, 0x01020304, 0x7f7f7f7f, 0x9abcdef0, 0x80808080, 0x80017fff, 0xff00ff00, 0x7fff8000, 0xfe01fd02];
    const n = as.length;
    const out = fl.full([82 * n], 0xdeadbeef, { dtype: "u32", device: dev() });
    module.fn("lanes").launch({ grid: 2, block: 8 }, out, fl.tensor(as, { dtype: "u32", device: dev() }), fl.tensor(bs, { dtype: "u32", device: dev() }), n);
    // Each lane from the definitions: bits wide, read signed or not, the result's low bits kept.
    const lane = (v: number, k: number, bits: number, signed: boolean) => {
      const raw = Math.floor(v / 2 ** (bits * k)) % 2 ** bits;
      return signed && raw >= 2 ** (bits - 1) ? raw - 2 ** bits : raw;
    };
    const sat = (v: number, bits: number, signed: boolean) => Math.min(Math.max(v, signed ? -(2 ** (bits - 1)) : 0), signed ? 2 ** (bits - 1) - 1 : 2 ** bits - 1);
    const join = (values: number[], bits: number) => values.reduce((word, v, k) => word + (((v % 2 ** bits) + 2 ** bits) % 2 ** bits) * 2 ** (bits * k), 0);
    type Lanewise = (x: number, y: number, bits: number) => number;
    const ops: [string, boolean, Lanewise][] = [
      ["vadd", false, (x, y) => x + y], ["vsub", false, (x, y) => x - y],
      ["vaddss", true, (x, y, w) => sat(x + y, w, true)], ["vaddus", false, (x, y, w) => sat(x + y, w, false)],
      ["vsubss", true, (x, y, w) => sat(x - y, w, true)], ["vsubus", false, (x, y, w) => sat(x - y, w, false)],
      ["vavgs", true, (x, y) => Math.sign(x + y) * Math.floor((Math.abs(x + y) + 1) / 2)], ["vavgu", false, (x, y) => Math.floor((x + y + 1) / 2)],
      ["vhaddu", false, (x, y) => Math.floor((x + y) / 2)],
      ["vabsdiffs", true, (x, y) => Math.abs(x - y)], ["vabsdiffu", false, (x, y) => Math.abs(x - y)],
      ["vmaxs", true, (x, y) => Math.max(x, y)], ["vmaxu", false, (x, y) => Math.max(x, y)],
      ["vmins", true, (x, y) => Math.min(x, y)], ["vminu", false, (x, y) => Math.min(x, y)],
      ...(["eq", "ne", "ges", "geu", "gts", "gtu", "les", "leu", "lts", "ltu"] as const).flatMap((c): [string, boolean, Lanewise][] => {
        const test = (x: number, y: number) => ({ eq: x === y, ne: x !== y, ge: x >= y, gt: x > y, le: x <= y, lt: x < y })[c.slice(0, 2) as "eq"];
        const signed = c.endsWith("s");
        return [[`vcmp${c}`, signed, (x, y) => (test(x, y) ? -1 : 0)], [`vset${c}`, signed, (x, y) => (test(x, y) ? 1 : 0)]];
      }),
    ];
    const sad = (x: number, y: number, bits: number, signed: boolean) =>
      range(32 / bits).reduce((sum, k) => sum + Math.abs(lane(x, k, bits, signed) - lane(y, k, bits, signed)), 0);
    const unary: [string, Lanewise][] = [["vabs", (x) => Math.abs(x)], ["vabsss", (x, _, w) => sat(Math.abs(x), w, true)], ["vneg", (x) => -x], ["vnegss", (x, _, w) => sat(-x, w, true)]];
    const expected = as.flatMap((x, i) => {
      const y = bs[i];
      const each = (f: Lanewise, signed: boolean, bits: number) => join(range(32 / bits).map((k) => f(lane(x, k, bits, signed), lane(y, k, bits, signed), bits)), bits);
      const binary = new Map(ops.map(([name, signed, f]) => [name, [each(f, signed, 16), each(f, signed, 8)]]));
      binary.set("vsads", [sad(x, y, 16, true), sad(x, y, 8, true)]);
      binary.set("vsadu", [sad(x, y, 16, false), sad(x, y, 8, false)]);
      return [...["vadd", "vsub", "vaddss", "vaddus", "vsubss", "vsubus", "vavgs", "vavgu", "vhaddu", "vabsdiffs", "vabsdiffu", "vmaxs", "vmaxu", "vmins", "vminu", "vcmpeq", "vcmpne", "vcmpges", "vcmpgeu", "vcmpgts", "vcmpgtu", "vcmples", "vcmpleu", "vcmplts", "vcmpltu", "vseteq", "vsetne", "vsetges", "vsetgeu", "vsetgts", "vsetgtu", "vsetles", "vsetleu", "vsetlts", "vsetltu", "vsads", "vsadu"].flatMap((name) => binary.get(name)!), ...unary.flatMap(([, f]) => [each(f, true, 16), each(f, true, 8)])];
    });
    const got = Array.from(out.toArray());
    const names = [...["vadd", "vsub", "vaddss", "vaddus", "vsubss", "vsubus", "vavgs", "vavgu", "vhaddu", "vabsdiffs", "vabsdiffu", "vmaxs", "vmaxu", "vmins", "vminu", "vcmpeq", "vcmpne", "vcmpges", "vcmpgeu", "vcmpgts", "vcmpgtu", "vcmples", "vcmpleu", "vcmplts", "vcmpltu", "vseteq", "vsetne", "vsetges", "vsetgeu", "vsetgts", "vsetgtu", "vsetles", "vsetleu", "vsetlts", "vsetltu", "vsads", "vsadu"], ...unary.map(([name]) => name)].flatMap((name) => [`__${name}2`, `__${name}4`]);
    const wrong = got.flatMap((v, j) => (v === expected[j] ? [] : [`${names[j % names.length]}(0x${as[Math.floor(j / names.length)].toString(16)}, 0x${bs[Math.floor(j / names.length)].toString(16)}): got 0x${v.toString(16)}, expected 0x${expected[j].toString(16)}`]));
    expect(wrong).to.deep.equal([]);
  });

  it("computes the bit, integer-average and float intrinsics exactly", () => {
    const module = fl.compile(`
__global__ void bits(int* out, const int* in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned int x = static_cast<unsigned int>(__ldg(&in[i]));
  int* o = out + 14 * i;
  o[0] = __popc(x);
  o[1] = __ffs(static_cast<int>(x));
  o[2] = __clz(static_cast<int>(x));
  o[3] = static_cast<int>(__brev(x));
  o[4] = static_cast<int>(__umulhi(x, 0x9e3779b9u));
  o[5] = static_cast<int>(__byte_perm(x, 0x11223344u, 0x5140));
  o[6] = __float_as_int(__int_as_float(static_cast<int>(x)));
  o[7] = __float2int_rn(__saturatef(__int_as_float(static_cast<int>(x))) * 1000.0f);
  o[8] = static_cast<int>(__float_as_uint(__fmaf_rn(1.5f, __frcp_rn(4.0f), __fmul_rn(2.0f, 0.25f))));
  o[9] = __popcll(0xffffffffffull) + __ffsll(1ll << 40) + __clzll(1ll);
  // Averages of two integers, past their type's range in the sum.
  o[10] = __hadd(static_cast<int>(x), 0x7fffffff);
  o[11] = __rhadd(static_cast<int>(x), -3);
  o[12] = static_cast<int>(__uhadd(x, 0xfffffffeu));
  o[13] = static_cast<int>(__urhadd(x, 0xffffffffu));
}
`, { device: dev() });
    const inputs = [0, 1, 0x80000000, 0xdeadbeef, 0x3f000000, 0x3f800000, 0x7fffffff, 12345, 0x0f0f0f0f].map((v) => v | 0);
    const n = inputs.length;
    const input = fl.tensor(inputs, { dtype: "i32", device: dev() });
    const out = fl.empty([14 * n], { dtype: "i32", device: dev() });
    module.fn("bits").launch({ grid: 1, block: 32 }, out, input, n);
    const f32 = new Float32Array(1);
    const asInt = new Int32Array(f32.buffer);
    const asFloat = (i: number) => { asInt[0] = i; return f32[0]; };
    const floatBits = (f: number) => { f32[0] = f; return asInt[0]; };
    const expected = inputs.flatMap((signed) => {
      const x = signed >>> 0;
      const popc = x.toString(2).split("").filter((c) => c === "1").length;
      const ffs = x === 0 ? 0 : 32 - Math.clz32(x & -x);
      const brev = parseInt(x.toString(2).padStart(32, "0").split("").reverse().join(""), 2) | 0;
      const umulhi = Number((BigInt(x) * 0x9e3779b9n) >> 32n) | 0;
      const bytes = [x & 255, (x >>> 8) & 255, (x >>> 16) & 255, x >>> 24, 0x44, 0x33, 0x22, 0x11];
      const perm = (bytes[0] | (bytes[4] << 8) | (bytes[1] << 16) | (bytes[5] << 24)) | 0;
      const f = asFloat(signed);
      const saturated = Number.isNaN(f) ? 0 : Math.min(1, Math.max(0, f));
      const rounded = Math.fround(saturated * 1000);
      const nearestEven = Math.abs(rounded - Math.trunc(rounded)) === 0.5 ? 2 * Math.round(rounded / 2) : Math.round(rounded);
      const half = (sum: bigint) => Number(BigInt.asIntN(32, sum >> 1n));
      return [popc, ffs, Math.clz32(x), brev, umulhi, perm, signed, nearestEven, floatBits(0.875), 40 + 41 + 63,
        half(BigInt(signed) + 0x7fffffffn), half(BigInt(signed) - 3n + 1n), half(BigInt(x) + 0xfffffffen), half(BigInt(x) + 0xffffffffn + 1n)];
    });
    expect(Array.from(out.toArray())).to.deep.equal(expected);
  });

  it("fuses a float multiply with the add its result feeds, as the GPU's compiler does, and keeps the _rn forms apart", () => {
    const module = fl.compile(`
__global__ void contracted(float* out, const float* a, const float* b, const float* c, int n, int k) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float x = a[i], y = b[i], z = c[i];
  float* o = out + 5 * i;
  o[0] = x * y + z;
  float product = x * y;  // fused across statements too
  o[1] = z - product;
  float acc = 0.f;
  for (int j = 0; j < k; j++) acc += a[(i + j) % n] * b[j];
  o[2] = acc;
  o[3] = __fmul_rn(x, y) + z;
  o[4] = __fadd_rn(z * y, x);
}
`, { device: dev() });
    const n = 301, k = 17;
    const a = fl.randn([n], { seed: 11, device: dev() }), b = fl.randn([n], { seed: 12, device: dev() }), c = fl.randn([n], { seed: 13, device: dev() });
    const out = fl.empty([5 * n], { device: dev() });
    module.fn("contracted").launch({ grid: 3, block: 128 }, out, a, b, c, n, k);
    const [x, y, z] = [a.toArray(), b.toArray(), c.toArray()];
    const expected = range(n).flatMap((i) => {
      let acc = 0;
      for (let j = 0; j < k; j++) acc = roundF32Fma(x[(i + j) % n], y[j], acc);
      const separately = (p: number, q: number, r: number) => Math.fround(Math.fround(p * q) + r);
      return [roundF32Fma(x[i], y[i], z[i]), roundF32Fma(-x[i], y[i], z[i]), acc, separately(x[i], y[i], z[i]), separately(z[i], y[i], x[i])];
    });
    const got = Array.from(out.toArray());
    const differing = got.flatMap((v, i) => (Object.is(v, expected[i]) ? [] : [`${i} (o[${i % 5}] of thread ${Math.floor(i / 5)}): ${v} for ${expected[i]}`]));
    expect(differing, "elements without the GPU's bits").to.deep.equal([]);
    // The inputs are such that fusing matters: rounding twice gives other bits for many.
    expect(range(n).filter((i) => Math.fround(Math.fround(x[i] * y[i]) + z[i]) !== roundF32Fma(x[i], y[i], z[i])).length).to.be.above(n / 10);
  });

  it("converts between the integer and floating types with each rounding the intrinsics name (DeepSpeed's conversion_utils.h)", () => {
    const module = fl.compile(`
#include <cuda_fp16.h>
#include <cuda_bf16.h>
__global__ void conversions(double* out, const double* in) {
  double v = in[0];
  out[0] = __ll2double_rn((long long)v); out[1] = __ull2double_rn(7ull); out[2] = __uint2double_rn(9u);
  out[3] = __ull2float_rn(123456789123ull); out[4] = (double)__float2ull_rn(3.5f); out[5] = (double)__double2ll_rn(-2.5);
  out[6] = (double)__double2ull_rn(2.5); out[7] = __double2uint_rn(1e20); out[8] = (double)__half2ll_rn(__float2half(-3.5f));
  out[9] = (double)__half2ull_rn(__float2half(5.5f)); out[10] = __half2uint_rn(__float2half(6.5f)); out[11] = __half2float(__ull2half_rn(70000ull));
  out[12] = __int2float_rz(16777217); out[13] = __int2float_ru(16777217); out[14] = __ll2float_rd(-16777217ll);
  out[15] = __double2float_rz(1.0000000001); out[16] = __bfloat162float(__int2bfloat16_rz(257)); out[17] = __bfloat162int_rn(__float2bfloat16(2.5f));
  out[18] = __double2int_ru(v + 0.5); out[19] = __float2int_rd(-2.5f); out[20] = __half2short_rz(__float2half(-7.9f));
  out[21] = __float2uint_ru(0.25f); out[22] = __half2float(__short2half_rz(2049)); out[23] = __ull2double_rd(18446744073709551615ull);
}
`, { device: dev() });
    const out = fl.empty([24], { dtype: "f64", device: dev() });
    module.fn("conversions").launch({ grid: 1, block: 1 }, out, fl.tensor([-4], { dtype: "f64", device: dev() }));
    expect(Array.from(out.toArray())).to.deep.equal([
      -4, 7, 9, 123456790528, 4, -2, 2, 4294967295, -4, 6, 6, Infinity,
      16777216, 16777218, -16777218, 1, 256, 2, -3, -3, -7, 1, 2048, 18446744073709549568]);
    // NaN to a 64-bit integer, signed or not: 0x8000000000000000, as an H200's cvt gives it; to 32 bits, 0.
    const nan = fl.compile(`
#include <cuda_fp16.h>
#include <cuda_bf16.h>
__global__ void nan_to_ll(long long* out, const float* in) {
  out[0] = __float2ll_rz(in[0]); out[1] = __half2ll_rz(__float2half(in[0])); out[2] = __bfloat162ll_rz(__float2bfloat16(in[0]));
  out[3] = (long long)__float2ull_rz(in[0]); out[4] = (long long)__double2ull_rz(in[0]); out[5] = (long long)__half2ull_rn(__float2half(in[0]));
  out[6] = __float2uint_rz(in[0]); out[7] = __half2int_rz(__float2half(in[0]));
}
`, { device: dev() });
    const lls = fl.full([8], 7, { dtype: "i64", device: dev() });
    nan.fn("nan_to_ll").launch({ grid: 1, block: 1 }, lls, fl.tensor([NaN], { device: dev() }));
    expect(Array.from(lls.toArray())).to.deep.equal([...Array(6).fill(-(2n ** 63n)), 0n, 0n]);
  });

  it("runs the fast math forms and the wrapping, 16-bit and double atomics", () => {
    const module = fl.compile(`
#include <cuda_fp16.h>
__global__ void fast_math(float* out, const float* in) {
  float x = in[threadIdx.x];
  out[8 * threadIdx.x + 0] = __sinf(x);
  out[8 * threadIdx.x + 1] = __cosf(x);
  out[8 * threadIdx.x + 2] = __tanf(x);
  out[8 * threadIdx.x + 3] = __powf(x + 2.0f, 1.5f);
  out[8 * threadIdx.x + 4] = __exp10f(x);
  out[8 * threadIdx.x + 5] = __log2f(x + 2.0f);
  out[8 * threadIdx.x + 6] = __log10f(x + 2.0f);
  out[8 * threadIdx.x + 7] = __fdividef(x, 3.0f);
}
__global__ void counters(int* wrapped, int* down, __half* half_sum, float* double_sum, float* float_sum) {
  atomicInc(reinterpret_cast<unsigned int*>(wrapped), 9u);
  atomicDec(reinterpret_cast<unsigned int*>(down), 5u);
  atomicAdd(half_sum, __float2half(0.25f));
  atomicAdd(reinterpret_cast<double*>(double_sum), 0.125);
  atomicAdd(float_sum, 1.0f);
  __threadfence();
}
`, { device: dev() });
    const xs = [-1, -0.5, 0, 0.25, 0.5, 1, 1.5, 0.1];
    const input = fl.tensor(xs, { device: dev() });
    const out = fl.empty([8 * xs.length], { device: dev() });
    module.fn("fast_math").launch({ grid: 1, block: xs.length }, out, input);
    const expected = xs.flatMap((x) => [Math.sin(x), Math.cos(x), Math.tan(x), (x + 2) ** 1.5, 10 ** x, Math.log2(x + 2), Math.log10(x + 2), x / 3]);
    // The GPU's fast forms are approximations: a few ulp on these small arguments.
    fl.assertClose(out, expected, { rtol: 2e-5, atol: 2e-6 });

    const launches = 3, threads = 100;
    const wrapped = fl.zeros([1], { dtype: "i32", device: dev() });
    const down = fl.zeros([1], { dtype: "i32", device: dev() });
    const halfSum = fl.zeros([1], { dtype: "f16", device: dev() });
    const doubleSum = fl.zeros([2], { device: dev() });  // one double in two f32 slots
    const floatSum = fl.zeros([1], { device: dev() });
    for (let l = 0; l < launches; l++) {
      module.fn("counters").launch({ grid: 2, block: threads / 2 }, wrapped, down, halfSum, doubleSum, floatSum);
    }
    // atomicInc wraps after 9 (0..9, period 10); atomicDec from 0 goes to 5 and counts down (period 6).
    expect(wrapped.toArray()[0]).to.equal((launches * threads) % 10);
    expect(down.toArray()[0]).to.equal((6 - ((launches * threads) % 6)) % 6);
    expect(halfSum.toArray()[0]).to.equal(launches * threads * 0.25);
    expect(new Float64Array(doubleSum.toArray().buffer)[0]).to.equal(launches * threads * 0.125);
    expect(floatSum.toArray()[0]).to.equal(launches * threads);
  });

  it("runs sm_80's warp reductions and sm_70's warp matches and 16-bit compare-and-swap, over the lanes their masks name", () => {
    const module = fl.compile(`
// The upper half-warp reduces its values (signed and not); every lane groups the warp by key.
__global__ void warp_reduce_match(int* sums, unsigned* bits, unsigned* groups, int* uniform, const int* in, const int* keys) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int lane = threadIdx.x % 32;
  const int v = in[i];
  if (lane >= 16) {
    const unsigned upper = 0xffff0000u;
    sums[3 * i] = __reduce_add_sync(upper, v);
    sums[3 * i + 1] = __reduce_min_sync(upper, v);
    sums[3 * i + 2] = __reduce_max_sync(upper, static_cast<unsigned>(v));
    bits[3 * i] = __reduce_and_sync(upper, static_cast<unsigned>(v));
    bits[3 * i + 1] = __reduce_or_sync(upper, static_cast<unsigned>(v));
    bits[3 * i + 2] = __reduce_xor_sync(upper, static_cast<unsigned>(v));
  }
  const long long key = keys[i] * 1000000007LL;
  groups[i] = static_cast<unsigned>(__match_any_sync(0xffffffffu, key));
  int same = -1;
  const unsigned all = static_cast<unsigned>(__match_all_sync(0xffffffffu, keys[i] / 100, &same));
  uniform[i] = same * 2 + (all == 0xffffffffu);
}
// Each thread adds 1 to a 16-bit counter with a compare-and-swap loop, as projects build __half atomics.
__global__ void count16(unsigned short* counters, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned short* c = counters + i % 3;
  unsigned short old = *c, assumed;
  do {
    assumed = old;
    old = atomicCAS(c, assumed, static_cast<unsigned short>(assumed + 1));
  } while (old != assumed);
}
`, { device: dev() });
    const threads = 64;
    const values = range(threads).map((i) => ((i * 2654435761) % 1999) - 999);
    const keys = range(threads).map((i) => (i * 7) % 5);
    const sums = fl.full([3 * threads], -7, { dtype: "i32", device: dev() });
    const bits = fl.full([3 * threads], 7, { dtype: "u32", device: dev() });
    const groups = fl.full([threads], 7, { dtype: "u32", device: dev() });
    const uniform = fl.full([threads], -7, { dtype: "i32", device: dev() });
    module.fn("warp_reduce_match").launch({ grid: 1, block: threads }, sums, bits, groups, uniform,
      fl.tensor(values, { dtype: "i32", device: dev() }), fl.tensor(keys, { dtype: "i32", device: dev() }));
    const upperOf = (i: number) => range(16).map((l) => values[i - (i % 32) + 16 + l]);
    const u32 = (v: number) => v >>> 0;
    expect(Array.from(sums.toArray())).to.deep.equal(range(threads).flatMap((i) => (i % 32 < 16 ? [-7, -7, -7] :
      [upperOf(i).reduce((a, b) => a + b, 0), Math.min(...upperOf(i)), u32(Math.max(...upperOf(i).map(u32))) | 0])));
    expect(Array.from(bits.toArray())).to.deep.equal(range(threads).flatMap((i) => (i % 32 < 16 ? [7, 7, 7] :
      [upperOf(i).reduce((a, b) => a & b, -1), upperOf(i).reduce((a, b) => a | b, 0), upperOf(i).reduce((a, b) => a ^ b, 0)].map(u32))));
    expect(Array.from(groups.toArray())).to.deep.equal(range(threads).map((i) =>
      u32(range(32).reduce((m, l) => (keys[i - (i % 32) + l] === keys[i] ? m | (1 << l) : m), 0))));
    expect(Array.from(uniform.toArray())).to.deep.equal(range(threads).map(() => 3));

    const n = 1000;
    const counters = fl.full([3], 65530, { dtype: "u16", device: dev() });
    module.fn("count16").launch({ grid: 8, block: 128 }, counters, n);
    expect(Array.from(counters.toArray())).to.deep.equal([0, 1, 2].map((c) => (65530 + Math.ceil((n - c) / 3)) % 65536));
  });

  it("runs the _sync warp operations over the lanes their masks name", () => {
    const module = fl.compile(`
// Lanes 0..15 of each warp scan their values; lanes 16..31 sit it out and wait at the barrier.
__global__ void half_warp_scan(int* out, const int* in) {
  const int lane = threadIdx.x % 32;
  int v = in[threadIdx.x];
  if (lane < 16) {
    for (int d = 1; d < 16; d *= 2) {
      int other = __shfl_up_sync(0x0000ffffu, v, d);
      if (lane >= d) v += other;
    }
    __syncwarp(0x0000ffffu);
  }
  __syncthreads();
  out[threadIdx.x] = v;
}
// Each lane with a positive value takes a slot: one atomic per warp, by the lanes that came together.
__global__ void compact(int* out, int* count, const int* in) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int lane = threadIdx.x % 32;
  if (in[i] > 0) {
    unsigned active = __activemask();
    int leader = __ffs(active) - 1;
    int base = 0;
    if (lane == leader) base = atomicAdd(count, __popc(active));
    base = __shfl_sync(active, base, leader);
    out[base + __popc(active & ((1u << lane) - 1))] = i;
  }
  __syncthreads();
}
// Votes over the odd lanes only.
__global__ void odd_votes(int* out, const int* in) {
  const int lane = threadIdx.x % 32;
  if (lane % 2 == 1) {
    const unsigned odd = 0xaaaaaaaau;
    unsigned ballot = __ballot_sync(odd, in[threadIdx.x] > 0);
    out[threadIdx.x] = __popc(ballot) * 100 + __any_sync(odd, in[threadIdx.x] > 5) * 10 + __all_sync(odd, in[threadIdx.x] >= 0);
  } else {
    out[threadIdx.x] = -1;
  }
}
`, { device: dev() });
    const threads = 64;
    const values = range(threads).map((i) => ((i * 37) % 11) - 3);
    const input = fl.tensor(values, { dtype: "i32", device: dev() });
    const out = fl.empty([threads], { dtype: "i32", device: dev() });
    module.fn("half_warp_scan").launch({ grid: 1, block: threads }, out, input);
    const scanned = values.map((v, i) => (i % 32 < 16 ? values.slice(i - (i % 32), i + 1).reduce((a, b) => a + b, 0) : v));
    expect(Array.from(out.toArray())).to.deep.equal(scanned);

    const positions = fl.full([threads], -1, { dtype: "i32", device: dev() });
    const count = fl.zeros([1], { dtype: "i32", device: dev() });
    module.fn("compact").launch({ grid: 2, block: 32 }, positions, count, input);
    const positive = range(threads).filter((i) => values[i] > 0);
    expect(count.toArray()[0]).to.equal(positive.length);
    expect(Array.from(positions.toArray()).slice(0, positive.length).sort((x, y) => x - y)).to.deep.equal(positive);

    module.fn("odd_votes").launch({ grid: 1, block: threads }, out, input);
    const expected = range(threads).map((i) => {
      if (i % 2 === 0) return -1;
      const warp = range(32).map((l) => values[i - (i % 32) + l]).filter((_v, l) => l % 2 === 1);
      return warp.filter((v) => v > 0).length * 100 + (warp.some((v) => v > 5) ? 10 : 0) + (warp.every((v) => v >= 0) ? 1 : 0);
    });
    expect(Array.from(out.toArray())).to.deep.equal(expected);
  });

  it("runs TVM's block reductions and kaolin's row sums, whose lanes outside the mask shuffle too; check mode says a mask leaves out the calling lane", async () => {
    // TVM's generated reduction: every lane of the first warp shuffles with the mask of the block's warps.
    const tvm = fl.compile(`
extern "C" __global__ void __launch_bounds__(128) default_function_kernel(float* __restrict__ out, const float* __restrict__ in) {
  float red_buf0[1];
  red_buf0[0] = in[blockIdx.x * 128 + threadIdx.x];
  uint mask[1];
  float t0[1];
  __shared__ float red_buf_staging[4];
  mask[0] = __activemask();
  t0[0] = __shfl_down_sync(mask[0], red_buf0[0], 16, 32); red_buf0[0] = max(red_buf0[0], t0[0]);
  t0[0] = __shfl_down_sync(mask[0], red_buf0[0], 8, 32); red_buf0[0] = max(red_buf0[0], t0[0]);
  t0[0] = __shfl_down_sync(mask[0], red_buf0[0], 4, 32); red_buf0[0] = max(red_buf0[0], t0[0]);
  t0[0] = __shfl_down_sync(mask[0], red_buf0[0], 2, 32); red_buf0[0] = max(red_buf0[0], t0[0]);
  t0[0] = __shfl_down_sync(mask[0], red_buf0[0], 1, 32); red_buf0[0] = max(red_buf0[0], t0[0]);
  if ((threadIdx.x % 32) == 0) red_buf_staging[threadIdx.x >> 5] = red_buf0[0];
  __syncthreads();
  if (threadIdx.x < 32) {
    red_buf0[0] = threadIdx.x < 4 ? red_buf_staging[threadIdx.x] : -INFINITY;
    mask[0] = __activemask() & ((uint)15);
    t0[0] = __shfl_down_sync(mask[0], red_buf0[0], 2, 32); red_buf0[0] = max(red_buf0[0], t0[0]);
    t0[0] = __shfl_down_sync(mask[0], red_buf0[0], 1, 32); red_buf0[0] = max(red_buf0[0], t0[0]);
    red_buf0[0] = __shfl_sync(mask[0], red_buf0[0], 0, 32);
    if (threadIdx.x == 0) out[blockIdx.x] = red_buf0[0];
  }
}`, { device: dev() });
    const values = range(3 * 128).map((i) => ((i * 7919) % 1009) - 500);
    const maxima = fl.full([3], NaN, { device: dev() });
    tvm.fn("default_function_kernel").launch({ grid: 3, block: 128 }, maxima, fl.tensor(values, { device: dev() }));
    expect(Array.from(maxima.toArray())).to.deep.equal(range(3).map((b) => Math.max(...values.slice(128 * b, 128 * b + 128))));
    // kaolin's row sums: seven f's leave lanes 28 to 31 out of the mask, yet every lane shuffles, and the
    // lanes of the mask read theirs, as a converged warp gives them (the H200 sums all 32).
    const kaolin = fl.compile(`
__global__ void row_sums(const float* in, float* out) {
  float v = in[blockIdx.x * 32 + threadIdx.x];
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xfffffff, v, offset);
  if (threadIdx.x == 0) out[blockIdx.x] = v;
}`, { device: dev() });
    const sums = fl.full([3], NaN, { device: dev() });
    kaolin.fn("row_sums").launch({ grid: 3, block: 32 }, fl.tensor(values.slice(0, 96), { device: dev() }), sums);
    expect(Array.from(sums.toArray())).to.deep.equal(range(3).map((b) => values.slice(32 * b, 32 * b + 32).reduce((a, v) => a + v, 0)));

    const cpu = fl.device("cpu");
    const checked = fl.device("cpu", { check: true });
    const module = fl.compile(`
__global__ void bad_mask(int* out) { out[threadIdx.x] = __shfl_sync(0x1u, 7, 0); }
`, { device: checked });
    const out = fl.empty([32], { dtype: "i32", device: checked });
    module.fn("bad_mask").launch({ grid: 1, block: 32 }, out);
    let message = "";
    try {
      await checked.synchronize();
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).to.match(/kernel 'bad_mask': __shfl_sync on line 2: the calling lane (\d+) is not in its mask 0x1 \(block \(0,0,0\), thread \(\1,0,0\)\)/);
    // A mask of 0, as (1 << warps) - 1 gives on x86 for 32 warps: the message says where to look.
    const shifted = fl.compile(`
__global__ void all_warps(int* out, int warps) { out[threadIdx.x] = __shfl_sync((1 << warps) - 1, 7, 0); }
`, { device: cpu });
    shifted.fn("all_warps").launch({ grid: 1, block: 32 }, fl.empty([32], { dtype: "i32", device: cpu }), 32);
    message = "";
    try {
      await cpu.synchronize();
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).to.match(/the calling lane \d+ is not in its mask 0x0 \(if it was computed as \(1 << n\) - 1: that is 0 on the CPU for n = 32, and every lane on a GPU; check mode reports such a shift, with its line\)/);
    // A CUDA source's full mask on a 64-lane warp names lanes 0 to 31 only (hipcc refuses a 32-bit mask).
    const wide = fl.device("cpu", { warpSize: 64 });
    const full = fl.compile(`
__global__ void pairs(int* out) { out[threadIdx.x] = __shfl_xor_sync(0xffffffff, static_cast<int>(threadIdx.x), 1); }
`, { device: wide });
    const pairs = fl.full([64], -1, { dtype: "i32", device: wide });
    full.fn("pairs").launch({ grid: 1, block: 64 }, pairs);
    expectThrows(() => pairs.toArray(), fl.DeviceError, /kernel 'pairs': __shfl_xor_sync on line 2: the calling lane (3[2-9]|[45]\d|6[0-3]) is not in its mask 0xffffffff \(a 32-lane warp's full mask, which names half of this device's 64-lane warp: pass __activemask\(\) or a 64-bit mask, as HIP requires\)/);
  });

  it("leaves out a host class of prototypes naming std's types, and a device struct's member that returns a std::string", () => {
    const module = fl.compile(`
#include <string>
#include <vector>
using namespace std;
class CudaAlgorithm {
  int* d_X;
  int n;
public:
  CudaAlgorithm();
  ~CudaAlgorithm();
  int Distance(string s, string t, string* path);
};
struct Range {
  unsigned lo, hi;
  __host__ __device__ bool empty() const { return lo == hi; }
  std::string to_string() const { return std::to_string(lo) + ":" + std::to_string(hi); }
};
__global__ void widths(const Range* ranges, unsigned* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = ranges[i].empty() ? 0u : ranges[i].hi - ranges[i].lo;
}
std::vector<Range> make_ranges(unsigned n) { return std::vector<Range>(n); }
`, { device: dev() });
    const n = 5, raw = [3, 7, 4, 4, 0, 9, 10, 12, 5, 5];
    const out = fl.full([n], 99, { dtype: "u32", device: dev() });
    module.fn("widths").launch({ grid: 1, block: 32 }, fl.tensor(Uint32Array.from(raw), { device: dev() }), out, n);
    expect(Array.from(out.toArray())).to.deep.equal([4, 0, 9, 2, 0]);
  });

  it("leaves out host code built on the runtime, cuBLAS and the samples' helpers: a timer class, a launcher template's instantiations, a timed CPU check; cuBLAS's types serve host declarations", () => {
    const module = fl.compile(`
#include <stdio.h>
#include <cuda_runtime.h>
#include <cublas_v2.h>
#include <cublasLt.h>
#include <helper_functions.h>
struct GpuTimer {
  cudaEvent_t start_, stop_;
  GpuTimer() { cudaEventCreate(&start_); cudaEventCreate(&stop_); }
  void Start() { cudaEventRecord(start_, 0); }
  float Elapsed() { float ms = 0; cudaEventElapsedTime(&ms, start_, stop_); return ms; }
};
// Host declarations naming a class left out (llama.cpp's ops take their backend context so).
float time_launch(GpuTimer& timer, int* x, int n);
template <typename T> struct Stream { cudaStream_t s; void sync() { cudaStreamSynchronize(s); } };
void enqueue(Stream<float>* stream);
void cublasCheck(cublasStatus_t status, const char* file, int line) {
  if (status != CUBLAS_STATUS_SUCCESS) printf("[cuBLAS ERROR]: %d %s %d\\n", status, file, line);
}
static cublasComputeType_t compute_type = CUBLAS_COMPUTE_32F;
cublasHandle_t cublas_handle;
cublasLtHandle_t cublaslt_handle;
int gemm_ex(cublasHandle_t handle, cublasOperation_t transa, int m, const float* alpha, cudaDataType_t type = CUDA_R_16F,
            cublasGemmAlgo_t algo = CUBLAS_GEMM_DEFAULT_TENSOR_OP);
StopWatchInterface* timer = NULL;
template <class T>
__global__ void add_one(T* x, unsigned int n) {
  unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] += 1;
}
template <class T>
void launch(T* x, int n) { add_one<T><<<(n + 255) / 256, 256>>>(x, n); }
template void launch<int>(int* x, int n);
template void launch<float>(float* x, int n);
bool cpu_check(const int* data, int n) {
  sdkCreateTimer(&timer);
  sdkStartTimer(&timer);
  bool ok = true;
  for (int i = 0; i < n; i++) ok = ok && data[i] == i + 1;
  sdkStopTimer(&timer);
  return ok;
}
`, { device: dev(), name: "host_built" });
    const x = fl.tensor(range(300), { dtype: "i32", device: dev() });
    module.fn("add_one<int>").launch({ grid: 2, block: 256 }, x, 300);
    expect(Array.from(x.toArray())).to.deep.equal(range(300).map((i) => i + 1));
  });

  it("gives cub's, thrust's and CCCL's versions, thrust::pair and swap in device code, and thrust's other headers for host code", () => {
    const module = fl.compile(`
#include <cub/block/block_reduce.cuh>
#include <thrust/tabulate.h>
#include <thrust/universal_vector.h>
#include <thrust/iterator/reverse_iterator.h>
#include <thrust/pair.h>
#include <thrust/swap.h>
#include <thrust/version.h>
#include <cuda/std/span>
#if CUB_VERSION >= 200800 && THRUST_VERSION >= 200800 && CCCL_MAJOR_VERSION >= 2
#define AT_LEAST_CUDA_12_8 1
#else
#define AT_LEAST_CUDA_12_8 0
#endif
void fill(thrust::universal_vector<int>& v);
__global__ void versions(int* out) {
  thrust::pair<int, int> p = thrust::make_pair(CUB_MAJOR_VERSION, -THRUST_MAJOR_VERSION);
  thrust::swap(p.first, p.second);
  out[0] = p.first;
  out[1] = p.second;
  out[2] = AT_LEAST_CUDA_12_8;
  out[3] = CUB_VERSION == THRUST_VERSION && CCCL_MAJOR_VERSION == CUB_MAJOR_VERSION;
}`, { device: dev(), name: "cccl_versions" });
    const out = fl.full([4], -9, { dtype: "i32", device: dev() });
    module.fn("versions").launch({ grid: 1, block: 1 }, out);
    const [first, second, recent, agree] = Array.from(out.toArray());
    expect([first, recent, agree]).to.deep.equal([-second, 1, 1]);
    expect(second).to.be.at.least(3);  // CUDA 13's CCCL, which the CPU emulator imitates and the GPU machine has
  });

  it("finds the rest of the toolkit's device and type headers, as older sources include them", () => {
    const module = fl.compile(`
#include <host_defines.h>
#include <common_functions.h>
#include <device_double_functions.h>
#include <device_types.h>
#include <sm_35_atomic_functions.h>
#include <texture_types.h>
#include <surface_types.h>
#include <channel_descriptor.h>
#include <cuda_device_runtime_api.h>
__global__ void hi_words(const double* x, int* hi, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) hi[i] = __double2hiint(x[i]);
}`, { device: dev(), name: "toolkit_headers" });
    const x = [1, -2, 0.5, 1e300, 3];
    const hi = fl.full([5], 0, { dtype: "i32", device: dev() });
    module.fn("hi_words").launch({ grid: 1, block: 32 }, fl.tensor(x, { dtype: "f64", device: dev() }), hi, 5);
    const view = new DataView(new ArrayBuffer(8));
    expect(Array.from(hi.toArray())).to.deep.equal(x.map((v) => (view.setFloat64(0, v), view.getInt32(0))));
  });

  it("finds the toolkit's finer headers and the C++, POSIX and MPI headers of a source's host code, whose host helpers it leaves out", () => {
    const module = fl.compile(`
#include <stdexcept>
#include <unordered_map>
#include <typeinfo>
#include <pthread.h>
#include <malloc.h>
#include <strings.h>
#include <linux/limits.h>
#include <sys/time.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <cinttypes>
#include <sm_35_intrinsics.h>
#include <vector_types.h>
#include <device_functions.h>
#include <cuda/std/cstdint>
#include <helper_string.h>
#include <numeric>
#include <chrono>
#include <math.h>
#include <mpi.h>
void halo_exchange(float* field, int n, MPI_Comm comm, MPI_Status* status);
using std::accumulate;
using namespace std::chrono;
struct timeval start_time;
#define KERNEL_PARAM_LIMIT (4)
typedef struct { int param[KERNEL_PARAM_LIMIT]; } param_t;
typedef pthread_t worker_thread;  // CUDA by Example's book.h
static_assert(PATH_MAX >= 256, "a host helper's path buffer");
worker_thread start_worker(void* (*routine)(void*), void* data);
const std::string log_file = "rotations.txt";
static std::unordered_map<int, int> seen;
int iterations(int argc, const char** argv) {
  if (checkCmdLineFlag(argc, argv, "iterations")) return getCmdLineArgumentInt(argc, argv, "iterations");
  if (seen.count(argc)) throw std::runtime_error("again");
  return argc > 1 && strcasecmp(argv[1], "--TWICE") == 0 ? 2 : 1;
}
__global__ void rotate(cuda::std::uint32_t* out, const unsigned* in, param_t p) {
  const unsigned i = threadIdx.x;
  out[i] = isnanf(__uint_as_float(in[i])) ? 0u : __funnelshift_l(in[i], in[i], p.param[i % KERNEL_PARAM_LIMIT]);
}`, { device: dev(), name: "host_headers" });
    const words = range(32).map((i) => (i === 7 ? 0x7fc00001 : (i * 2654435761) >>> 0));
    const out = fl.full([32], 0, { dtype: "u32", device: dev() });
    module.fn("rotate").launch({ grid: 1, block: 32 }, out, fl.tensor(words, { dtype: "u32", device: dev() }), { param: [1, 5, 13, 31] });
    const rotl = (w: number, s: number) => ((w << s) | (w >>> (32 - s))) >>> 0;
    const isNanBits = (w: number) => (w & 0x7f800000) === 0x7f800000 && (w & 0x7fffff) !== 0;
    expect(Array.from(out.toArray())).to.deep.equal(words.map((w, i) => (isNanBits(w) ? 0 : rotl(w, [1, 5, 13, 31][i % 4]))));
  });

  it("gives HIP sources HIP's other headers and AMD's bit-field and lowest-bit functions, and a host declaration its hipStream_t", () => {
    const source = `
#include <hip/hip_runtime.h>
#include <hip/hip_math_constants.h>
#include <hip/hip_vector_types.h>
#include <hip/hip_bfloat16.h>
template <typename T> int fill(T* target, float value, size_t n, hipStream_t stream);
__global__ void fields(unsigned* out, float* big, unsigned* lowest) {
  const unsigned t = hipThreadIdx_x;
  out[t] = __bitinsert_u32(__bitextract_u32(0xdeadbeefu, t % 32, 8), 0x5u, 28, 3);
  if (t == 0) big[0] = HIP_INF_F;
  if (t == 1) {
    lowest[0] = __lastbit_u32_u64(1ull << 40);
    lowest[1] = __lastbit_u32_u64(0ull);
    lowest[2] = __lastbit_u32_s32(-8);
    lowest[3] = __lastbit_u32_s64(-(1ll << 35));
  }
}`;
    const out = fl.full([40], 0, { dtype: "u32", device: dev() });
    const big = fl.zeros([1], { device: dev() });
    const lowest = fl.full([4], 7, { dtype: "u32", device: dev() });
    fl.compile(source, { device: dev(), name: "hip_fields" }).fn("fields").launch({ grid: 1, block: 40 }, out, big, lowest);
    const extract = (v: number, offset: number, width: number) => (v >>> offset) & ((1 << width) - 1);
    expect(Array.from(out.toArray())).to.deep.equal(range(40).map((t) => ((extract(0xdeadbeef, t % 32, 8) & ~(7 << 28)) | (5 << 28)) >>> 0));
    expect(big.toArray()[0]).to.equal(Infinity);
    expect(Array.from(lowest.toArray())).to.deep.equal([40, 0xffffffff, 3, 35]);
  });

  it("names HIP's bf16 types beside <cuda_bf16.h> on every target, as a ROCm extension written for hipify does", () => {
    const source = `
#include <cuda_bf16.h>
__global__ void pair_sums(float* out, const __nv_bfloat16* in, int n) {
  const auto* pairs = reinterpret_cast<const __hip_bfloat162*>(in);
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    const __hip_bfloat162 v = pairs[i];
    const hip_bfloat16 low = v.x;
    out[i] = __bfloat162float(low) + __high2float(v);
  }
}`;
    const n = 300;
    const values = range(2 * n).map((i) => ((i * 37) % 101) / 8 - 6);
    const out = fl.full([n], NaN, { device: dev() });
    fl.compile(source, { device: dev(), name: "hip_bf16_names" }).fn("pair_sums").launch({ grid: 3, block: 128 }, out, fl.tensor(values, { dtype: "bf16", device: dev() }), n);
    expect(Array.from(out.toArray())).to.deep.equal(range(n).map((i) => Math.fround(values[2 * i] + values[2 * i + 1])));
  });

  it("compiles clang's non-temporal loads and stores, which HIP sources call, on every target", () => {
    const source = `
#include <hip/hip_runtime.h>
__global__ void stream_scale(float* out, const float* in, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) __builtin_nontemporal_store(__builtin_nontemporal_load(in + i) * 2.0f, out + i);
}`;
    const x = fl.randn([1000], { device: dev(), seed: 3 });
    const out = fl.full([1000], NaN, { device: dev() });
    fl.compile(source, { device: dev(), name: "nontemporal" }).fn("stream_scale").launch({ grid: 4, block: 256 }, out, x, 1000);
    expect(Array.from(out.toArray())).to.deep.equal(Array.from(x.toArray(), (v) => v * 2));
  });

  it("shuffles values wider than 8 bytes through a tile, as CUDA's cooperative groups do (uint4, a struct)", () => {
    const source = `
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
struct Pair { double value; int index; };
__global__ void swap_pairs(const uint4* in, uint4* out, int* indices) {
  auto tile = cg::tiled_partition<32>(cg::this_thread_block());
  out[threadIdx.x] = tile.shfl_xor(in[threadIdx.x], 1);
  Pair p = { in[threadIdx.x].x * 0.5, (int)threadIdx.x };
  indices[threadIdx.x] = tile.shfl_down(p, 2).index;
}`;
    const words = range(64 * 4).map((i) => i * 7 + 1);
    const out = fl.full([64 * 4], 0xffffffff, { dtype: "u32", device: dev() });
    const indices = fl.full([64], -1, { dtype: "i32", device: dev() });
    fl.compile(source, { device: dev(), name: "wide_shuffles" }).fn("swap_pairs")
      .launch({ grid: 1, block: 64 }, fl.tensor(words, { dtype: "u32", device: dev() }), out, indices);
    expect(Array.from(out.toArray())).to.deep.equal(range(64 * 4).map((i) => words[((i >> 2) ^ 1) * 4 + (i & 3)]));
    // shfl_down past the tile's end gives the lane its own value.
    expect(Array.from(indices.toArray())).to.deep.equal(range(64).map((t) => ((t % 32) + 2 < 32 ? t + 2 : t)));
  });

  it("reduces over cooperative groups' tiles of several warps, with block_tile_memory as the CUDA samples declare it", () => {
    const source = `
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;
template <unsigned BlockSize, unsigned TileSize>
__global__ void tile_sums(const int* in, int* out, int n) {
  __shared__ cg::block_tile_memory<BlockSize> scratch;
  cg::thread_block cta = cg::this_thread_block(scratch);
  auto tile = cg::tiled_partition<TileSize>(cta);
  const int i = blockIdx.x * BlockSize + threadIdx.x;
  const int v = cg::reduce(tile, i < n ? in[i] : 0, cg::plus<int>());
  tile.sync();
  if (tile.thread_rank() == 0) out[blockIdx.x * (BlockSize / TileSize) + tile.meta_group_rank()] = v * (int)tile.num_threads();
}`;
    const module = fl.compile(source, { device: dev(), name: "tile_sums" });
    const n = 3001;
    const values = range(n).map((i) => ((i * 37) % 101) - 50);
    const input = fl.tensor(values, { dtype: "i32", device: dev() });
    for (const [block, tile] of [[256, 128], [512, 64], [1024, 256]]) {
      const grid = Math.ceil(n / block), tiles = grid * (block / tile);
      const out = fl.full([tiles], -7, { dtype: "i32", device: dev() });
      module.fn(`tile_sums<${block}, ${tile}>`).launch({ grid, block }, input, out, n);
      const expected = range(tiles).map((t) => range(tile).reduce((sum, k) => sum + (values[t * tile + k] ?? 0), 0) * tile);
      expect(Array.from(out.toArray()), `${block} threads, tiles of ${tile}`).to.deep.equal(expected);
    }
  });

  it("converts a tile of a warp to a thread_group, and refuses a tile of several warps, as CUDA's headers do", () => {
    // rocm-examples' cooperative_groups passes its tiles to a device function as thread_group.
    const module = fl.compile(`
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
__device__ __noinline__ unsigned exchange(cg::thread_group g, unsigned* slot) {
  slot[threadIdx.x] = threadIdx.x * 3;
  g.sync();
  return g.thread_rank() * 100000 + slot[threadIdx.x ^ (unsigned)(g.size() / 2)];
}
template <unsigned TileSize>
__global__ void tile_group(unsigned* out) {
  __shared__ unsigned slot[256];
  out[threadIdx.x] = exchange(cg::tiled_partition<TileSize>(cg::this_thread_block()), slot);
}`, { device: dev(), name: "tile_group" });
    for (const tile of [8, 32]) {
      const out = fl.full([256], 0xabab, { dtype: "u32", device: dev() });
      module.fn(`tile_group<${tile}>`).launch({ grid: 1, block: 256 }, out);
      expect(Array.from(out.toArray()), `tiles of ${tile}`).to.deep.equal(range(256).map((t) => (t % tile) * 100000 + (t ^ (tile / 2)) * 3));
    }
    // NVRTC: 'no suitable user-defined conversion from "thread_block_tile<64U, ...>" to "thread_group"'.
    for (const tile of [64, 128]) expectThrows(() => module.fn(`tile_group<${tile}>`), fl.DeviceError, /thread_block_tile.*thread_group/s);
  });

  it("reduces a tile of several warps in CUDA's order: each warp's butterfly, then one over the warps' results (float sums to the bit, an online softmax's NaN)", () => {
    const module = fl.compile(`
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;
template <unsigned TileSize>
__global__ void float_sums(const float* in, float* out) {
  auto tile = cg::tiled_partition<TileSize>(cg::this_thread_block());
  const float v = cg::reduce(tile, in[blockIdx.x * blockDim.x + threadIdx.x], cg::plus<float>());
  if (tile.thread_rank() == 0) out[blockIdx.x * (blockDim.x / TileSize) + tile.meta_group_rank()] = v;
}
// An online softmax's running maximum and sum (cuda_llm_ops' cross entropy): two empty
// lanes, {-inf, 0}, combine into a NaN sum, as exp(-inf - -inf) is NaN.
struct MaxSum { float max, sum; };
struct Combine {
  __device__ MaxSum operator()(const MaxSum& a, const MaxSum& b) const {
    const float m = fmaxf(a.max, b.max);
    return { m, a.sum * __expf(a.max - m) + b.sum * __expf(b.max - m) };
  }
};
__global__ void online(const float* in, int n, float* out) {
  auto tile = cg::tiled_partition<64>(cg::this_thread_block());
  const int i = threadIdx.x;
  const MaxSum r = cg::reduce(tile, i < n ? MaxSum{ in[i], 1.0f } : MaxSum{ -INFINITY, 0.0f }, Combine());
  if (i == 0) { out[0] = r.max; out[1] = r.sum; }
}`, { device: dev() });
    const butterfly = (values: number[]) => {
      let v = values.map(Math.fround);
      for (let offset = v.length / 2; offset >= 1; offset /= 2) v = v.map((x, i) => Math.fround(x + v[i ^ offset]));
      return v[0];
    };
    const warp = dev().props.warpSize;
    for (const tile of [64, 128, 256]) {
      const block = 256, grid = 2, values = range(grid * block).map((i) => ((i * 7919) % 1013) * (i % 3 === 0 ? 1e5 : 1e-3) * (i % 2 ? -1 : 1));
      const out = fl.full([grid * block / tile], NaN, { device: dev() });
      module.fn(`float_sums<${tile}>`).launch({ grid, block }, fl.tensor(values, { device: dev() }), out);
      const expected = range(grid * block / tile).map((t) => butterfly(range(tile / warp).map((w) => butterfly(values.slice(t * tile + w * warp, t * tile + (w + 1) * warp)))));
      expect(Array.from(out.toArray()), `tiles of ${tile}`).to.deep.equal(expected);
    }
    // Lanes 0 to 19 hold values; warp 1's lanes are all empty: its butterfly gives a NaN sum, which the tile's result carries.
    const online = fl.full([2], 7, { device: dev() });
    module.fn("online").launch({ grid: 1, block: 64 }, fl.tensor(range(64).map((i) => i * 0.25), { device: dev() }), 20, online);
    expect(Array.from(online.toArray())).to.deep.equal([4.75, NaN]);
  });

  it("rounds to c10's 8-bit floats as c10 does, the FNUZ ones too, and gives their limits and arithmetic (vLLM's fp8 quantization)", () => {
    const module = fl.compile(`
#include <torch/all.h>
#include <c10/util/Float8_e4m3fn.h>
#include <c10/util/Float8_e5m2.h>
#include <c10/util/Float8_e4m3fnuz.h>
#include <c10/util/Float8_e5m2fnuz.h>
template <typename fp8_t>
__global__ void quantize(unsigned char* codes, float* back, const float* x, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const fp8_t q = static_cast<fp8_t>(x[i]);
  codes[i] = q.x;
  back[i] = static_cast<float>(q);
}
// vLLM's scaled conversion: clamp to the type's range, then convert; and the type's limits.
__global__ void scaled(c10::Float8_e4m3fn* out, float* limits, const float* x, float inverse_scale, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  constexpr auto kFp8Max = std::numeric_limits<c10::Float8_e4m3fn>::max();
  const float kMax = static_cast<float>(kFp8Max);
  if (i < n) out[i] = static_cast<c10::Float8_e4m3fn>(fmaxf(-kMax, fminf(x[i] * inverse_scale, kMax)));
  if (i == 0) {
    using e5m2 = std::numeric_limits<c10::Float8_e5m2>;
    limits[0] = kMax;
    limits[1] = static_cast<float>(std::numeric_limits<c10::Float8_e4m3fn>::lowest());
    limits[2] = static_cast<float>(std::numeric_limits<c10::Float8_e4m3fn>::min());
    limits[3] = static_cast<float>(e5m2::max());
    limits[4] = static_cast<float>(e5m2::epsilon());
    limits[5] = static_cast<float>(e5m2::infinity());
    limits[6] = static_cast<float>(c10::Float8_e4m3fn(1.5f) * c10::Float8_e4m3fn(2.75f));
    using e4m3fnuz = std::numeric_limits<c10::Float8_e4m3fnuz>;
    using e5m2fnuz = std::numeric_limits<c10::Float8_e5m2fnuz>;
    limits[7] = static_cast<float>(e4m3fnuz::max());
    limits[8] = static_cast<float>(e4m3fnuz::lowest());
    limits[9] = static_cast<float>(e4m3fnuz::min());
    limits[10] = static_cast<float>(e4m3fnuz::epsilon());
    limits[11] = static_cast<float>(e5m2fnuz::max());
    limits[12] = static_cast<float>(e5m2fnuz::min());
    limits[13] = static_cast<float>(e5m2fnuz::epsilon());
    limits[14] = e5m2fnuz::has_infinity ? 1.0f : 0.0f;
  }
}
`, { device: dev() });
    // Every code's value, the midpoints between neighbours (ties), just either side of them, and the edges.
    const values: number[] = [0, -0, NaN, Infinity, -Infinity, 1e-9, 240, 247.9, 248, 256, 440, 448, 456, 460, 464, 465, 479, 480, 1e6, 57344, 60000,
      61440, 61441, 65536, 2 ** -17, 2 ** -18, -(2 ** -18), -(2 ** -11)];
    for (const format of ["e4m3fn", "e5m2", "e4m3fnuz", "e5m2fnuz"] as const) {
      for (let code = 0; code < (format.endsWith("fnuz") ? 0x7f : 0x7c); code++) {
        const v = fp8Value(code, format), next = fp8Value(code + 1, format);
        values.push(v, -v);
        if (Number.isFinite(next)) values.push((v + next) / 2, Math.fround((v + next) / 2 * (1 + 2 ** -20)), -Math.fround((v + next) / 2 * (1 - 2 ** -20)));
      }
    }
    const inputs = values.map(Math.fround);
    const x = fl.tensor(inputs, { device: dev() });
    for (const [format, type] of [["e4m3fn", "c10::Float8_e4m3fn"], ["e5m2", "c10::Float8_e5m2"], ["e4m3fnuz", "c10::Float8_e4m3fnuz"],
      ["e5m2fnuz", "c10::Float8_e5m2fnuz"]] as const) {
      const codes = fl.full([inputs.length], 0x55, { dtype: "u8", device: dev() });
      const back = fl.full([inputs.length], -7, { device: dev() });
      module.fn(`quantize<${type}>`).launch({ grid: Math.ceil(inputs.length / 128), block: 128 }, codes, back, x, inputs.length);
      const expected = inputs.map((v) => fp8Code(v, format));
      expect(Array.from(codes.toArray()), format).to.deep.equal(expected);
      expect(Array.from(back.toArray()).map((v) => (Number.isNaN(v) ? "NaN" : v)), format)
        .to.deep.equal(expected.map((c) => fp8Value(c, format)).map((v) => (Number.isNaN(v) ? "NaN" : Math.fround(v))));
    }
    const n = 40;
    const xs = range(n).map((i) => (i - 20) * 37.5);
    const out = fl.full([n], 0x55, { dtype: "u8", device: dev() });
    const limits = fl.full([15], NaN, { device: dev() });
    module.fn("scaled").launch({ grid: 1, block: 64 }, out, limits, fl.tensor(xs, { device: dev() }), 0.5, n);
    expect(Array.from(out.toArray())).to.deep.equal(xs.map((v) => fp8Code(Math.max(-448, Math.min(v * 0.5, 448)), "e4m3fn")));
    expect(Array.from(limits.toArray())).to.deep.equal([448, -448, 2 ** -6, 57344, 0.25, Infinity, 4, 240, -240, 2 ** -7, 0.125, 57344, 2 ** -15, 0.25, 0]);
  });

  it("takes PyTorch's TensorInfo (a tensor, or its fields), std::optional in host declarations, a source's own shuffle of at::Half, and kernels a header only declares", () => {
    const module = fl.compile(`
#include <optional>
#include <torch/extension.h>
#include <ATen/cuda/detail/IndexUtils.cuh>
#include <cuda_fp16.h>
// pytorch_scatter's and pytorch_cluster's host declarations, and a kernel another file defines.
torch::Tensor segment_csr_cuda(torch::Tensor src, torch::Tensor indptr, std::optional<torch::Tensor> optional_out);
torch::Tensor radius_cuda(torch::Tensor x, torch::optional<torch::Tensor> ptr_x, c10::optional<int64_t> max);
__global__ void defined_elsewhere(int n, int* out);
// Each row's sum, its bounds from the TensorInfo's elements at their strides.
__global__ void segment_sums(const float* src, const at::cuda::detail::TensorInfo<int64_t, int> indptr, float* out, int rows) {
  const int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  using Offset = at::cuda::detail::IndexToOffset<int64_t, int, -1>;
  const int64_t start = indptr.data[Offset::get(row, indptr)], end = indptr.data[Offset::get(row + 1, indptr)];
  float sum = 0.0f;
  for (int64_t i = start; i < end; i++) sum += src[i];
  out[row] = sum + indptr.dims * 1000.0f;
}
__device__ __inline__ at::Half __shfl_down_sync(const unsigned mask, const at::Half var, const unsigned int delta) {
  return __shfl_down_sync(mask, var.operator __half(), delta);
}
__global__ void shift_halves(at::Half* values) {
  values[threadIdx.x] = __shfl_down_sync(0xffffffffu, values[threadIdx.x], 1u);
}`, { device: dev() });
    expectThrows(() => module.fn("defined_elsewhere"), fl.ArgumentError, /got "defined_elsewhere", a declaration on line 9, with no definition/);
    const ends = [0, 3, 3, 10, 41, 42], src = range(42).map((i) => (i % 7) - 3), rows = ends.length - 1;
    const expected = range(rows).map((r) => src.slice(ends[r], ends[r + 1]).reduce((a, b) => a + b, 0));
    const x = fl.tensor(src, { device: dev() });
    // As a tensor, and as its fields: a 2 x 6 tensor's column 0 (rows 0 to 4 then the last), through strides of 6.
    const out = fl.full([rows], NaN, { device: dev() });
    module.fn("segment_sums").launch({ grid: 1, block: 32 }, x, fl.tensor(ends, { dtype: "i64", device: dev() }), out, rows);
    expect(Array.from(out.toArray())).to.deep.equal(expected.map((v) => v + 1000));
    const strided = fl.tensor([...ends.flatMap((e) => [e, -1, -1])], { dtype: "i64", device: dev() });
    const pad = (v: number[]) => [...v, ...new Array(25 - v.length).fill(0)];
    module.fn("segment_sums").launch({ grid: 1, block: 32 }, x, { data: strided, sizes: pad([6]), strides: pad([3]), dims: 1 }, out, rows);
    expect(Array.from(out.toArray())).to.deep.equal(expected.map((v) => v + 1000));
    expectThrows(() => module.fn("segment_sums").launch({ grid: 1, block: 32 }, x, fl.tensor(ends, { device: dev() }), out, rows), fl.ArgumentError,
      /argument 1 \(indptr\) must be an i64 tensor of up to 25 dimensions \(at::cuda::detail::TensorInfo<int64_t, int>\), got/);
    const halves = fl.tensor(range(32).map((i) => i / 4), { dtype: "f16", device: dev() });
    module.fn("shift_halves").launch({ grid: 1, block: 32 }, halves);
    expect(Array.from(halves.toArray())).to.deep.equal([...range(31).map((i) => (i + 1) / 4), 31 / 4]);
  });

  it("converts a c10::Half to __half implicitly, as PyTorch's does, while two Halfs, or a Half and a number, compare as floats (torch-ngp's atomicAdd of at::Half)", () => {
    const module = fl.compile(`
#include <torch/extension.h>
#include <cuda_fp16.h>
static inline __device__ at::Half atomicAdd(at::Half* address, at::Half val) {
  return atomicAdd(reinterpret_cast<__half*>(address), val);
}
__global__ void scatter_add(at::Half* table, const at::Half* values, const int* slots, int* order, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  atomicAdd(table + slots[i], values[i]);
  const at::Half a = values[i], b = values[(i + 1) % n];
  const __half h = a;
  order[i] = (a < b) + 2 * (a == b) + 4 * (a >= 0.5f) + 8 * (__half(a) > __half(b)) + 16 * (a != 1) + 32 * __hlt(h, b);
}`, { device: dev() });
    const n = 203, slots = range(n).map((i) => (i * 7) % 11), values = range(n).map((i) => ((i * 5) % 9) / 4);
    const table = fl.full([11], 0.5, { dtype: "f16", device: dev() }), order = fl.full([n], -1, { dtype: "i32", device: dev() });
    module.fn("scatter_add").launch({ grid: 4, block: 64 }, table, fl.tensor(values, { dtype: "f16", device: dev() }),
      fl.tensor(slots, { dtype: "i32", device: dev() }), order, n);
    // Quarters summing to less than 2048 are exact in half, in any order of the adds.
    expect(Array.from(table.toArray())).to.deep.equal(range(11).map((s) => 0.5 + values.reduce((sum, v, i) => sum + (slots[i] === s ? v : 0), 0)));
    expect(Array.from(order.toArray())).to.deep.equal(range(n).map((i) => {
      const a = values[i], b = values[(i + 1) % n];
      return +(a < b) + 2 * +(a === b) + 4 * +(a >= 0.5) + 8 * +(a > b) + 16 * +(a !== 1) + 32 * +(a < b);
    }));
  });

  it("takes numbers for 8-bit floats passed by value, rounded as each type's constructor rounds them (CUDA's saturating, c10's not)", () => {
    const module = fl.compile(`
#include <cuda_fp8.h>
#include <c10/util/Float8_e4m3fn.h>
#include <c10/util/Float8_e5m2.h>
__global__ void fp8_arguments(unsigned char* codes, __nv_fp8_e4m3 a, __nv_fp8_e5m2 b, c10::Float8_e4m3fn c, const c10::Float8_e5m2 d) {
  codes[0] = a.__x;
  codes[1] = b.__x;
  codes[2] = c.x;
  codes[3] = d.x;
}`, { device: dev() });
    const inputs = [0.3, -1.7, 1e-3, -2e-9, 0.0078125, 0.0029296875, 300, 463.9, 464, 465, 479.9, 500, 1e6, -Infinity, NaN, -0, 57344, 61439, 61440, 70000,
      0.1 + 2 ** -40];
    const clamp = (v: number, limit: number) => Math.max(-limit, Math.min(v, limit));
    for (const v of inputs) {
      const codes = fl.full([4], 0x55, { dtype: "u8", device: dev() });
      module.fn("fp8_arguments").launch({ grid: 1, block: 1 }, codes, v, v, v, v);
      expect(Array.from(codes.toArray()), String(v)).to.deep.equal([
        fp8Code(clamp(v, 448), "e4m3fn"), fp8Code(clamp(v, 57344), "e5m2"), fp8Code(Math.fround(v), "e4m3fn"), fp8Code(Math.fround(v), "e5m2"),
      ]);
    }
    expectThrows(() => module.fn("fp8_arguments").launch({ grid: 1, block: 1 }, fl.zeros([4], { dtype: "u8", device: dev() }), "1" as unknown as number, 1, 1, 1), fl.ArgumentError,
      /argument 1 \(a\) must be a number \(__nv_fp8_e4m3\), got "1"/);
  });

  it("gives CUDA's 8-bit floats to a source that includes the 16-bit ones and <cmath>, as NVRTC's headers do (candle's cuda_utils.cuh)", () => {
    const module = fl.compile(`
#include "cuda_fp16.h"
#include "cuda_bf16.h"
#include <cmath>
__device__ __forceinline__ float widen(__nv_fp8_e4m3 a) { return __half2float(__nv_cvt_fp8_to_halfraw(a.__x, __NV_E4M3)); }
__global__ void decode(float* out, const unsigned char* codes, int n) {
  const int i = threadIdx.x;
  if (i >= n) return;
  __nv_fp8_e4m3 v;
  v.__x = codes[i];
  out[i] = widen(v);
}
`, { device: dev() });
    const codes = [0x00, 0x38, 0xb8, 0x7e, 0x01, 0x44];
    const out = fl.full([codes.length], NaN, { device: dev() });
    module.fn("decode").launch({ grid: 1, block: 32 }, out, fl.tensor(codes, { dtype: "u8", device: dev() }), codes.length);
    expect(Array.from(out.toArray())).to.deep.equal([0, 1, -1, 448, 2 ** -9, 3]);
  });

  it("converts to and from CUDA's 8-bit floats (cuda_fp8.h) as the GPU does: nearest even, saturating or not, every code decoded", () => {
    const source = `
#include <cuda_fp8.h>
__global__ void to_fp8(const float* x, unsigned char* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  out[i * 6 + 0] = __nv_cvt_float_to_fp8(x[i], __NV_SATFINITE, __NV_E4M3);
  out[i * 6 + 1] = __nv_cvt_float_to_fp8(x[i], __NV_NOSAT, __NV_E4M3);
  out[i * 6 + 2] = __nv_cvt_float_to_fp8(x[i], __NV_SATFINITE, __NV_E5M2);
  out[i * 6 + 3] = __nv_cvt_float_to_fp8(x[i], __NV_NOSAT, __NV_E5M2);
  out[i * 6 + 4] = __nv_fp8_e4m3(x[i]).__x;
  out[i * 6 + 5] = __nv_fp8_e5m2(x[i]).__x;
}
__global__ void from_fp8(float* out, __half* halves, float* widened) {
  const unsigned code = threadIdx.x;
  __nv_fp8_e4m3 a;
  a.__x = code;
  __nv_fp8_e5m2 b;
  b.__x = code;
  out[code * 2] = float(a);
  out[code * 2 + 1] = float(b);
  halves[code] = __half(__nv_cvt_fp8_to_halfraw(code, __NV_E4M3));
  widened[code] = __internal_halfraw_to_float(__nv_cvt_fp8_to_halfraw(code, __NV_E5M2));  // the toolkit's helper, as calm calls it
  if (code == 1) {
    const float2 pair = __internal_halfraw2_to_float2(__nv_cvt_fp8x2_to_halfraw2(0x3c40, __NV_E5M2));
    widened[256] = pair.x, widened[257] = pair.y;
  }
}`;
    // The formats, decoded from their definitions: sign, exponent field, mantissa field.
    const formats = { e4m3: { m: 3, bias: 7 }, e5m2: { m: 2, bias: 15 } };
    const decode = (kind: "e4m3" | "e5m2", code: number): number => {
      const { m, bias } = formats[kind];
      const sign = code & 0x80 ? -1 : 1, field = (code & 0x7f) >> m, mantissa = code & ((1 << m) - 1);
      if (kind === "e4m3" && (code & 0x7f) === 0x7f) return NaN;
      if (kind === "e5m2" && field === 31) return mantissa ? NaN : sign * Infinity;
      return sign * (field === 0 ? mantissa * 2 ** (1 - bias - m) : (1 + mantissa / (1 << m)) * 2 ** (field - bias));
    };
    // The nearest finite code of x's sign (ties to the even code); past the largest, the
    // value a further code would have (480, 65536) decides between saturating and overflowing.
    const encode = (kind: "e4m3" | "e5m2", x: number, saturate: boolean): number | "NaN" => {
      if (Number.isNaN(x)) return "NaN";
      const sign = x < 0 || Object.is(x, -0) ? 0x80 : 0;
      const largestCode = kind === "e4m3" ? 0x7e : 0x7b;
      const candidates = range(largestCode + 1).map((code) => ({ code, value: decode(kind, code), even: (code & 1) === 0 }));
      // 480 would be 1.111 * 2^8 (odd), 65536 is 1.00 * 2^16 (even).
      candidates.push({ code: -1, value: kind === "e4m3" ? 480 : 65536, even: kind === "e5m2" });
      const a = Math.abs(x);
      let best = a === Infinity ? candidates[candidates.length - 1] : candidates[0];
      for (const c of a === Infinity ? [] : candidates.slice(1)) {
        const d = Math.abs(c.value - a), bestD = Math.abs(best.value - a);
        if (d < bestD || (d === bestD && c.even)) best = c;
      }
      if (best.code < 0) return saturate ? sign | largestCode : kind === "e4m3" ? "NaN" : sign | 0x7c;
      return sign | best.code;
    };
    const values = [0, -0, 1, -1, 0.1, 1e-30, -1e-30, 2 ** -10, 2 ** -9, 2 ** -17, 2 ** -16, 3 * 2 ** -18, 448, 449, 463.99, 464, 464.01, 500, 1e6,
      57344, 61439, 61440, 61441, Infinity, -Infinity, NaN, -5.5, 3.14159, 240, 232, 248];
    for (const kind of ["e4m3", "e5m2"] as const) {
      for (let code = 0; code < 0x80; code++) {
        const v = decode(kind, code), next = decode(kind, code + 1);
        if (!Number.isFinite(v) || !Number.isFinite(next)) continue;
        values.push(v, -v, (v + next) / 2, -(v + next) / 2, (v + next) / 2 * (1 + 2 ** -20), (v + next) / 2 * (1 - 2 ** -20));
      }
    }
    const x = new Float32Array(values);
    const n = x.length;
    const module = fl.compile(source, { device: dev(), name: "fp8" });
    const out = fl.full([n * 6], 0xee, { dtype: "u8", device: dev() });
    module.fn("to_fp8").launch({ grid: Math.ceil(n / 128), block: 128 }, fl.tensor(x, { device: dev() }), out, n);
    // Columns 0, 1 and 4 are E4M3, the others E5M2; any NaN code is a NaN.
    const kinds = ["e4m3", "e4m3", "e5m2", "e5m2", "e4m3", "e5m2"] as const;
    const codes = Array.from(out.toArray(), (c, i) => (Number.isNaN(decode(kinds[i % 6], c)) ? "NaN" : c));
    const expected = Array.from(x).flatMap((v) => kinds.map((kind, column) => encode(kind, v, column !== 1 && column !== 3)));
    expectCodes(codes, expected, x, 6);
    const decoded = fl.full([512], 7, { device: dev() });
    const halves = fl.full([256], 7, { dtype: "f16", device: dev() });
    const widened = fl.full([258], 7, { device: dev() });
    module.fn("from_fp8").launch({ grid: 1, block: 256 }, decoded, halves, widened);
    const asText = (v: number) => (Number.isNaN(v) ? "NaN" : Object.is(v, -0) ? "-0" : String(v));
    expect(Array.from(decoded.toArray(), asText)).to.deep.equal(range(256).flatMap((c) => [asText(decode("e4m3", c)), asText(decode("e5m2", c))]));
    expect(Array.from(halves.toArray(), asText)).to.deep.equal(range(256).map((c) => asText(decode("e4m3", c))));
    expect(Array.from(widened.toArray(), asText)).to.deep.equal([...range(256).map((c) => asText(decode("e5m2", c))), asText(decode("e5m2", 0x40)), asText(decode("e5m2", 0x3c))]);
  });

  it("converts to and from CUDA's 4- and 6-bit floats (cuda_fp4.h, cuda_fp6.h) as the GPU does: to nearest even or toward zero, saturating, every code decoded", () => {
    const source = `
#include <cuda_fp4.h>
// x converted to format F (KIND) into o[0..14]: from double, float, half and bfloat16, to
// nearest and toward zero; the pair (x, -x) of doubles toward zero, in its two bytes; four
// floats (x, -x, 2x, x/4) and one by the classes (to nearest), the four in their bytes.
#define ENCODE(F, KIND, T, T4, o)                                                            \\
  o[0] = __nv_cvt_double_to_##F(d, KIND, cudaRoundNearest);                                  \\
  o[1] = __nv_cvt_double_to_##F(d, KIND, cudaRoundZero);                                     \\
  o[2] = __nv_cvt_float_to_##F(f, KIND, cudaRoundNearest);                                   \\
  o[3] = __nv_cvt_float_to_##F(f, KIND, cudaRoundZero);                                      \\
  o[4] = __nv_cvt_halfraw_to_##F(__half_raw(h), KIND, cudaRoundNearest);                     \\
  o[5] = __nv_cvt_halfraw_to_##F(__half_raw(h), KIND, cudaRoundZero);                        \\
  o[6] = __nv_cvt_bfloat16raw_to_##F(__nv_bfloat16_raw(b), KIND, cudaRoundNearest);          \\
  o[7] = __nv_cvt_bfloat16raw_to_##F(__nv_bfloat16_raw(b), KIND, cudaRoundZero);             \\
  pair = __nv_cvt_double2_to_##F##x2(make_double2(d, -d), KIND, cudaRoundZero);              \\
  o[8] = pair & 0xff;                                                                        \\
  o[9] = pair >> 8;                                                                          \\
  quad = T4(make_float4(f, -f, 2.0f * f, 0.25f * f)).__x;                                    \\
  o[10] = quad & 0xff;                                                                       \\
  o[11] = (quad >> 8) & 0xff;                                                                \\
  o[12] = (quad >> 16) & 0xff;                                                               \\
  o[13] = quad >> 24;                                                                        \\
  o[14] = T(f).__x;
__global__ void to_narrow(const double* x, unsigned char* out, int n) {${NARROW_INPUTS}
  unsigned int pair, quad;
  ENCODE(fp4, __NV_E2M1, __nv_fp4_e2m1, __nv_fp4x4_e2m1, (out + i * 45))
  ENCODE(fp6, __NV_E2M3, __nv_fp6_e2m3, __nv_fp6x4_e2m3, (out + i * 45 + 15))
  ENCODE(fp6, __NV_E3M2, __nv_fp6_e3m2, __nv_fp6x4_e3m2, (out + i * 45 + 30))
}
// Byte c decoded as format F (column j): to half; by the class to float; as the pair
// (c, 255 - c) and the four (c, 255 - c, 7c, 13c) (bytes; for fp4 the same words, cut
// to 8 and 16 bits) to floats.
#define DECODE(F, KIND, T, T2, T4, j)                                                        \\
  halves[c * 3 + j] = __half(__nv_cvt_##F##_to_halfraw(c, KIND));                           \\
  {                                                                                          \\
    float* o = floats + (c * 3 + j) * 7;                                                     \\
    T v;                                                                                     \\
    v.__x = c;                                                                               \\
    o[0] = float(v);                                                                         \\
    T2 p;                                                                                    \\
    p.__x = c | (255 - c) << 8;                                                              \\
    const float2 pf = float2(p);                                                             \\
    o[1] = pf.x;                                                                             \\
    o[2] = pf.y;                                                                             \\
    T4 q;                                                                                    \\
    q.__x = c | (255 - c) << 8 | ((c * 7) & 255) << 16 | ((c * 13) & 255) << 24;             \\
    const float4 qf = float4(q);                                                             \\
    o[3] = qf.x;                                                                             \\
    o[4] = qf.y;                                                                             \\
    o[5] = qf.z;                                                                             \\
    o[6] = qf.w;                                                                             \\
  }
__global__ void from_narrow(__half* halves, float* floats) {
  const unsigned c = threadIdx.x;
  DECODE(fp4, __NV_E2M1, __nv_fp4_e2m1, __nv_fp4x2_e2m1, __nv_fp4x4_e2m1, 0)
  DECODE(fp6, __NV_E2M3, __nv_fp6_e2m3, __nv_fp6x2_e2m3, __nv_fp6x4_e2m3, 1)
  DECODE(fp6, __NV_E3M2, __nv_fp6_e3m2, __nv_fp6x2_e3m2, __nv_fp6x4_e3m2, 2)
}`;
    // The formats from their definitions: a sign bit over the exponent and mantissa fields,
    // exponent field 0 holding zero and the subnormals; no infinity, no NaN.
    const formats = [{ bits: 4, m: 1, bias: 1 }, { bits: 6, m: 3, bias: 1 }, { bits: 6, m: 2, bias: 3 }];
    type Format = (typeof formats)[number];
    const largestCode = (f: Format) => (1 << (f.bits - 1)) - 1;
    const decode = (f: Format, code: number): number => {
      const sign = (code >> (f.bits - 1)) & 1, magnitude = code & largestCode(f);
      const field = magnitude >> f.m, mantissa = magnitude & ((1 << f.m) - 1);
      const v = field === 0 ? mantissa * 2 ** (1 - f.bias - f.m) : (1 + mantissa / 2 ** f.m) * 2 ** (field - f.bias);
      return sign ? -v : v;
    };
    // x's sign and, among the magnitudes, the nearest (ties to the even code) or the largest
    // not above |x| (toward zero), past the largest the largest. NaN: the positive largest.
    const encode = (f: Format, x: number, nearest: boolean): number => {
      if (Number.isNaN(x)) return largestCode(f);
      const sign = x < 0 || Object.is(x, -0) ? 1 << (f.bits - 1) : 0, a = Math.min(Math.abs(x), decode(f, largestCode(f)));
      let best = 0;
      for (let code = 1; code <= largestCode(f); code++) {
        const v = decode(f, code), d = Math.abs(v - a), bestD = Math.abs(decode(f, best) - a);
        if (nearest ? d < bestD || (d === bestD && code % 2 === 0) : v <= a) best = code;
      }
      return sign | best;
    };
    const values = [0, -0, NaN, Infinity, -Infinity, 1e-30, -1e-30, 1e-300, 1e300, -1e300, 1e6, -7.9, 65504, 65520, 3.4e38, 2 ** -149];
    for (const f of formats) {
      for (let code = 0; code <= largestCode(f); code++) {
        const v = decode(f, code), next = code < largestCode(f) ? decode(f, code + 1) : 2 * v - decode(f, code - 1);
        for (const y of [v, (v + next) / 2, ((v + next) / 2) * (1 + 2 ** -20), ((v + next) / 2) * (1 - 2 ** -20),
          ((v + next) / 2) * (1 + 2 ** -40), ((v + next) / 2) * (1 - 2 ** -40)]) values.push(y, -y);
      }
    }
    const module = fl.compile(source, { device: dev(), name: "narrow" });
    expectConversions(module, "to_narrow", values, 45, values.flatMap((d) => {
      const f32 = Math.fround(d);
      return formats.flatMap((f) => {
        const pack = (parts: number[]) => parts.reduce((word, part, k) => word + part * 2 ** (k * (f.bits === 4 ? 4 : 8)), 0);
        const pair = pack([encode(f, d, false), encode(f, -d, false)]);
        const quad = pack([f32, -f32, Math.fround(2 * f32), Math.fround(0.25 * f32)].map((y) => encode(f, y, true)));
        return [encode(f, d, true), encode(f, d, false), encode(f, f32, true), encode(f, f32, false),
          encode(f, roundF16(f32), true), encode(f, roundF16(f32), false), encode(f, roundBf16(f32), true), encode(f, roundBf16(f32), false),
          pair & 0xff, pair >> 8, quad & 0xff, (quad >> 8) & 0xff, (quad >> 16) & 0xff, quad >>> 24, encode(f, f32, true)];
      });
    }));
    const halves = fl.full([256 * 3], 7, { dtype: "f16", device: dev() });
    const floats = fl.full([256 * 3 * 7], 7, { device: dev() });
    module.fn("from_narrow").launch({ grid: 1, block: 256 }, halves, floats);
    const asText = (v: number) => (Number.isNaN(v) ? "NaN" : Object.is(v, -0) ? "-0" : String(v));
    // The parts of a word (fp4: 4 bits each), each decoded; bits above a format's are not its.
    const parts = (f: Format, word: number, count: number) =>
      range(count).map((k) => decode(f, Math.floor(word / 2 ** (k * (f.bits === 4 ? 4 : 8))) % (f.bits === 4 ? 16 : 256)));
    expect(Array.from(halves.toArray(), asText)).to.deep.equal(range(256).flatMap((c) => formats.map((f) => asText(decode(f, c)))));
    expect(Array.from(floats.toArray(), asText)).to.deep.equal(range(256).flatMap((c) => formats.flatMap((f) => {
      const quad = c + (255 - c) * 2 ** 8 + ((c * 7) & 255) * 2 ** 16 + ((c * 13) & 255) * 2 ** 24;
      return [decode(f, c), ...parts(f, c + (255 - c) * 2 ** 8, 2), ...parts(f, quad, 4)].map(asText);
    })));
  });

  it("converts to and from CUDA's E8M0 scales (cuda_fp8.h) as the GPU does: to a power of two toward zero or up, saturating or not, every code decoded", () => {
    const source = `
#include <cuda_fp8.h>
__global__ void to_e8m0(const double* x, unsigned char* out, int n) {${NARROW_INPUTS}
  unsigned char* o = out + i * 20;
  // From double, float and bfloat16: toward zero and up, saturating and not.
  o[0] = __nv_cvt_double_to_e8m0(d, __NV_SATFINITE, cudaRoundZero);
  o[1] = __nv_cvt_double_to_e8m0(d, __NV_NOSAT, cudaRoundZero);
  o[2] = __nv_cvt_double_to_e8m0(d, __NV_SATFINITE, cudaRoundPosInf);
  o[3] = __nv_cvt_double_to_e8m0(d, __NV_NOSAT, cudaRoundPosInf);
  o[4] = __nv_cvt_float_to_e8m0(f, __NV_SATFINITE, cudaRoundZero);
  o[5] = __nv_cvt_float_to_e8m0(f, __NV_NOSAT, cudaRoundZero);
  o[6] = __nv_cvt_float_to_e8m0(f, __NV_SATFINITE, cudaRoundPosInf);
  o[7] = __nv_cvt_float_to_e8m0(f, __NV_NOSAT, cudaRoundPosInf);
  o[8] = __nv_cvt_bfloat16raw_to_e8m0(__nv_bfloat16_raw(b), __NV_SATFINITE, cudaRoundZero);
  o[9] = __nv_cvt_bfloat16raw_to_e8m0(__nv_bfloat16_raw(b), __NV_NOSAT, cudaRoundZero);
  o[10] = __nv_cvt_bfloat16raw_to_e8m0(__nv_bfloat16_raw(b), __NV_SATFINITE, cudaRoundPosInf);
  o[11] = __nv_cvt_bfloat16raw_to_e8m0(__nv_bfloat16_raw(b), __NV_NOSAT, cudaRoundPosInf);
  // The pairs, the first in the low byte: (f, 2f) toward zero; (b, -b) and (d, d / 2) up.
  const unsigned short floats = __nv_cvt_float2_to_e8m0x2(make_float2(f, 2.0f * f), __NV_NOSAT, cudaRoundZero);
  __nv_bfloat162_raw bs;
  bs.x = __nv_bfloat16_raw(b).x;
  bs.y = bs.x ^ 0x8000;
  const unsigned short bfloats = __nv_cvt_bfloat162raw_to_e8m0x2(bs, __NV_SATFINITE, cudaRoundPosInf);
  const unsigned short doubles = __nv_cvt_double2_to_e8m0x2(make_double2(d, 0.5 * d), __NV_NOSAT, cudaRoundPosInf);
  o[12] = floats & 0xff;
  o[13] = floats >> 8;
  o[14] = bfloats & 0xff;
  o[15] = bfloats >> 8;
  o[16] = doubles & 0xff;
  o[17] = doubles >> 8;
  // The class's constructors: up, saturating.
  o[18] = __nv_fp8_e8m0(d).__x;
  o[19] = __nv_fp8_e8m0(h).__x;
}
__global__ void from_e8m0(unsigned short* bits, float* floats, __half* halves, int* ints, long long* wide) {
  const unsigned c = threadIdx.x;
  bits[c * 3] = __nv_cvt_e8m0_to_bf16raw(c).x;
  const __nv_bfloat162_raw pair = __nv_cvt_e8m0x2_to_bf162raw(c | (255 - c) << 8);
  bits[c * 3 + 1] = pair.x;
  bits[c * 3 + 2] = pair.y;
  __nv_fp8_e8m0 v;
  v.__x = c;
  floats[c * 5] = float(v);
  __nv_fp8x4_e8m0 q;
  q.__x = c | (255 - c) << 8 | ((c * 7) & 255) << 16 | ((c * 13) & 255) << 24;
  const float4 qf = float4(q);
  floats[c * 5 + 1] = qf.x;
  floats[c * 5 + 2] = qf.y;
  floats[c * 5 + 3] = qf.z;
  floats[c * 5 + 4] = qf.w;
  halves[c] = __half(v);
  ints[c * 3] = int(v);
  ints[c * 3 + 1] = (unsigned char)(v);
  ints[c * 3 + 2] = bool(v);
  wide[c] = (long long)v;
}
// From the integers: the power of two at or above the magnitude, exactly.
__global__ void from_integers(unsigned char* out) {
  out[0] = __nv_fp8_e8m0(0).__x;
  out[1] = __nv_fp8_e8m0(1).__x;
  out[2] = __nv_fp8_e8m0(-5).__x;
  out[3] = __nv_fp8_e8m0(1000u).__x;
  out[4] = __nv_fp8_e8m0((short)-16385).__x;
  out[5] = __nv_fp8_e8m0((unsigned short)65535).__x;
  out[6] = __nv_fp8_e8m0(2147483649u).__x;
  out[7] = __nv_fp8_e8m0(9007199254740993LL).__x;
  out[8] = __nv_fp8_e8m0(-9007199254740993LL).__x;
  out[9] = __nv_fp8_e8m0(9223372036854775807LL).__x;
  out[10] = __nv_fp8_e8m0(-9223372036854775807LL - 1).__x;
  out[11] = __nv_fp8_e8m0(4611686018427387904ULL).__x;
  out[12] = __nv_fp8_e8m0(4611686018427387905ULL).__x;
  out[13] = __nv_fp8_e8m0(18446744073709551615ULL).__x;
}`;
    // |x| to a power of two 2^k, code k + 127: toward zero the largest not above, up the least
    // not below; below 2^-127, 2^-127 (code 0); past 2^127, 2^127 when saturating, else NaN
    // (0xff), as NaN gives.
    const encode = (x: number, up: boolean, saturate: boolean): number => {
      if (Number.isNaN(x)) return 0xff;
      const a = Math.abs(x);
      let k = -127;
      while (k <= 127 && (up ? 2 ** k < a : 2 ** (k + 1) <= a)) k++;
      return k <= 127 ? k + 127 : saturate ? 0xfe : 0xff;
    };
    // The GPU narrows a double to float toward zero, setting the last bit where inexact: the
    // power of two it rounds to is the double's, but a finite double past float's range
    // becomes float's largest, below 2^128.
    const FLOAT_MAX = 2 ** 128 - 2 ** 104;
    const viaFloat = (d: number) => (Number.isFinite(d) && Math.abs(d) > FLOAT_MAX ? Math.sign(d) * FLOAT_MAX : d);
    const values = [0, -0, NaN, Infinity, -Infinity, FLOAT_MAX, -FLOAT_MAX, 2 ** 128, -(2 ** 200), 1e300, 1e-300, -1e-300, 2 ** -149, 3 * 2 ** -149];
    for (let k = -152; k <= 130; k++) {
      for (const y of [1, 1 + 2 ** -20, 1 - 2 ** -20, 1 + 2 ** -40, 1 - 2 ** -40, 1.5]) values.push(y * 2 ** k, -y * 2 ** k);
    }
    const module = fl.compile(source, { device: dev(), name: "e8m0" });
    expectConversions(module, "to_e8m0", values, 20, values.flatMap((d) => {
      const f = Math.fround(d), b = roundBf16(f), modes = [[false, true], [false, false], [true, true], [true, false]];
      return [...modes.map(([up, sat]) => encode(viaFloat(d), up, sat)), ...modes.map(([up, sat]) => encode(f, up, sat)),
        ...modes.map(([up, sat]) => encode(b, up, sat)), encode(f, false, false), encode(Math.fround(2 * f), false, false),
        encode(b, true, true), encode(-b, true, true), encode(viaFloat(d), true, false), encode(viaFloat(0.5 * d), true, false),
        encode(viaFloat(d), true, true), encode(roundF16(f), true, true)];
    }));
    // Code c is 2^(c - 127) (code 0, 2^-127, a subnormal in bfloat16 and float), 0xff NaN.
    const value = (c: number) => (c === 0xff ? NaN : 2 ** (c - 127));
    const bits = fl.full([256 * 3], 7, { dtype: "u16", device: dev() });
    const floats = fl.full([256 * 5], 7, { device: dev() });
    const halves = fl.full([256], 7, { dtype: "f16", device: dev() });
    const ints = fl.full([256 * 3], 7, { dtype: "i32", device: dev() });
    const wide = fl.zeros([256], { dtype: "i64", device: dev() });
    module.fn("from_e8m0").launch({ grid: 1, block: 256 }, bits, floats, halves, ints, wide);
    const bf16 = (c: number) => (c === 0xff ? 0x7fff : f32ToBf16Bits(value(c)));
    expect(Array.from(bits.toArray())).to.deep.equal(range(256).flatMap((c) => [bf16(c), bf16(c), bf16(255 - c)]));
    const asText = (v: number) => (Number.isNaN(v) ? "NaN" : String(v));
    expect(Array.from(floats.toArray(), asText)).to.deep.equal(range(256).flatMap((c) =>
      [c, c, 255 - c, (c * 7) & 255, (c * 13) & 255].map((code) => asText(value(code)))));
    expect(Array.from(halves.toArray(), asText)).to.deep.equal(range(256).map((c) => asText(roundF16(value(c)))));
    // To integers toward zero, saturating, NaN giving 0 (0x8000000000000000 to a 64-bit one); never false.
    expect(Array.from(ints.toArray())).to.deep.equal(range(256).flatMap((c) =>
      c === 0xff ? [0, 0, 1] : [Math.min(Math.trunc(value(c)), 2 ** 31 - 1), Math.min(Math.trunc(value(c)), 255), 1]));
    expect(Array.from(wide.toArray())).to.deep.equal(range(256).map((c) =>
      c === 0xff ? -(2n ** 63n) : c - 127 >= 63 ? 2n ** 63n - 1n : BigInt(Math.trunc(value(c)))));
    const fromIntegers = fl.full([14], 7, { dtype: "u8", device: dev() });
    module.fn("from_integers").launch({ grid: 1, block: 1 }, fromIntegers);
    expect(Array.from(fromIntegers.toArray())).to.deep.equal([0, ...[0, 3, 10, 15, 16, 32, 54, 54, 63, 63, 62, 63, 64].map((k) => k + 127)]);
  });

  it("defines HIP's platform for HIP sources as HIP's headers do (AMD on 64-lane warps, NVIDIA on 32 and on NVIDIA GPUs), and __lane_id()", () => {
    const source = `
#include <hip/hip_runtime.h>
__global__ void platform(int* out) {
#if defined(__HIP_PLATFORM_AMD__) && !defined(__HIP_PLATFORM_NVIDIA__)
  out[0] = 1;
#elif defined(__HIP_PLATFORM_NVIDIA__) && !defined(__HIP_PLATFORM_AMD__)
  out[0] = 2;
#endif
  out[1 + hipThreadIdx_x + hipBlockDim_x * hipThreadIdx_y] = __lane_id();
}`;
    const devices = dev().backend === "cpu" ? [dev(), fl.device("cpu", { warpSize: 64 })] : [dev()];
    for (const d of devices) {
      const out = fl.full([1 + 96 * 2], -1, { dtype: "i32", device: d });
      fl.compile(source, { device: d, name: "platform" }).fn("platform").launch({ grid: 1, block: [96, 2] }, out);
      const amd = d.backend === "hip" || (d.backend === "cpu" && d.props.warpSize === 64);
      const got = Array.from(out.toArray());
      expect(got[0], d.describe()).to.equal(amd ? 1 : 2);
      expect(got.slice(1), d.describe()).to.deep.equal(range(192).map((t) => t % d.props.warpSize));
    }
  });

  it("saturates float-to-integer intrinsics and the 16-bit types' conversions as the GPU's cvt does, NaN giving 0 (INT_MIN from double)", () => {
    const module = fl.compile(`
#include <cuda_fp16.h>
#include <cuda_bf16.h>
__global__ void saturate(int* out, const float* in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float x = in[i];
  int* o = out + 8 * i;
  o[0] = __float2int_rz(x);
  o[1] = static_cast<int>(__float2uint_rz(x));
  o[2] = __half2int_rz(__float2half(x));
  o[3] = static_cast<int>(__float2half(x));
  o[4] = static_cast<int>(static_cast<unsigned char>(__float2half(x)));
  o[5] = static_cast<int>(static_cast<short>(__float2bfloat16(x)));
  o[6] = __bfloat162int_rz(__float2bfloat16(x));
  o[7] = static_cast<int>(__double2int_rn(static_cast<double>(x) * 1e10));
}
`, { device: dev() });
    const inputs = [0, 1.75, -1.75, 300, -300, 70000, -70000, 3e9, -3e9, Infinity, -Infinity, NaN];
    const n = inputs.length;
    const out = fl.full([8 * n], -7, { dtype: "i32", device: dev() });
    module.fn("saturate").launch({ grid: 1, block: 32 }, out, fl.tensor(inputs, { device: dev() }), n);
    const clamp = (v: number, lo: number, hi: number) => (Number.isNaN(v) ? 0 : Math.min(hi, Math.max(lo, Math.trunc(v))));
    const INT = [-(2 ** 31), 2 ** 31 - 1] as const;
    const expected = inputs.flatMap((x) => [
      clamp(x, ...INT), clamp(x, 0, 2 ** 32 - 1) | 0, clamp(roundF16(x), ...INT), clamp(roundF16(x), ...INT), clamp(roundF16(x), 0, 255),
      clamp(roundBf16(x), -32768, 32767), clamp(roundBf16(x), ...INT), Number.isNaN(x) ? INT[0] : clamp(Math.round(x * 1e10), ...INT),
    ]);
    expect(Array.from(out.toArray())).to.deep.equal(expected);
  });

  it("in check mode, says when a shuffle reads a lane its mask leaves out (emulator)", async () => {
    const cpu = fl.device("cpu", { check: true });
    const module = fl.compile(`
__global__ void partial_warp(int* out, int offset) {
  if (threadIdx.x >= 4) return;
  int v = threadIdx.x + 1;
  v += offset ? __shfl_down_sync(0xFu, v, offset) : __shfl_xor_sync(0xFu, v, 1);
  out[threadIdx.x] = v;
}
`, { device: cpu });
    const out = fl.full([4], -1, { dtype: "i32", device: cpu });
    module.fn("partial_warp").launch({ grid: 1, block: 32 }, out, 0);
    expect(Array.from(out.toArray())).to.deep.equal([3, 3, 7, 7]);
    module.fn("partial_warp").launch({ grid: 1, block: 32 }, out, 2);
    let message = "";
    try {
      await cpu.synchronize();
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).to.match(/kernel 'partial_warp': __shfl_down_sync on line 5 in block \(0,0,0\): thread \(2,0,0\) reads lane 4, which its mask 0xf leaves out/);
    // A full mask in a block whose last warp is partial (40 threads): lanes 8 to 31 of warp 1 do not exist.
    const sums = fl.compile(`
__global__ void warp_sums(const float* in, float* out) {
  float v = in[threadIdx.x];
  for (int mask = 16; mask > 0; mask >>= 1) v += __shfl_xor_sync(0xffffffff, v, mask, 32);
  if ((threadIdx.x & 31) == 0) out[threadIdx.x >> 5] = v;
}
`, { device: cpu });
    sums.fn("warp_sums").launch({ grid: 1, block: 40 }, fl.ones([40], { device: cpu }), fl.zeros([2], { device: cpu }));
    message = "";
    try {
      await cpu.synchronize();
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).to.match(new RegExp("kernel 'warp_sums': __shfl_xor_sync on line 4 in block \\(0,0,0\\): thread \\(32,0,0\\) reads lane 16 " +
      "\\(past the block's last thread\\), which its mask 0xffffffff names, but no thread of the block runs there"));
  });

  it("gives 0 from a shuffle's source lane that takes no part (outside its mask, or past a partial last warp), as the GPU gives it", () => {
    // The CUDA samples' reduce7: the last warp sums the warps' totals under a ballot of its first
    // blockDim / 32 lanes, shuffling down by 16 and 8 all the same; and a full mask in a block of 40.
    const module = fl.compile(`
__global__ void last_warp(float* out, const float* in) {
  __shared__ float totals[32];
  float sum = in[threadIdx.x];
  const unsigned mask = __ballot_sync(0xffffffff, threadIdx.x < blockDim.x / warpSize);
  if (threadIdx.x % warpSize == 0) totals[threadIdx.x / warpSize] = sum;
  __syncthreads();
  if (threadIdx.x < blockDim.x / warpSize) {
    sum = totals[threadIdx.x];
    for (int offset = warpSize / 2; offset > 0; offset /= 2) sum += __shfl_down_sync(mask, sum, offset);
  }
  if (threadIdx.x == 0) out[0] = sum;
}
__global__ void warp_sums(const float* in, float* out) {
  float v = in[threadIdx.x];
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffff, v, offset);
  if ((threadIdx.x & 31) == 0) out[threadIdx.x >> 5] = v;
}
`, { device: dev() });
    for (const threads of [256, 512]) {
      const x = fl.tensor(range(threads).map((i) => i + 1), { device: dev() });
      const out = fl.full([1], NaN, { device: dev() });
      module.fn("last_warp").launch({ grid: 1, block: threads }, out, x);
      const warp = dev().props.warpSize;
      expect(out.toArray()[0], `${threads} threads`).to.equal(range(threads / warp).reduce((a, w) => a + w * warp + 1, 0));
    }
    const sums = fl.full([2], NaN, { device: dev() });
    module.fn("warp_sums").launch({ grid: 1, block: 40 }, fl.tensor(range(40).map((i) => i + 1), { device: dev() }), sums);
    if (dev().props.warpSize === 32) expect(Array.from(sums.toArray())).to.deep.equal([528, 292]);
  });

  it("reads the low 5 bits of a shuffle's lane offset and xor mask on a 32-lane warp, as NVIDIA's GPUs do (hip-tests' delta of width + 1)", () => {
    const module = fl.compile(`
__global__ void far_shuffles(int* out, int delta, int width) {
  const int v = 100 + threadIdx.x;
  out[3 * threadIdx.x] = __shfl_up_sync(0xffffffffu, v, delta, width);
  out[3 * threadIdx.x + 1] = __shfl_down_sync(0xffffffffu, v, delta, width);
  out[3 * threadIdx.x + 2] = __shfl_xor_sync(0xffffffffu, v, delta, width);
}`, { device: dev() });
    if (dev().props.warpSize !== 32) return;
    // PTX's shfl.sync: the offset's low 5 bits, then the lane's segment of `width` lanes bounds the source.
    const expected = (delta: number, width: number) => range(32).flatMap((lane) => {
      const d = delta & 31, start = lane & ~(width - 1), end = start + width, xor = lane ^ d;
      return [lane - d >= start ? 100 + lane - d : 100 + lane, lane + d < end ? 100 + lane + d : 100 + lane, xor < end ? 100 + xor : 100 + lane];
    });
    for (const [delta, width] of [[33, 32], [1, 32], [17, 16], [35, 8], [64, 32], [70, 4]]) {
      const out = fl.full([96], -1, { dtype: "i32", device: dev() });
      module.fn("far_shuffles").launch({ grid: 1, block: 32 }, out, delta, width);
      expect(Array.from(out.toArray()), `delta ${delta}, width ${width}`).to.deep.equal(expected(delta, width));
    }
  });

  it("draws cuRAND's XORWOW and Philox4_32_10 streams as the GPU does: the same bits, uniforms rounded alike, normals to the GPU's fast sine", () => {
    const module = fl.compile(`
#include <curand_kernel.h>
// A course's own declarations of cuRAND's functions (Yale CPSC 424's Monte Carlo) name the same functions.
__device__ float curand_uniform(curandState_t* state);
__device__ float curand_normal(curandStatePhilox4_32_10_t* state);
// Each thread's own subsequence, three draws in; the state kept in a tensor between launches, as samples keep it.
__global__ void init_states(curandState* states, unsigned long long seed, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) curand_init(seed, i, 3, &states[i]);
}
__global__ void xorwow_draws(curandState* states, unsigned* bits, float* uniforms, double* doubles, float* normals, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  curandState s = states[i];
  bits[2 * i] = curand(&s);
  bits[2 * i + 1] = curand(&s);
  uniforms[i] = curand_uniform(&s);
  doubles[i] = curand_uniform_double(&s);
  normals[2 * i] = curand_normal(&s);
  normals[2 * i + 1] = curand_normal(&s);
  skipahead(1000, &s);
  bits[2 * n + i] = curand(&s);
  states[i] = s;
}
__global__ void philox_draws(unsigned* bits, float* uniforms, float* normals, unsigned long long seed, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  curandStatePhilox4_32_10_t s;
  curand_init(seed, i, i % 7, &s);
  bits[5 * i] = curand(&s);
  const uint4 four = curand4(&s);
  bits[5 * i + 1] = four.x, bits[5 * i + 2] = four.y, bits[5 * i + 3] = four.z, bits[5 * i + 4] = four.w;
  const float4 u = curand_uniform4(&s);
  uniforms[4 * i] = u.x, uniforms[4 * i + 1] = u.y, uniforms[4 * i + 2] = u.z, uniforms[4 * i + 3] = u.w;
  const float2 z = curand_normal2(&s);
  normals[2 * i] = z.x, normals[2 * i + 1] = z.y;
}
`, { device: dev() });
    const n = 70;
    const seed = 0x1234abcd9876n;
    const states = fl.empty([n * 48], { dtype: "u8", device: dev() });
    module.fn("init_states").launch({ grid: 2, block: 64 }, states, seed, n);
    const bits = fl.full([3 * n], 7, { dtype: "u32", device: dev() });
    const uniforms = fl.full([n], NaN, { device: dev() });
    const doubles = fl.full([n], NaN, { dtype: "f64", device: dev() });
    const normals = fl.full([2 * n], NaN, { device: dev() });
    module.fn("xorwow_draws").launch({ grid: 3, block: 32 }, states, bits, uniforms, doubles, normals, n);
    const expected = { bits: [] as number[], later: [] as number[], uniforms: [] as number[], doubles: [] as number[], normals: [] as number[] };
    for (let i = 0; i < n; i++) {
      const g = new Xorwow(seed, i, 3);
      expected.bits.push(g.next(), g.next());
      expected.uniforms.push(uniformOf(g.next()));
      expected.doubles.push(uniformDoubleOf(g.next(), g.next()));
      expected.normals.push(...boxMuller(g.next(), g.next()));
      for (let k = 0; k < 1000; k++) g.next();
      expected.later.push(g.next());
    }
    expect(Array.from(bits.toArray())).to.deep.equal([...expected.bits, ...expected.later]);
    expect(Array.from(uniforms.toArray())).to.deep.equal(expected.uniforms);
    expect(Array.from(doubles.toArray())).to.deep.equal(expected.doubles);
    fl.assertClose(normals, expected.normals, { rtol: 1e-5, atol: 1e-5 });

    const philoxBits = fl.full([5 * n], 7, { dtype: "u32", device: dev() });
    const philoxUniforms = fl.full([4 * n], NaN, { device: dev() });
    const philoxNormals = fl.full([2 * n], NaN, { device: dev() });
    module.fn("philox_draws").launch({ grid: 1, block: 96 }, philoxBits, philoxUniforms, philoxNormals, seed, n);
    const philox = { bits: [] as number[], uniforms: [] as number[], normals: [] as number[] };
    for (let i = 0; i < n; i++) {
      const g = new Philox(seed, i, i % 7);
      for (let k = 0; k < 5; k++) philox.bits.push(g.next());
      for (let k = 0; k < 4; k++) philox.uniforms.push(uniformOf(g.next()));
      philox.normals.push(...boxMuller(g.next(), g.next()));
    }
    expect(Array.from(philoxBits.toArray())).to.deep.equal(philox.bits);
    expect(Array.from(philoxUniforms.toArray())).to.deep.equal(philox.uniforms);
    fl.assertClose(philoxNormals, philox.normals, { rtol: 1e-5, atol: 1e-5 });
  });

  it("draws cuRAND's MRG32k3a stream as the GPU does: the same bits and uniforms, normals to the GPU's fast sine; hipRAND's too", () => {
    const module = fl.compile(`
#include <curand_kernel.h>
#include <hiprand/hiprand_kernel.h>
__global__ void mrg_draws(unsigned long long seed, unsigned* bits, float* uniforms, double* doubles, float* normals, double* normal_doubles, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  curandStateMRG32k3a_t s;
  curand_init(i == n - 1 ? 0ull : seed, i, i % 5, &s);  // the last thread: seed 0, the published starting state
  bits[3 * i] = curand(&s);
  bits[3 * i + 1] = curand(&s);
  uniforms[i] = curand_uniform(&s);
  doubles[i] = curand_uniform_double(&s);
  normals[2 * i] = curand_normal(&s);
  normals[2 * i + 1] = curand_normal(&s);
  normal_doubles[i] = curand_normal_double(&s);
  skipahead(1000, &s);
  hiprandStateMRG32k3a_t& h = s;
  bits[3 * i + 2] = hiprand(&h);
}`, { device: dev() });
    const n = 40, seed = 0xfedcba9876543n;
    const bits = fl.full([3 * n], 7, { dtype: "u32", device: dev() });
    const uniforms = fl.full([n], NaN, { device: dev() }), doubles = fl.full([n], NaN, { dtype: "f64", device: dev() });
    const normals = fl.full([2 * n], NaN, { device: dev() }), normalDoubles = fl.full([n], NaN, { dtype: "f64", device: dev() });
    module.fn("mrg_draws").launch({ grid: 2, block: 32 }, seed, bits, uniforms, doubles, normals, normalDoubles, n);
    const expected = { bits: [] as number[], uniforms: [] as number[], doubles: [] as number[], normals: [] as number[], normalDoubles: [] as number[] };
    for (let i = 0; i < n; i++) {
      const g = new Mrg32k3a(i === n - 1 ? 0n : seed, i, i % 5);
      const first = g.next(), second = g.next();
      expected.uniforms.push(Math.fround(g.uniformDouble()));
      expected.doubles.push(g.uniformDouble());
      const x = Math.fround(g.uniformDouble()), y = Math.fround(Math.fround(g.uniformDouble()) * Math.fround(6.2831855));
      const s = Math.sqrt(-2 * Math.log(x));
      expected.normals.push(Math.sin(y) * s, Math.cos(y) * s);
      const u = g.uniformDouble(), v = g.uniformDouble() * 2;
      expected.normalDoubles.push(Math.sin(v * Math.PI) * Math.sqrt(-2 * Math.log(u)));
      for (let k = 0; k < 1000; k++) g.nextResidue();
      expected.bits.push(first, second, g.next());
    }
    expect(Array.from(bits.toArray())).to.deep.equal(expected.bits);
    expect(Array.from(uniforms.toArray())).to.deep.equal(expected.uniforms);
    expect(Array.from(doubles.toArray())).to.deep.equal(expected.doubles);
    fl.assertClose(normals, expected.normals, { rtol: 1e-5, atol: 1e-5 });
    fl.assertClose(normalDoubles, expected.normalDoubles, { rtol: 1e-12, atol: 1e-12 });
  });

  it("draws hipRAND's streams as hipRAND on NVIDIA's platform does: cuRAND's, under HIP's names (a hipified kernel)", () => {
    const module = fl.compile(`
#include <hip/hip_runtime.h>
#include <hiprand/hiprand_kernel.h>
__global__ void draws(unsigned* bits, float* uniforms, double* doubles, unsigned long long seed, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  hiprandState_t s;
  hiprand_init(seed, i, 5, &s);
  bits[2 * i] = hiprand(&s);
  uniforms[2 * i] = hiprand_uniform(&s);
  doubles[i] = hiprand_uniform_double(&s);
  hiprandStatePhilox4_32_10_t p;
  hiprand_init(seed, i, 0, &p);
  bits[2 * i + 1] = hiprand(&p);
  uniforms[2 * i + 1] = hiprand_uniform(&p);
}
`, { device: dev() });
    const n = 45;
    const seed = 987654321n;
    const bits = fl.full([2 * n], 7, { dtype: "u32", device: dev() });
    const uniforms = fl.full([2 * n], NaN, { device: dev() });
    const doubles = fl.full([n], NaN, { dtype: "f64", device: dev() });
    module.fn("draws").launch({ grid: 2, block: 32 }, bits, uniforms, doubles, seed, n);
    const expected = { bits: [] as number[], uniforms: [] as number[], doubles: [] as number[] };
    for (let i = 0; i < n; i++) {
      const x = new Xorwow(seed, i, 5), p = new Philox(seed, i, 0);
      expected.bits.push(x.next(), p.next());
      expected.uniforms.push(uniformOf(x.next()), uniformOf(p.next()));
      expected.doubles.push(uniformDoubleOf(x.next(), x.next()));
    }
    expect(Array.from(bits.toArray())).to.deep.equal(expected.bits);
    expect(Array.from(uniforms.toArray())).to.deep.equal(expected.uniforms);
    expect(Array.from(doubles.toArray())).to.deep.equal(expected.doubles);
  });

  it("says that asynchronous copies and cuRAND's other generators need an NVIDIA GPU, naming the header, its line and the first use (emulator)", () => {
    const cpu = fl.device("cpu");
    const uses: [string, string][] = [["cuda_pipeline.h", "__pipeline_commit();"], ["cooperative_groups/memcpy_async.h", "cooperative_groups::memcpy_async(block, x + 4, x, 16);"],
      ["cuda/pipeline", "auto pipe = cuda::make_pipeline();"], ["cuda/barrier", "__shared__ cuda::barrier<cuda::thread_scope_block> bar;"]];
    for (const [header, use] of uses) {
      const source = `#include <cuda_fp16.h>\n#include <${header}>\n__global__ void k(float* x) {\n  ${use}\n  x[0] = 1.f;\n}`;
      const first = /__pipeline_commit|memcpy_async|cuda::make_pipeline|cuda::barrier/.exec(use)![0];
      expectThrows(() => fl.compile(source, { device: cpu }),
        fl.ArgumentError, `fl.compile: source must be code the CPU emulator can run (it models no asynchronous copies: ` +
        `run this source on an NVIDIA GPU), got #include <${header}> on line 2, and ${first} on line 4`);
    }
    expectThrows(() => fl.compile(`#include <curand_kernel.h>\n__global__ void k(float* x, unsigned* directions) {\n  curandStateSobol32_t state;\n` +
      `  curand_init(directions, threadIdx.x, &state);\n  x[threadIdx.x] = curand_uniform(&state);\n}`, { device: cpu }), fl.ArgumentError,
      "fl.compile: source must be code the CPU emulator can run (its cuRAND has the XORWOW, Philox4_32_10 and MRG32k3a generators, not Sobol or " +
      "MTGP32, nor the Poisson and discrete distributions: run this source on an NVIDIA GPU, or pass random numbers in from TS), " +
      "got #include <curand_kernel.h> on line 1, and curandStateSobol32_t on line 3");
    expectThrows(() => fl.compile(`#include <hiprand/hiprand_kernel.h>\n__global__ void k(float* x) {\n  hiprandStateMtgp32_t* state;\n}`, { device: cpu }),
      fl.ArgumentError, /got #include <hiprand\/hiprand_kernel\.h> on line 1, and hiprandStateMtgp32_t on line 3$/);
    // Included and not used by device code (a project's common header includes it; a generator made on the
    // host): the CPU compiles without it.
    const hostGenerator = "#include <curand.h>\nvoid seed(unsigned long long s) { curandGenerator_t g; curandCreateGenerator(&g, CURAND_RNG_PSEUDO_DEFAULT); }\n" +
      "__global__ void k(float* x) { x[0] = 1.f; }";
    expect(fl.compile(hostGenerator, { device: cpu }).kernels).to.deep.equal(["k"]);
    for (const [header] of uses) {
      const module = fl.compile(`#include <cuda_fp16.h>\n#include <${header}>\n__global__ void k(float* x) { x[0] = 1.f; }`, { device: cpu });
      expect(module.kernels, header).to.deep.equal(["k"]);
    }
    // Under a branch the CPU takes (it compiles sm_90's device code), included and not used: compiled without it.
    const module = fl.compile(`#if defined(__CUDA_ARCH__)\n#include <cuda_pipeline.h>\n#endif\n__global__ void k(float* x) { x[0] = 1.f; }`, { device: cpu });
    expect(module.kernels).to.deep.equal(["k"]);
  });

  it("compiles texture kernels beside plain ones (the CUDA samples' boxFilter), runs the plain ones, and says why a texture kernel cannot be launched", async () => {
    const source = `
__global__ void box_x(float* out, cudaTextureObject_t tex, int w) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  if (x < w) out[x] = (tex1Dfetch<float>(tex, x - 1) + tex1Dfetch<float>(tex, x) + tex1Dfetch<float>(tex, x + 1)) / 3.0f;
}
__global__ void store(cudaSurfaceObject_t surf, float v) { surf2Dwrite(v, surf, 4 * threadIdx.x, 0); }
__global__ void box_x_global(float* out, const float* in, int w) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  if (x > 0 && x < w - 1) out[x] = (in[x - 1] + in[x] + in[x + 1]) / 3.0f;
}`;
    const module = fl.compile(source, { device: dev() });
    const out = fl.full([40], NaN, { device: dev() });
    module.fn("box_x_global").launch({ grid: 1, block: 64 }, out, fl.tensor(range(40).map((i) => 3 * i), { device: dev() }), 40);
    expect(Array.from(out.toArray())).to.deep.equal([NaN, ...range(38).map((i) => 3 * (i + 1)), NaN]);
    for (const [name, line, param] of [["box_x", "2", "cudaTextureObject_t tex"], ["store", "6", "cudaSurfaceObject_t surf"]]) {
      expectThrows(() => module.fn(name), fl.ArgumentError, new RegExp(`texture and surface objects are made by the GPU's runtime, which TS does not call: ` +
        `pass the array as a tensor, read with loads\\).* \\(line ${line}\\) is declared as "${param}"`));
    }
    // On the CPU a fetch reached otherwise (a texture object kept in a variable) stops the launch, naming its line.
    const cpu = fl.device("cpu");
    const held = fl.compile(`__device__ cudaTextureObject_t table;
__global__ void lookup(float* out) {
  out[threadIdx.x] = tex1Dfetch<float>(table, threadIdx.x);
}`, { device: cpu, name: "held" });
    held.fn("lookup").launch({ grid: 1, block: 4 }, fl.empty([4], { device: cpu }));
    await expectRejects(cpu.synchronize(), fl.DeviceError,
      /kernel 'lookup': a texture or surface access \(tex1Dfetch\), which needs a GPU's texture unit \(the CPU emulator has none\), was reached at held\.hip:3/);
  });

  it("runs the PTX that reads a special register or fences (a lane's id through mov, lane masks, membar) as its C++ on the CPU", () => {
    const source = `
__device__ __forceinline__ unsigned lane_id() { unsigned r; asm volatile("mov.u32 %0, %%laneid;" : "=r"(r)); return r; }
__device__ __forceinline__ unsigned warp_id() { unsigned w; asm("mov.u32 %0, %%warpid;" : "=r"(w)); return w; }
__device__ __forceinline__ unsigned lanemask(int which) {
  unsigned m;
  switch (which) {
    case 0: asm("mov.u32 %0, %%lanemask_lt;" : "=r"(m)); break;
    case 1: asm("mov.u32 %0, %%lanemask_le;" : "=r"(m)); break;
    case 2: asm("mov.u32 %0, %%lanemask_eq;" : "=r"(m)); break;
    case 3: asm("mov.u32 %0, %%lanemask_ge;" : "=r"(m)); break;
    default: asm("mov.u32 %0, %%lanemask_gt;" : "=r"(m)); break;
  }
  return m;
}
__global__ void registers(unsigned* out, long long* ticks) {
  const unsigned t = threadIdx.x;
  unsigned x, n, b;
  asm("mov.u32 %0, %%tid.x;" : "=r"(x));
  asm("mov.u32 %0, %%ntid.x;" : "=r"(n));
  asm("mov.u32 %0, %%ctaid.x;" : "=r"(b));
  out[8 * t] = lane_id();
  for (int k = 0; k < 5; k++) out[8 * t + 1 + k] = lanemask(k);
  out[8 * t + 6] = x + 1000 * n + 1000000 * b;
  asm volatile("membar.gl;" ::: "memory");
  asm volatile("bar.sync 0;");
  long long c0, c1;
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(c0));
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(c1));
  ticks[t] = c1 >= c0;
  (void)warp_id();
}`;
    const module = fl.compile(source, { device: dev() });
    const out = fl.full([8 * 64], 7, { dtype: "u32", device: dev() });
    const ticks = fl.zeros([64], { dtype: "i64", device: dev() });
    module.fn("registers").launch({ grid: 1, block: 64 }, out, ticks);
    const got = Array.from(out.toArray(), Number);
    const expected = range(64).flatMap((t) => {
      const lane = t % 32, below = lane === 0 ? 0 : (2 ** lane) - 1, upTo = (2 ** (lane + 1)) - 1;
      return [lane, below, upTo, 2 ** lane, 0xffffffff - below, 0xffffffff - upTo, t + 64000, 7];
    });
    expect(got).to.deep.equal(expected);
    expect(Array.from(ticks.toArray(), Number)).to.deep.equal(new Array(64).fill(1));
  });

  it("says that inline assembly needs the GPU it is written for, naming the line; on the CPU the module's other kernels run", async () => {
    const source = `
__global__ void lane_ids(int* out) {
  unsigned lane;
  asm volatile("prmt.b32 %0, %1, 0, 0x3210;" : "=r"(lane) : "r"(threadIdx.x % 32));
  out[threadIdx.x] = static_cast<int>(lane);
}
#define COMMIT_GROUP() asm volatile("cp.async.commit_group;\\n" ::)
__global__ void doubled(int* out, int n) {
  if (n < 0) COMMIT_GROUP();
  if (threadIdx.x < n) out[threadIdx.x] = 2 * threadIdx.x;
}
#define CP_ASYNC_CA(dst, src, bytes) asm volatile("cp.async.ca.shared.global [%0], [%1], %2;\\n" ::"r"(dst), "l"(src), "n"(bytes))
__global__ void staged(int* out, const int* in) {
  __shared__ int tile[32];
  const unsigned slot = static_cast<unsigned>(__cvta_generic_to_shared(&tile[threadIdx.x]));
  CP_ASYNC_CA(slot, in + threadIdx.x, 4);
  COMMIT_GROUP();
  out[threadIdx.x] = tile[threadIdx.x];
}
`;
    if (dev().backend === "cuda") {
      const out = fl.empty([64], { dtype: "i32", device: dev() });
      fl.compile(source, { device: dev() }).fn("lane_ids").launch({ grid: 1, block: 64 }, out);
      expect(Array.from(out.toArray())).to.deep.equal(range(64).map((i) => i % 32));
      return;
    }
    if (dev().backend === "cpu") {
      // The assembly stops the launch that reaches it, naming its line (one in a macro: the line using it).
      const module = fl.compile(source, { device: dev() });
      const out = fl.full([8], -1, { dtype: "i32", device: dev() });
      module.fn("doubled").launch({ grid: 1, block: 8 }, out, 5);
      expect(Array.from(out.toArray())).to.deep.equal([0, 2, 4, 6, 8, -1, -1, -1]);
      for (const [kernel, args, line] of [["lane_ids", [out], 4], ["doubled", [out, -1], 9], ["staged", [out, out], 16]] as const) {
        module.fn(kernel).launch({ grid: 1, block: 8 }, ...args);
        expectThrows(() => out.toArray(), fl.DeviceError, `cpu download: kernel '${kernel}': inline PTX assembly, which needs an NVIDIA GPU (the CPU emulator runs C++ only), was reached at lane_ids.hip:${line} (block (0,0,0), thread (0,0,0))`);
      }
      // A branch a header's macro picks (HIP's platform, which the emulator's hip_runtime.h defines by the warp's width).
      const platforms = `#include <hip/hip_runtime.h>
__global__ void copy(float* out, const float* in) {
  int i = threadIdx.x;
#ifdef __HIP_PLATFORM_AMD__
  asm volatile("v_mov_b32_e32 %0, %1" : "=v"(out[i]) : "v"(in[i]));
#elif defined(__HIP_PLATFORM_NVIDIA__)
  asm volatile("mov.f32 %0, %1;" : "=f"(out[i]) : "f"(in[i]));
#endif
}`;
      for (const [warpSize, isa, line] of [[32, "PTX assembly, which needs an NVIDIA GPU", 7], [64, "GCN assembly, which needs an AMD GPU", 5]] as const) {
        const cpu = fl.device("cpu", { warpSize });
        const copied = fl.full([4], 7, { device: cpu });
        fl.compile(platforms, { device: cpu }).fn("copy").launch({ grid: 1, block: 4 }, copied, fl.full([4], 3, { device: cpu }));
        expectThrows(() => copied.toArray(), fl.DeviceError, new RegExp(`kernel 'copy': inline ${isa} \\(the CPU emulator runs C\\+\\+ only\\), was reached at copy\\.hip:${line} `));
      }
    } else {
      expectThrows(() => fl.compile(source, { device: dev() }), fl.ArgumentError, /inline PTX assembly on line 4/);
    }
    // Under #ifdef __CUDA_ARCH__ with a C++ path beside it, the emulator takes the C++ path: it
    // compiles the source as nvcc's host pass reads it, and says so of what that leaves out.
    const portable = `
__global__ void lane_ids_portable(int* out) {
#ifdef __CUDA_ARCH__
  unsigned lane;
  asm volatile("prmt.b32 %0, %1, 0, 0x3210;" : "=r"(lane) : "r"(threadIdx.x % warpSize));
#else
  unsigned lane = threadIdx.x % warpSize;
#endif
  out[threadIdx.x] = static_cast<int>(lane);
}
#if __CUDA_ARCH__ >= 800
__global__ void newer(int* out) { out[0] = 1; }
#endif
`;
    const guarded = fl.compile(portable, { device: dev() });
    const out = fl.empty([40], { dtype: "i32", device: dev() });
    guarded.fn("lane_ids_portable").launch({ grid: 1, block: 40 }, out);
    expect(Array.from(out.toArray())).to.deep.equal(range(40).map((i) => i % dev().props.warpSize));
    if (dev().backend !== "cpu") return;
    expectThrows(() => guarded.fn("newer"), fl.ArgumentError, "module.fn: name must be one of the module's kernels (lane_ids_portable), got \"newer\", " +
      "defined only under #if __CUDA_ARCH__ >= 800 (line 11), a branch this device does not compile (the CPU emulator compiled this source as " +
      "nvcc's host pass reads it, with no __CUDA_ARCH__, because sm_90's has inline PTX assembly on line 5, which needs an NVIDIA GPU, which the CPU cannot run)");
    // sm_90's device code that the emulator cannot compile (thread block clusters), beside a path for older
    // GPUs: the emulator compiles that path, and says why of what it leaves out.
    const clustered = `
#include <cooperative_groups.h>
__global__ void ranks(int* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
#if __CUDA_ARCH__ >= 900
  out[i] = i + 1000 * static_cast<int>(cooperative_groups::this_cluster().block_rank());
#else
  out[i] = i;
#endif
}
#if __CUDA_ARCH__ >= 900
__global__ void hopper_only(int* out) { out[0] = 1; }
#endif
`;
    // Said once, as a warning: the kernels run, but not as a GPU's device pass would have them.
    const warnings: Error[] = [];
    const collect = (w: Error) => { if (w.name === "FuselabWarning") warnings.push(w); };
    process.on("warning", collect);
    const both = [fl.compile(clustered, { device: dev() }), await fl.compileAsync(clustered, { device: dev() })];
    await new Promise((resolve) => setImmediate(resolve));
    process.off("warning", collect);
    expect(warnings.map((w) => w.message)).to.have.length(1);
    expect(warnings[0].message).to.match(new RegExp("^fl\\.compile: the CPU emulator compiled this source as nvcc's host pass reads it, with no __CUDA_ARCH__, " +
      "because sm_90's does not compile here \\(.*this_cluster.*\\); so its kernels take their host-pass branches, not a GPU's \\(options\\.arch \"sm_90\" shows the device pass's errors\\)$"));
    for (const compiled of both) {
      const ranks = fl.full([50], -1, { dtype: "i32", device: dev() });
      compiled.fn("ranks").launch({ grid: 2, block: 32 }, ranks, 45);
      expect(Array.from(ranks.toArray())).to.deep.equal([...range(45), -1, -1, -1, -1, -1]);
      expectThrows(() => compiled.fn("hopper_only"), fl.ArgumentError, new RegExp("\\(line 12\\), a branch this device does not compile \\(the CPU emulator " +
        "compiled this source as nvcc's host pass reads it, with no __CUDA_ARCH__, because sm_90's does not compile here \\(.*this_cluster.*\\)\\)$"));
    }
    expectThrows(() => fl.compile(clustered, { device: dev(), arch: "sm_90" }), fl.DeviceError, /this_cluster/);
    // Asked for sm_90's device code, the emulator has no C++ path to take: the assembly stops the launch.
    fl.compile(portable, { device: dev(), arch: "sm_90" }).fn("lane_ids_portable").launch({ grid: 1, block: 40 }, out);
    expectThrows(() => out.toArray(), fl.DeviceError, /inline PTX assembly, which needs an NVIDIA GPU \(the CPU emulator runs C\+\+ only\), was reached at lane_ids_portable\.hip:5 /);
  });

  it("says that a GPU compiler's builtin (AMD's MFMA) needs that GPU, where a device has none", () => {
    if (dev().backend === "hip") return;  // an AMD GPU may have it
    const source = `
__global__ void sgemm_16x16x4(const float* a, const float* b, float* d) {
  float4 acc = make_float4(0, 0, 0, 0);
  acc = __builtin_amdgcn_mfma_f32_16x16x4f32(a[threadIdx.x], b[threadIdx.x], acc, 0, 0, 0);
  d[threadIdx.x] = acc.x;
}`;
    expectThrows(() => fl.compile(source, { device: dev() }), fl.DeviceError,
      /__builtin_amdgcn_mfma_f32_16x16x4f32 is an instruction of AMD's GPUs \(hipcc's builtin\): code that calls it runs only on an AMD GPU whose architecture has it \(on the CPU, a HIP source on a 64-lane device has AMD's cross-lane, dot-product, bit-field and math builtins, not the matrix cores'\)\. Call it under #if defined\(__gfx90a__\) \|\| defined\(__gfx942__\) \(the architectures that have it\), with a C\+\+ path in the #else branch for the other devices\./);
  });

  it("takes the math functions' mixed and integer arguments as the host <cmath> does, in double (fmax(0.0, x) of a float x, sqrt(n) of an int)", () => {
    const module = fl.compile(`
__global__ void mixed_math(float* out, const float* x, int n) {
  const int i = threadIdx.x;
  if (i < n) out[i] = fmax(0.0, x[i]) + fmin(x[i], 1.0) + pow(x[i], 2.0) + sqrt(i) + exp(i % 3) + atan2(x[i], 2);
}`, { device: dev() });
    const values = [-1.5, 0.25, 3, -0.125, 2.5];
    const out = fl.full([5], NaN, { device: dev() });
    module.fn("mixed_math").launch({ grid: 1, block: 8 }, out, fl.tensor(values, { device: dev() }), 5);
    fl.assertClose(out, values.map((v, i) => Math.max(0, v) + Math.min(v, 1) + v * v + Math.sqrt(i) + Math.exp(i % 3) + Math.atan2(v, 2)), { rtol: 1e-6, atol: 1e-6 });
  });

  it("leaves out host functions that launch with <<<...>>>, refuses a launch in device code, and shows a compile error without the headers' notes", () => {
    // A sample's main() as written: its launch, its runtime calls and its checks are host code.
    const sample = fl.compile(`
#include <cstdio>
#include <vector>
#include <thrust/device_vector.h>
#include <thrust/scan.h>
__global__ void fill(float* x, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) x[i] = 2.0f * i; }
static void report(const float* x) { printf("%f\\n", x[0]); }
int main() {
  const int n = 1000;
  std::vector<float> host(n);
  float* x;
  cudaMalloc(&x, n * sizeof(float));
  fill<<<(n + 255) / 256, 256>>>(x, n);
  cudaMemcpy(host.data(), x, n * sizeof(float), cudaMemcpyDeviceToHost);
  report(host.data());
  thrust::device_vector<float> sums(n);
  thrust::exclusive_scan(thrust::device_pointer_cast(x), thrust::device_pointer_cast(x) + n, sums.begin());
  return 0;
}
template <class T> void launch_fill(T* x, int n) { fill<<<1, n>>>(x, n); }
static void check_fill(int n) { std::vector<float> host(n); launch_fill<float>(host.data(), n); report(host.data()); }
template <class T> T through_thrust(T v) { thrust::device_vector<T> d(1, v); return v; }
#define LAUNCH_FILL(n) fill<<<((n) + 255) / 256, 256>>>(d_x, (n))
#define RUN(n) \
  LAUNCH_FILL(n)
float* d_x;
void run_fill(int n) { RUN(n); }
`, { device: dev(), name: "sample" });
    const x = fl.full([300], NaN, { device: dev() });
    sample.fn("fill").launch({ grid: 2, block: 256 }, x, 300);
    // What the CPU leaves out: the launching functions, those calling them, and thrust's users; the rest stays.
    const kept = withoutHostCode("void a() { k<<<1, 1>>>(); }\nint b() { a(); return 1; }\nint c() { return b(); }\nint d() { return 4; }\n" +
      "void e() { thrust::sort(p, p + 4); }\n", { functionsMatching: /<<<|\bthrust::/ });
    expect(kept.split("\n").map((line) => line.trim())).to.deep.equal(["", "", "", "int d() { return 4; }", "", ""]);
    // A launch through a macro (one calling another) marks the host function that calls it.
    expect(withoutHostCode("#define GO(n) k<<<1, n>>>()\n#define RUN(n) GO(n)\nvoid f() { RUN(4); }\nint g() { return 4; }\n",
      { functionsMatching: /<<</ }).split("\n").map((line) => line.trim())).to.deep.equal(["#define GO(n) k<<<1, n>>>()", "#define RUN(n) GO(n)", "", "int g() { return 4; }", ""]);
    expect(Array.from(x.toArray())).to.deep.equal(range(300).map((i) => 2 * i));
    expectThrows(() => fl.compile(`
__global__ void child(float* x) { x[0] = 1.0f; }
__global__ void parent(float* x) {
  if (threadIdx.x == 0) child<<<1, 1>>>(x);
}
`, { device: dev() }), fl.ArgumentError,
      "fl.compile: source must be free of launches in device code (dynamic parallelism, which fuselab does not make: launch from TypeScript, module.fn(name).launch(config, ...args)), got a launch with <<<...>>> in device code on line 4");

    const error = expectThrows(() => fl.compile(`
#include <cuda_fp16.h>
__global__ void mixed(float* out, const __half* in) {
  out[0] = out[0] + in[0];
}
`, { device: dev(), name: "mixed" }), fl.DeviceError, /mixed\.cu[:(]4/);
    // float + __half is ambiguous in CUDA too; the message names the line, not every candidate in the headers.
    expect(error.message.split("\n").length).to.be.lessThan(12);
    if (dev().backend === "cpu") expect(error.message).to.not.match(/half\.h/);
  });

  it("leaves out host functions that call the runtime, as nvcc compiles them for the host, and names a runtime call device code makes", () => {
    const module = fl.compile(`
__constant__ float c_taps[5];
void set_taps(const float* taps) {
  cudaMemcpyToSymbol(c_taps, taps, sizeof(c_taps));
}
__host__ static float* scratch(size_t n) { float* p = nullptr; cudaMalloc(&p, n * sizeof(float)); return p; }
__global__ void smooth(float* out, const float* in) { out[threadIdx.x] = c_taps[0] * in[threadIdx.x]; }
`, { device: dev(), name: "taps" });
    module.constant("c_taps").set([2, 0, 0, 0, 0]);
    const out = fl.full([8], NaN, { device: dev() });
    module.fn("smooth").launch({ grid: 1, block: 8 }, out, fl.tensor(range(8), { device: dev() }));
    expect(Array.from(out.toArray())).to.deep.equal(range(8).map((i) => 2 * i));
    const other = expectThrows(() => fl.compile("__global__ void k(float* x) { x[0] = undeclared_thing; }", { device: dev() }), fl.DeviceError, /undeclared_thing/);
    expect(other.message).to.not.include("host runtime");
    if (dev().backend !== "cpu") return;
    const error = expectThrows(() => fl.compile(`
__device__ float* grab(size_t n) {
  float* p = nullptr;
  cudaMalloc(&p, n);
  return p;
}
__global__ void k(float* x) { x[0] = *grab(4); }
`, { device: dev(), name: "grab" }), fl.DeviceError, /grab\.hip[:(]4/);
    expect(error.message).to.include("cudaMalloc is a call into the host runtime, which a source here does not make: " +
      "launches, memory and __constant__ data come from TypeScript (module.fn(name).launch, fl.tensor, module.constant(name).set). " +
      "Remove the host function that calls cudaMalloc.");
  });

  it("rounds every __half and __nv_bfloat16 operation as the GPU does: bit for bit", () => {
    const module = fl.compile(`
#include <cuda_fp16.h>
#include <cuda_bf16.h>
__global__ void half_ops(__half* out, const __half* a, const __half* b, const __half* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  __half x = a[i], y = b[i], z = c[i];
  out[8 * i + 0] = __hadd(x, y);
  out[8 * i + 1] = x * y;
  out[8 * i + 2] = __hfma(x, y, z);
  out[8 * i + 3] = __hsub(x, y);
  out[8 * i + 4] = __hmax(x, y);
  half2 pair = __halves2half2(x, y);
  half2 sums = __hfma2(pair, __half2half2(z), pair);
  out[8 * i + 5] = __low2half(sums);
  out[8 * i + 6] = __high2half(sums);
  __half acc = x;
  acc += y;
  acc *= z;
  out[8 * i + 7] = -acc;
}
`, { device: dev() });
    // Values whose sums and products need rounding, with ties, subnormals and overflow among them.
    const pool = [1, 1.0009765625, -2.5, 3.14, 1e-4, 6e-8, 65504, -0.333, 0.1, 2049, 1024.5, -7.75e-3, 0.0001221, 300.1];
    const a: number[] = [], b: number[] = [], c: number[] = [];
    for (const x of pool) for (const y of pool) { a.push(x); b.push(y); c.push(pool[(a.length * 7) % pool.length]); }
    const n = a.length;
    const [ta, tb, tc] = [a, b, c].map((v) => fl.tensor(v, { dtype: "f16", device: dev() }));
    const [ha, hb, hc] = [ta, tb, tc].map((t) => Array.from(t.toArray()));
    const out = fl.empty([8 * n], { dtype: "f16", device: dev() });
    module.fn("half_ops").launch({ grid: Math.ceil(n / 64), block: 64 }, out, ta, tb, tc, n);
    const expected = range(n).flatMap((i) => {
      const [x, y, z] = [ha[i], hb[i], hc[i]];
      const fma = (p: number, q: number, r: number) => roundF16Fma(p, q, r);
      const acc = roundF16(roundF16(x + y) * z);
      return [roundF16(x + y), roundF16(x * y), fma(x, y, z), roundF16(x - y), Math.max(x, y), fma(x, z, x), fma(y, z, y), -acc];
    });
    expect(f16Bits(out.toArray())).to.deep.equal(f16Bits(expected));

    // bf16: the same operations; 8 bits of precision, float's exponent range.
    const bfModule = fl.compile(`
#include <cuda_bf16.h>
__global__ void bf16_ops(__nv_bfloat16* out, const __nv_bfloat16* a, const __nv_bfloat16* b, const __nv_bfloat16* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  out[4 * i + 0] = __hadd(a[i], b[i]);
  out[4 * i + 1] = a[i] * b[i];
  out[4 * i + 2] = __hfma(a[i], b[i], c[i]);
  __nv_bfloat162 p = __hmul2(__halves2bfloat162(a[i], b[i]), __bfloat162bfloat162(c[i]));
  out[4 * i + 3] = __hsub(__low2bfloat16(p), __high2bfloat16(p));
}
`, { device: dev() });
    const [ba, bb, bc] = [a, b, c].map((v) => fl.tensor(v.map((x) => x * 1e30), { dtype: "bf16", device: dev() }));
    const [va, vb, vc] = [ba, bb, bc].map((t) => Array.from(t.toArray()));
    const bfOut = fl.empty([4 * n], { dtype: "bf16", device: dev() });
    bfModule.fn("bf16_ops").launch({ grid: Math.ceil(n / 64), block: 64 }, bfOut, ba, bb, bc, n);
    const bfExpected = range(n).flatMap((i) => {
      const [x, y, z] = [va[i], vb[i], vc[i]];
      return [roundBf16(x + y), roundBf16(x * y), roundBf16Fma(x, y, z), roundBf16(roundBf16(x * z) - roundBf16(y * z))];
    });
    expect(bf16Bits(bfOut.toArray())).to.deep.equal(bf16Bits(bfExpected));
  });
  it("fuses a 16-bit multiply into the add or subtract it goes into, rounding once, as ptxas does on sm_90", () => {
    const source = `
#include <cuda_fp16.h>
#include <cuda_bf16.h>
template <typename T> __device__ T positive(T x) { return x > T(0) ? x : T(0); }
template <typename H, typename H2> __global__ void multiply_add(H* out, const H* v, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const H a = v[4 * i], b = v[4 * i + 1], c = v[4 * i + 2], d = v[4 * i + 3];
  H* o = out + 15 * i;
  o[0] = a * b + c;
  o[1] = c - a * b;
  o[2] = a * b + c * d;
  o[3] = __hadd(__hmul(a, b), c);
  o[4] = __hsub(__hmul(a, b), c);
  o[5] = __hadd_rn(a * b, c);
  o[6] = __hadd(__hmul_rn(a, b), c);
  o[7] = -(a * b) + d;
  H acc = d;
  for (int k = 0; k < 4; ++k) acc += v[4 * ((i + k) % n)] * v[4 * ((i + k) % n) + 1];
  o[8] = acc;
  o[9] = H(float(a * b) + float(c));
  const H2 r = H2(a, c) * H2(b, d) + H2(c, a);
  o[10] = r.x;
  o[11] = r.y;
  o[12] = positive(a * b);
  o[13] = c > d ? a * b : c;
  o[14] = __shfl_sync(__activemask(), a * b, threadIdx.x % warpSize) + c;
}
template __global__ void multiply_add<__half, __half2>(__half*, const __half*, int);
template __global__ void multiply_add<__nv_bfloat16, __nv_bfloat162>(__nv_bfloat16*, const __nv_bfloat16*, int);
`;
    const n = 301;
    const values = range(4 * n).map((i) => (Math.sin(i * 12.9898) * 43758.5453 % 1) * 8);
    const run = (module: fl.Module, dtype: "f16" | "bf16", name: string) => {
      const v = fl.tensor(values, { dtype, device: module.device });
      const out = fl.full([15 * n], NaN, { dtype, device: module.device });
      module.fn(name).launch({ grid: Math.ceil(n / 64), block: 64 }, out, v, n);
      return { got: Array.from(out.toArray()), h: Array.from(v.toArray()) };
    };
    // a * b is exact in a double for both types; fma rounds a * b + c once, round once more.
    const expectedFor = (h: number[], round: (x: number) => number, fma: (x: number, y: number, z: number) => number, fused: boolean) => {
      const times = (x: number, y: number, z: number) => (fused ? fma(x, y, z) : round(round(x * y) + z));
      return range(n).flatMap((i) => {
        const [a, b, c, d] = h.slice(4 * i, 4 * i + 4);
        let acc = d;
        for (let k = 0; k < 4; ++k) acc = times(h[4 * ((i + k) % n)], h[4 * ((i + k) % n) + 1], acc);
        return [times(a, b, c), times(-a, b, c), times(a, b, round(c * d)), times(a, b, c), times(a, b, -c), round(round(a * b) + c),
          round(round(a * b) + c), times(-a, b, d), acc, round(Math.fround(round(a * b) + c)), times(a, b, c), times(c, d, a),
          Math.max(round(a * b), 0), c > d ? round(a * b) : c, round(round(a * b) + c)];
      });
    };
    const devices = dev().backend === "cpu" ? [dev(), fl.device("cpu", { check: true }), fl.device("cpu", { warpSize: 64 })] : [dev()];
    for (const device of devices) {
      const module = fl.compile(source, { device });
      const half = run(module, "f16", "multiply_add<__half, __half2>");
      expect(f16Bits(half.got)).to.deep.equal(f16Bits(expectedFor(half.h, roundF16, roundF16Fma, true)));
      const bf16 = run(module, "bf16", "multiply_add<__nv_bfloat16, __nv_bfloat162>");
      expect(bf16Bits(bf16.got)).to.deep.equal(bf16Bits(expectedFor(bf16.h, roundBf16, roundBf16Fma, true)));
    }
    if (dev().backend !== "cpu") return;
    // Before sm_90, cuda_bf16.hpp writes bf16's multiply and add as fma.rn forms, which are never fused.
    const sm80 = run(fl.compile(source, { device: dev(), arch: "sm_80" }), "bf16", "multiply_add<__nv_bfloat16, __nv_bfloat162>");
    expect(bf16Bits(sm80.got)).to.deep.equal(bf16Bits(expectedFor(sm80.h, roundBf16, roundBf16Fma, false)));
    // A template taking a product beside a __half deduces two types here, where the GPU's compiler deduces one: the error says why.
    expectThrows(() => fl.compile(`
#include <cuda_fp16.h>
template <typename T> __device__ T larger(T a, T b) { return a > b ? a : b; }
__global__ void k(__half* o, const __half* v) { o[0] = larger(v[0] * v[1], v[2]); }
`, { device: dev() }), fl.DeviceError, /keeps its factors until it is stored, .* deduces two types for T: round the product first, __half\(a \* b\), or name the type/);
  });
  it("lets a constexpr __host__ __device__ function object call the 16-bit intrinsics, as AMD's libraries write them", () => {
    const module = fl.compile(`
#include <hip/hip_runtime.h>
#include <hip/hip_fp16.h>
#define DEVICE_CONSTEXPR constexpr __device__ __host__
struct half2_sum { DEVICE_CONSTEXPR __half2 operator()(__half2 x, __half2 y) const { return __hadd2(x, y); } };
struct scaled_max {
  DEVICE_CONSTEXPR __half operator()(__half x, __half y) const { return __hmul(__hmax(x, y), __float2half(0.5f)); }
};
template <class Op, class T> __global__ void combine(T* out, const T* a, const T* b, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = Op{}(a[i], b[i]);
}
template __global__ void combine<half2_sum, __half2>(__half2*, const __half2*, const __half2*, int);
template __global__ void combine<scaled_max, __half>(__half*, const __half*, const __half*, int);
`, { device: dev() });
    const n = 37;
    const a = range(2 * n).map((i) => i * 0.37 - 9), b = range(2 * n).map((i) => 5 - i * 0.21);
    const [ta, tb] = [a, b].map((v) => fl.tensor(v, { dtype: "f16", device: dev() }));
    const [ha, hb] = [ta, tb].map((t) => Array.from(t.toArray()));
    const sums = fl.full([2 * n], NaN, { dtype: "f16", device: dev() });
    module.fn("combine<half2_sum, __half2>").launch({ grid: 2, block: 32 }, sums, ta, tb, n);
    expect(f16Bits(sums.toArray())).to.deep.equal(f16Bits(range(2 * n).map((i) => roundF16(ha[i] + hb[i]))));
    const maxima = fl.full([2 * n], NaN, { dtype: "f16", device: dev() });
    module.fn("combine<scaled_max, __half>").launch({ grid: 3, block: 32 }, maxima, ta, tb, 2 * n);
    expect(f16Bits(maxima.toArray())).to.deep.equal(f16Bits(range(2 * n).map((i) => Math.max(ha[i], hb[i]) / 2)));
  });
  it("gives complex numbers as cuComplex.h and hip/hip_complex.h write them, scaling quotients and magnitudes past float's range", () => {
    const module = fl.compile(`
#include <cuComplex.h>
#include <hip/hip_complex.h>
__global__ void complex_ops(cuFloatComplex* out, float* magnitudes, const cuFloatComplex* a, const hipFloatComplex* b, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  out[4 * i + 0] = cuCmulf(a[i], b[i]);
  out[4 * i + 1] = hipCdivf(a[i], b[i]);
  out[4 * i + 2] = cuCfmaf(a[i], cuConjf(b[i]), make_cuFloatComplex(1.f, -2.f));
  out[4 * i + 3] = hipCsubf(hipCaddf(a[i], b[i]), make_hipFloatComplex(hipCrealf(b[i]), 0.f));
  magnitudes[i] = cuCabsf(a[i]) + hipCsqabsf(make_hipFloatComplex(0.f, cuCimagf(b[i]) * 1e-20f));
}
__global__ void complex_double(cuDoubleComplex* out, const cuDoubleComplex* a, const hipDoubleComplex* b, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = hipCdiv(cuCmul(a[i], b[i]), cuComplexFloatToDouble(make_cuComplex(2.f, 0.5f)));
}
`, { device: dev() });
    // a or b near float's limit in some rows (never both): a naive quotient or magnitude would overflow there.
    const n = 37;
    const part = (i: number, k: number) => (Math.sin(i * 1.7 + k) * 4 + (k % 2 ? 0.5 : -0.25)) * (i % 5 === (k < 2 ? 0 : 1) ? 1e30 : 1);
    const a = range(2 * n).map((j) => part(Math.floor(j / 2), j % 2)), b = range(2 * n).map((j) => part(Math.floor(j / 2), 2 + (j % 2)));
    const [ta, tb] = [a, b].map((v) => fl.tensor(v, { device: dev(), shape: [n, 2] }));
    const [fa, fb] = [ta, tb].map((t) => Array.from(t.toArray()));
    const out = fl.full([4 * n, 2], NaN, { device: dev() }), magnitudes = fl.full([n], NaN, { device: dev() });
    module.fn("complex_ops").launch({ grid: 2, block: 32 }, out, magnitudes, ta, tb, n);
    const expected = range(n).flatMap((i) => {
      const [ar, ai, br, bi] = [fa[2 * i], fa[2 * i + 1], fb[2 * i], fb[2 * i + 1]];
      const norm = br * br + bi * bi;
      return [ar * br - ai * bi, ar * bi + ai * br, (ar * br + ai * bi) / norm, (ai * br - ar * bi) / norm,
        ar * br + ai * bi + 1, ai * br - ar * bi - 2, Math.fround(Math.fround(ar + br) - br), ai + bi];
    });
    fl.assertClose(out, expected, { rtol: 1e-5, atol: 1e-6 });
    fl.assertClose(magnitudes, range(n).map((i) => Math.hypot(fa[2 * i], fa[2 * i + 1]) + (fb[2 * i + 1] * 1e-20) ** 2), { rtol: 1e-6, atol: 0 });
    const [da, db] = [a, b].map((v) => fl.tensor(v.map((x) => x / 1e20), { device: dev(), dtype: "f64", shape: [n, 2] }));
    const doubles = fl.full([n, 2], NaN, { device: dev(), dtype: "f64" });
    module.fn("complex_double").launch({ grid: 2, block: 32 }, doubles, da, db, n);
    const [xa, xb] = [da, db].map((t) => Array.from(t.toArray()));
    fl.assertClose(doubles, range(n).flatMap((i) => {
      const [pr, pi] = [xa[2 * i] * xb[2 * i] - xa[2 * i + 1] * xb[2 * i + 1], xa[2 * i] * xb[2 * i + 1] + xa[2 * i + 1] * xb[2 * i]];
      return [(pr * 2 + pi * 0.5) / 4.25, (pi * 2 - pr * 0.5) / 4.25];
    }), { rtol: 1e-12, atol: 1e-30 });
  });
  it("takes clang's _Float16 in HIP sources, as pointers and as scalars, rounding each operation", () => {
    const module = fl.compile(`
#include <hip/hip_runtime.h>
__global__ void steps(_Float16* out, const _Float16* in, _Float16 step, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = (in[i] + step) + step;
}
`, { device: dev() });
    // Past 2048 an f16 step is 2: adding 1 twice to 2048 rounds back to 2048 each time.
    const values = [2048, 1, -3.5, 1000.25, 4095, 65504, 0.1];
    const input = fl.tensor(values, { dtype: "f16", device: dev() });
    const out = fl.full([values.length], NaN, { dtype: "f16", device: dev() });
    module.fn("steps").launch({ grid: 1, block: 32 }, out, input, 1, values.length);
    const stored = Array.from(input.toArray());
    expect(f16Bits(out.toArray())).to.deep.equal(f16Bits(stored.map((x) => roundF16(roundF16(x + 1) + 1))));
  });
  it("gives HIP's cooperative-groups reduce and scan headers, as hipify names CUDA's", () => {
    const module = fl.compile(`
#include <hip/hip_runtime.h>
#include <hip/hip_cooperative_groups.h>
#include <hip/cooperative_groups/hip_reduce.h>
#include <hip/cooperative_groups/hip_scan.h>
namespace cg = cooperative_groups;
__global__ void tile_scan(const unsigned* in, unsigned* inclusive, unsigned* exclusive, unsigned* sums, int n) {
  const cg::thread_block_tile<16> tile = cg::tiled_partition<16>(cg::this_thread_block());
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned v = i < n ? in[i] : 0u;
  const unsigned inc = cg::inclusive_scan(tile, v), exc = cg::exclusive_scan(tile, v);
  const unsigned total = cg::reduce(tile, v, cg::plus<unsigned>());
  if (i < n) { inclusive[i] = inc; exclusive[i] = exc; sums[i] = total; }
}
`, { device: dev() });
    const n = 45;
    const values = range(n).map((i) => (i * 7) % 11);
    const input = fl.tensor(values, { dtype: "u32", device: dev() });
    const [inclusive, exclusive, sums] = range(3).map(() => fl.full([n], 12345, { dtype: "u32", device: dev() }));
    module.fn("tile_scan").launch({ grid: 2, block: 32 }, input, inclusive, exclusive, sums, n);
    const before = (i: number) => range(i % 16).reduce((s, k) => s + values[i - (i % 16) + k], 0);
    expect(Array.from(inclusive.toArray())).to.deep.equal(range(n).map((i) => before(i) + values[i]));
    expect(Array.from(exclusive.toArray())).to.deep.equal(range(n).map(before));
    expect(Array.from(sums.toArray())).to.deep.equal(range(n).map((i) => range(16).reduce((s, k) => s + (values[i - (i % 16) + k] ?? 0), 0)));
  });
  it("gives device code std::array, std::tuple and std::complex (under NVRTC the toolkit's cuda::std ones)", () => {
    const module = fl.compile(`
#include <array>
#include <tuple>
#include <complex>
__device__ std::tuple<int, float> split(float x) { return std::make_tuple(static_cast<int>(x), x - static_cast<int>(x)); }
__global__ void parts(const float* in, float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const std::array<float, 3> weights = {0.5f, 2.0f, -1.0f};
  const std::tuple<int, float> whole_and_fraction = split(in[i]);
  const std::complex<float> z(in[i], 1.0f);
  const std::complex<float> squared = z * z;
  out[4 * i + 0] = weights[i % weights.size()] * in[i];
  out[4 * i + 1] = static_cast<float>(std::get<0>(whole_and_fraction));
  out[4 * i + 2] = squared.real();
  out[4 * i + 3] = squared.imag();
}
`, { device: dev() });
    const n = 37;
    const values = range(n).map((i) => i * 0.75 + 0.5);
    const out = fl.full([4 * n], NaN, { device: dev() });
    module.fn("parts").launch({ grid: 2, block: 32 }, fl.tensor(values, { device: dev() }), out, n);
    const weights = [0.5, 2, -1];
    expect(Array.from(out.toArray())).to.deep.equal(values.flatMap((x, i) => [weights[i % 3] * x, Math.trunc(x), Math.fround(x * x - 1), 2 * x]));
  });
  it("gives the std:: math functions without <cmath>, as nvcc's headers give every source (Megatron's softmax)", () => {
    const module = fl.compile(`
#include <cfloat>
#include <limits>
__global__ void exps(float* x, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = std::exp(x[i] - 1.0f) + std::sqrt(std::fabs(x[i])) + std::fmax(x[i], 0.0f);
}
`, { device: dev() });
    const values = range(37).map((i) => i / 4 - 3);
    const x = fl.tensor(values, { device: dev() });
    module.fn("exps").launch({ grid: 2, block: 32 }, x, values.length);
    fl.assertClose(x, values.map((v) => Math.exp(v - 1) + Math.sqrt(Math.abs(v)) + Math.max(v, 0)), { rtol: 2e-6, atol: 1e-6 });
  });
  it("predefines __CUDACC__ and __HIPCC__ as nvcc and hipcc do, so a source's GPU branch is the one compiled (#define HD __host__ __device__)", () => {
    const source = `
#ifdef __CUDACC__
#define HD __host__ __device__
#else
#define HD
#endif
HD inline float sq(float x) { return x * x; }
#ifdef __CUDACC__
__global__ void squares(float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = sq((float)i);
}
#endif`;
    const out = fl.full([37], NaN, { device: dev() });
    fl.compile(source, { device: dev() }).fn("squares").launch({ grid: 2, block: 32 }, out, 37);
    expect(Array.from(out.toArray())).to.deep.equal(range(37).map((i) => i * i));
    // A HIP source: __HIPCC__ on every platform; __CUDACC__ on NVIDIA's only (the CPU with 64-lane warps is AMD's).
    const hip = `#include <hip/hip_runtime.h>
#if defined(__HIPCC__)
__global__ void platform(int* out) {
#ifdef __CUDACC__
  out[0] = 1;
#else
  out[0] = 2;
#endif
}
#endif`;
    for (const [device, expected] of [[dev(), dev().kind === "gpu" && dev().backend === "hip" ? 2 : 1], [fl.device("cpu", { warpSize: 64 }), 2]] as const) {
      const flag = fl.full([1], -1, { dtype: "i32", device });
      fl.compile(hip, { device }).fn("platform").launch({ grid: 1, block: 1 }, flag);
      expect(Array.from(flag.toArray()), device.describe()).to.deep.equal([expected]);
    }
  });

  it("reads a CUDA source that names HIP's headers only in a branch for a HIP build of its own as CUDA, unless its defines take that branch", () => {
    // llama.cpp's common.cuh and ggml-common.h: `#if defined(GGML_USE_HIP)` and
    // `#elif defined(GGML_COMMON_DECL_HIP)` include HIP's headers; a CUDA build defines neither.
    const source = `
#if defined(USE_HIP)
#define DECL_HIP
#include <hip/hip_runtime.h>
#else
#define DECL_CUDA
#include <cuda_runtime.h>
#endif
#if defined(DECL_HIP)
#include <hip/hip_fp16.h>
#endif
__global__ void flags(int* out) {
#ifdef __HIPCC__
  out[0] = 1;
#endif
#ifdef CUDART_VERSION
  out[1] = CUDART_VERSION;
#endif
#ifdef __CUDACC__
  out[2] = 1;
#endif
}`;
    const devices = dev().backend === "cpu" ? [dev(), fl.device("cpu", { warpSize: 64 })] : [dev()];
    for (const device of devices) {
      const cuda = fl.zeros([3], { dtype: "i32", device });
      fl.compile(source, { device }).fn("flags").launch({ grid: 1, block: 1 }, cuda);
      expect(Array.from(cuda.toArray()), `CUDA build on ${device.describe()}`).to.deep.equal([0, cuda.toArray()[1], 1]);
      expect(cuda.toArray()[1], `CUDART_VERSION on ${device.describe()}`).to.be.at.least(12000);
      if (device.backend === "hip") continue;
      // The project's HIP build: hipcc's __HIPCC__, and on a 64-lane CPU device AMD's platform, without CUDA's macros.
      const hip = fl.zeros([3], { dtype: "i32", device });
      fl.compile(source, { device, defines: { USE_HIP: 1 } }).fn("flags").launch({ grid: 1, block: 1 }, hip);
      const amd = device.backend === "cpu" && device.options.warpSize === 64;
      expect(Array.from(hip.toArray()), `HIP build on ${device.describe()}`).to.deep.equal(amd ? [1, 0, 0] : [1, cuda.toArray()[1], 1]);
    }
  });

  it("holds a launch to the kernel's __launch_bounds__, as a GPU does (a literal, a macro, a template parameter, PyTorch's C10_LAUNCH_BOUNDS_1)", () => {
    const module = fl.compile(`
#include <ATen/ATen.h>
#define THREADS 128
__global__ void __launch_bounds__(256, 2) literal(int* out) { out[threadIdx.x] = 1; }
__launch_bounds__(THREADS * 2) __global__ void before(int* out) { out[threadIdx.x] = 2; }
template <int BLOCK> __global__ void __launch_bounds__(BLOCK) templated(int* out) { out[threadIdx.x] = BLOCK; }
__global__ void C10_LAUNCH_BOUNDS_1(THREADS) torch_style(int* out) { out[threadIdx.x] = 3; }
`, { device: dev() });
    const out = fl.zeros([512], { dtype: "i32", device: dev() });
    for (const [name, bound] of [["literal", 256], ["before", 256], ["templated<64>", 64], ["torch_style", 128]] as const) {
      const kernel = module.fn(name);
      kernel.launch({ grid: 1, block: bound }, out);
      expectThrows(() => kernel.launch({ grid: 1, block: [bound, 2] }, out), fl.ArgumentError,
        `kernel ${name}: block must be at most ${bound} threads in all (the kernel's __launch_bounds__, which a GPU holds a launch to), got [${bound}, 2, 1] (${2 * bound} threads)`);
    }
  });

  it("reads a source as CUDA's and HIP's headers define it: #ifdef __device__, HIP's version and feature macros, hipCUB's warp on 64 lanes", () => {
    const source = `#include <hip/hip_runtime.h>
#include <hip/driver_types.h>
#include <hipcub/hipcub.hpp>
#ifdef __device__
#define HELPER __host__ __device__
#else
#define HELPER
#endif
HELPER inline int twice(int x) { return 2 * x; }
__global__ void facts(int* out) {
  typedef hipcub::WarpReduce<int> Reduce;
  __shared__ typename Reduce::TempStorage storage;
  const int lanes = Reduce(storage).Sum(1);
  if (threadIdx.x == 0) {
    out[0] = twice(HIP_VERSION_MAJOR);
    out[1] = __HIP_ARCH_HAS_DOUBLES__ + __HIP_ARCH_HAS_WARP_SHUFFLE__;
    out[2] = lanes;
    out[3] = HIPCUB_DEVICE_WARP_THREADS;
  }
}`;
    const devices = dev().kind === "gpu" ? [dev()] : [dev(), fl.device("cpu", { warpSize: 64 })];
    for (const device of devices) {
      const out = fl.full([4], -1, { dtype: "i32", device });
      fl.compile(source, { device }).fn("facts").launch({ grid: 1, block: 64 }, out);
      const warp = device.props.warpSize;
      expect(Array.from(out.toArray()), device.describe()).to.deep.equal([12, 2, warp, warp]);
    }
    // On the CPU HIP's headers are the emulator's: one it lacks is refused, never the installed HIP's.
    expectThrows(() => fl.compile("#include <hip/hip_runtime.h>\n#include <rocprim/rocprim.hpp>\n__global__ void k(int* o) {}", { device: fl.device("cpu") }),
      fl.ArgumentError, /on the CPU, HIP's are the emulator's, got #include of "rocprim\/rocprim\.hpp", which is not among them, on line 2$/);
  });

  it("takes a source's own warpSize over the built-in one (const int warpSize = 32; a parameter named warpSize)", () => {
    const module = fl.compile(`
const int warpSize = 16;
__device__ int lane_of(int i, int warpSize) { return i % warpSize; }
__global__ void lanes(int* out) { out[threadIdx.x] = lane_of(threadIdx.x, 8) * 100 + threadIdx.x % warpSize; }
`, { device: dev() });
    const out = fl.full([40], -1, { dtype: "i32", device: dev() });
    module.fn("lanes").launch({ grid: 1, block: 40 }, out);
    expect(Array.from(out.toArray())).to.deep.equal(range(40).map((i) => (i % 8) * 100 + (i % 16)));
  });

  it("names a device function the source declares and does not define, as one file is compiled", () => {
    expectThrows(() => fl.compile(`__device__ int device_square(int x);
__global__ void squares(int* out) { out[threadIdx.x] = device_square(threadIdx.x); }`, { device: fl.device("cpu") }), fl.DeviceError,
      /device_square\(int\) is declared and called, and the source does not define it: a source is compiled as one file, as nvcc and hipcc compile one without -rdc/);
  });

  it("takes a struct whose members use its own type alias, a bool accessor, an accessor through a typedef, gpuAtomicMax/Min/Mul, cub's TempStorage sizes, a dim3 by value, and __shared__ extern", () => {
    const module = fl.compile(`
#include <cstdint>
#include <torch/extension.h>
#include <ATen/cuda/Atomic.cuh>
#include <ATen/cuda/CUDATensorMethods.cuh>
#include <thrust/random.h>
#include <cub/block/block_load.cuh>
#include <cub/block/block_store.cuh>
#include <cuda_fp16.h>
// causal-conv1d's parameters: strides in the struct's own index type.
struct ConvParams {
  using index_t = uint32_t;
  int n;
  index_t stride;
  float* __restrict__ out;
};
__global__ void strided_fill(ConvParams p) {
  const int i = threadIdx.x;
  if (i < p.n) p.out[i * p.stride] = 1.0f + i;
}
// fast-transformers' linear attention names its accessors through a typedef.
typedef torch::PackedTensorAccessor32<float, 2, torch::RestrictPtrTraits> rows_accessor;
using sums_accessor = torch::PackedTensorAccessor32<float, 1, torch::RestrictPtrTraits>;
__global__ void row_sums(const rows_accessor x, sums_accessor sums) {
  const int r = threadIdx.x;
  if (r >= x.size(0)) return;
  float sum = 0;
  for (int c = 0; c < x.size(1); c++) sum += x[r][c];
  sums[r] = sum;
}
// Masked maxima, minima and products of a row, as text-generation-inference's softmax takes them.
__global__ void masked_extremes(float* out, const torch::PackedTensorAccessor32<bool, 1, torch::RestrictPtrTraits> mask, const float* x, int n) {
  const int i = threadIdx.x;
  if (i < n && !mask[i]) {
    gpuAtomicMax(&out[0], x[i]);
    gpuAtomicMin(&out[1], x[i]);
    gpuAtomicMul(&out[2], x[i] < 0 ? -1.0f : 1.0f);
  }
}
__global__ void storage_sizes(int* out) {
  if (threadIdx.x != 0) return;
  out[0] = sizeof(cub::BlockLoad<float, 128, 4, cub::BLOCK_LOAD_WARP_TRANSPOSE>::TempStorage);
  out[1] = sizeof(cub::BlockLoad<__half, 128, 8, cub::BLOCK_LOAD_WARP_TRANSPOSE>::TempStorage);
  out[2] = sizeof(cub::BlockStore<float, 96, 4, cub::BLOCK_STORE_TRANSPOSE>::TempStorage);
  out[3] = sizeof(cub::BlockLoad<float, 128, 4, cub::BLOCK_LOAD_DIRECT>::TempStorage);
  out[4] = sizeof(cub::BlockStore<double, 256, 16, cub::BLOCK_STORE_WARP_TRANSPOSE_TIMESLICED>::TempStorage);
}
// A launch shape by value, its name hiding the built-in (text-generation-inference's softmax).
__global__ void shape_of(int* out, const dim3 blockDim) { out[threadIdx.x] = blockDim.x * 100 + blockDim.y * 10 + blockDim.z; }
// Udacity CS344's students write the specifiers in this order.
__global__ void reversed(float* out, const float* in, int n) {
  __shared__ extern float tile[];
  const int i = threadIdx.x;
  if (i < n) tile[i] = in[i];
  __syncthreads();
  if (i < n) out[i] = tile[n - 1 - i];
}
`, { device: dev() });
    const filled = fl.zeros([8], { device: dev() });
    module.fn("strided_fill").launch({ grid: 1, block: 8 }, { n: 4, stride: 2, out: filled });
    expect(Array.from(filled.toArray())).to.deep.equal([1, 0, 2, 0, 3, 0, 4, 0]);
    const n = 50, x = range(n).map((i) => ((i * 37) % 23) - 11), masked = range(n).map((i) => (i % 7 === 3 ? 1 : 0));
    const kept = x.filter((_, i) => !masked[i]);
    const extremes = fl.tensor([-1000, 1000, 1], { device: dev() });
    module.fn("masked_extremes").launch({ grid: 1, block: 64 }, extremes, fl.tensor(masked, { device: dev(), dtype: "u8" }), fl.tensor(x, { device: dev() }), n);
    expect(Array.from(extremes.toArray())).to.deep.equal([Math.max(...kept), Math.min(...kept), kept.filter((v) => v < 0).length % 2 ? -1 : 1]);
    const sizes = fl.full([5], -1, { device: dev(), dtype: "i32" });
    module.fn("storage_sizes").launch({ grid: 1, block: 32 }, sizes);
    expect(Array.from(sizes.toArray())).to.deep.equal([2048, 2112, 1552, 1, 4240]);
    const shape = fl.full([2], -1, { device: dev(), dtype: "i32" });
    module.fn("shape_of").launch({ grid: 1, block: 2 }, shape, { x: 4, y: 5, z: 6 });
    expect(Array.from(shape.toArray())).to.deep.equal([456, 456]);
    const reversedOut = fl.full([37], NaN, { device: dev() });
    module.fn("reversed").launch({ grid: 1, block: 64, sharedBytes: 37 * 4 }, reversedOut, fl.tensor(range(37), { device: dev() }), 37);
    expect(Array.from(reversedOut.toArray())).to.deep.equal(range(37).reverse());
    const rows = range(5).map((r) => range(7).map((c) => r * 10 + c)), sums = fl.full([5], NaN, { device: dev() });
    module.fn("row_sums").launch({ grid: 1, block: 8 }, fl.tensor(rows, { device: dev() }), sums);
    expect(Array.from(sums.toArray())).to.deep.equal(rows.map((row) => row.reduce((a, b) => a + b, 0)));
  });

  it("compiles a C++20 source with std: \"c++20\", and says so when one is compiled as C++17", () => {
    const source = `#include <cstdint>
#include <concepts>
#include <ranges>
#include <span>
#include <array>
struct Scale { int by; int plus; };
template <std::integral T> __device__ T scaled(T x, Scale s) { return x * s.by + s.plus; }
template <auto Sizes> __host__ __device__ constexpr int count() { return static_cast<int>(std::ranges::size(Sizes)); }
consteval int twice(int x) { return 2 * x; }
__global__ void modern(int* out, int n) {
  const std::span<int> all(out, n);
  int sum = 0;
  auto add = [&]<int I>() { sum += I; };
  add.template operator()<3>();
  add.template operator()<4>();
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) all[i] = scaled(i, Scale{.by = twice(5), .plus = sum}) + count<std::array{32, 64, 96}>() * 1000 + (__cplusplus >= 202002L ? 100000 : 0);
}`;
    const module = fl.compile(source, { device: dev(), std: "c++20" });
    const out = fl.full([70], -1, { dtype: "i32", device: dev() });
    module.fn("modern").launch({ grid: 3, block: 32 }, out, 70);
    expect(Array.from(out.toArray())).to.deep.equal(range(70).map((i) => 10 * i + 7 + 3000 + 100000));
    const error = expectThrows(() => fl.compile(source, { device: fl.device("cpu") }), fl.DeviceError, /compilation failed on cpu/);
    expect(error.message).to.match(/The source is written in C\+\+20: compile\(source, \{ std: "c\+\+20" \}\) compiles it as -std=c\+\+20 does\.$/);
    expectThrows(() => fl.compile(source, { device: dev(), std: "c++2b" as "c++20" }), fl.ArgumentError, /options\.std must be "c\+\+17" \(the default\) or "c\+\+20", got "c\+\+2b"/);
  });

  it("leaves out a class that names a host class (MindSpore's CudaCommon), and finds cuDNN's and cuSOLVER's headers for the host declarations beside kernels", () => {
    const header = `#pragma once
#include <memory>
#include <cudnn.h>
#include <cusolverDn.h>
namespace ms {
class DeviceInfo {
 public:
  static std::shared_ptr<DeviceInfo> GetInstance(unsigned id);
  int threads_num() const { return threads_; }
  cudnnHandle_t dnn() const { return dnn_; }
  cusolverDnHandle_t solver() const { return solver_; }
 private:
  int threads_;
  cudnnHandle_t dnn_;
  cusolverDnHandle_t solver_;
};
class Common {
 public:
  int threads_num() const { return DeviceInfo::GetInstance(id_)->threads_num(); }
  static Common& GetInstance();
 private:
  unsigned id_;
};
#define GET_THREADS ms::Common::GetInstance().threads_num()
}  // namespace ms
cudnnStatus_t make_handles(cudnnHandle_t* dnn, cusolverStatus_t* solved);
`;
    const module = fl.compile(`#include "common.h"
__global__ void scale(float* y, float a, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) y[i] *= a;
}
void launch(float* y, float a, int n) { scale<<<GET_THREADS / 256, 256>>>(y, a, n); }`, { device: dev(), headers: { "common.h": header } });
    const y = fl.tensor(range(300), { device: dev() });
    module.fn("scale").launch({ grid: 2, block: 64 }, y, 0.5, 300);
    expect(Array.from(y.toArray())).to.deep.equal(range(300).map((i) => i / 2));
  });

  it("takes a source's own typedefs of the fixed-width integer types, as nvcc does (darknet's uint64_t of unsigned long long)", () => {
    const module = fl.compile(`
#include "cuda_runtime.h"
#include <cstdio>
typedef unsigned long long int uint64_t;
typedef unsigned char uint8_t;
using int16_t = short;
__device__ uint64_t ones(uint64_t v) { return __popcll(v); }
__global__ void count_bits(uint64_t* bits, const uint8_t* extra, int16_t* small, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned long long* same = bits;  // the source's uint64_t is unsigned long long
  if (i < n) { same[i] = ones(bits[i]) + extra[i]; small[i] = (int16_t)(-i); }
}`, { device: dev(), name: "darknet_types" });
    const n = 5;
    const bits = fl.tensor(BigUint64Array.from([0n, 1n, 0xffn, 0xffffffffffffffffn, 0x8000000000000001n]), { dtype: "u64", device: dev() });
    const small = fl.full([n], 7, { dtype: "i16", device: dev() });
    module.fn("count_bits").launch({ grid: 1, block: 32 }, bits, fl.tensor(Uint8Array.from([1, 2, 3, 4, 5]), { dtype: "u8", device: dev() }), small, n);
    expect(Array.from(bits.toArray())).to.deep.equal([1n, 3n, 11n, 68n, 7n]);
    expect(Array.from(small.toArray())).to.deep.equal([0, -1, -2, -3, -4]);
    // One in a branch the build leaves out is not the source's (MIOpen's miopen_cstdint.hpp).
    const inactive = fl.compile(`
#ifdef OWN_RUNTIME_HEADERS
typedef unsigned long long uint64_t;
#else
#include <cstdint>
#endif
__global__ void widened(uint64_t* out, const uint8_t* in) { out[threadIdx.x] = (uint64_t)in[threadIdx.x] << 40; }`, { device: dev() });
    const wide = fl.full([3], 7n, { dtype: "u64", device: dev() });
    inactive.fn("widened").launch({ grid: 1, block: 3 }, wide, fl.tensor(Uint8Array.from([1, 2, 255]), { dtype: "u8", device: dev() }));
    expect(Array.from(wide.toArray())).to.deep.equal([1n << 40n, 2n << 40n, 255n << 40n]);
  });

  it("gives back the names cub 3 removed after any of cub's headers, not only the umbrella one (Kaldi's softmax passes cub::Max() to BlockReduce)", () => {
    const module = fl.compile(`
#include <cub/block/block_reduce.cuh>
#include <cub/warp/warp_reduce.cuh>
template <int THREADS>
__global__ void row_max_and_sum(float* out, const float* x, int cols) {
  typedef cub::BlockReduce<float, THREADS> BlockReduceT;
  __shared__ typename BlockReduceT::TempStorage scratch;
  __shared__ typename cub::WarpReduce<float>::TempStorage warp_scratch[THREADS / 32];
  float best = -1e30f, sum = 0.0f;
  for (int c = threadIdx.x; c < cols; c += THREADS) {
    best = CUB_MAX(best, x[blockIdx.x * cols + c]);
    sum += x[blockIdx.x * cols + c];
  }
  best = BlockReduceT(scratch).Reduce(best, cub::Max());
  cub::CTA_SYNC();
  sum = BlockReduceT(scratch).Reduce(sum, cub::Sum());
  const float lane_min = cub::WarpReduce<float>(warp_scratch[threadIdx.x / 32]).Reduce(float(cub::LaneId()), cub::Min());
  if (threadIdx.x == 0) { out[3 * blockIdx.x] = best; out[3 * blockIdx.x + 1] = sum; out[3 * blockIdx.x + 2] = lane_min; }
}
template __global__ void row_max_and_sum<128>(float*, const float*, int);`, { device: dev(), name: "cub_removed" });
    const rows = 3, cols = 301;
    const x = range(rows * cols).map((i) => ((i * 37) % 101) - 50);
    const out = fl.full([3 * rows], NaN, { device: dev() });
    module.fn("row_max_and_sum<128>").launch({ grid: rows, block: 128 }, out, fl.tensor(x, { device: dev() }), cols);
    const row = (r: number) => x.slice(r * cols, (r + 1) * cols);
    expect(Array.from(out.toArray())).to.deep.equal(range(rows).flatMap((r) => [Math.max(...row(r)), row(r).reduce((a, v) => a + v, 0), 0]));
  });

  it("gives std's type traits, move, forward, declval and numeric_limits with no #include, as nvcc's implicit <cuda_runtime.h> does (FasterTransformer's T5addResidual)", () => {
    const module = fl.compile(`
template <typename T, typename U>
__device__ T pass_on(U&& u) { return static_cast<T>(std::forward<U>(u)); }

template <typename T>
__global__ void clamp_range(T* out, const float* in, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  using Plain = std::remove_cv_t<std::remove_reference_t<const T&>>;
  static_assert(std::is_same<Plain, T>::value && std::is_floating_point_v<T>, "T is a float type");
  typedef typename std::conditional<std::is_same<T, double>::value, double, float>::type Wide;
  static_assert(std::is_same_v<decltype(std::declval<Wide>() * 2), Wide>, "");
  float v = in[i];
  if (std::is_same<T, double>::value && v > 100.0f) v = 100.0f;
  T low = std::numeric_limits<T>::lowest();
  Wide w = pass_on<Wide>(std::move(v));
  out[i] = w > low ? (T)w : low;
}`, { device: dev(), name: "implicit_std" });
    const x = [1.5, 250, -3, 99];
    for (const [type, dtype, expected] of [["double", "f64", [1.5, 100, -3, 99]], ["float", "f32", x]] as const) {
      const out = fl.full([4], NaN, { dtype, device: dev() });
      module.fn(`clamp_range<${type}>`).launch({ grid: 1, block: 32 }, out, fl.tensor(x, { device: dev() }), 4);
      expect(Array.from(out.toArray()), type).to.deep.equal(expected);
    }
    // cuda::std's <tuple> specializes std::tuple_size for structured bindings: the names above
    // must not make it ambiguous (a using-directive did, on the H200).
    const tuples = fl.compile(`
#include <cuda/std/tuple>
#include <cooperative_groups.h>
__global__ void split(int* out) {
  cuda::std::tuple<int, int> t(threadIdx.x, 7);
  auto [a, b] = t;
  out[threadIdx.x] = a * b + (int)std::is_same<decltype(a), int>::value;
}`, { device: dev(), name: "implicit_std_tuple" });
    const out = fl.full([32], -1, { dtype: "i32", device: dev() });
    tuples.fn("split").launch({ grid: 1, block: 32 }, out);
    expect(Array.from(out.toArray())).to.deep.equal(range(32).map((t) => t * 7 + 1));
  });

  it("defines CUDART_VERSION as nvcc's implicit <cuda_runtime.h> does (not on AMD's platform), and finds GLFW's and glad's headers, which declare nothing", () => {
    const source = (header: string) => `
#include <${header}>
#include <glad/glad.h>
#include <GLFW/glfw3.h>
__global__ void versions(int* out) {
#if defined(CUDART_VERSION)
  out[0] = CUDART_VERSION;
#else
  out[0] = -1;
#endif
}
#if CUDART_VERSION >= 9000
__global__ void modern_only(int* out) { out[0] = 7; }
#endif`;
    const run = (d: fl.Device, header: string, kernel: string) => {
      const out = fl.full([1], -2, { dtype: "i32", device: d });
      fl.compile(source(header), { device: d }).fn(kernel).launch({ grid: 1, block: 1 }, out);
      return out.toArray()[0];
    };
    expect(run(dev(), "cstdio", "versions")).to.be.at.least(12000);
    expect(run(dev(), "cstdio", "modern_only")).to.equal(7);
    if (dev().backend !== "cpu") return;
    expect(run(dev(), "cstdio", "versions")).to.equal(13000);
    // A HIP source on a 64-lane device is on AMD's platform, where HIP defines none.
    const amd = fl.device("cpu", { warpSize: 64 });
    expect(run(amd, "hip/hip_runtime.h", "versions")).to.equal(-1);
    expectThrows(() => fl.compile(source("hip/hip_runtime.h"), { device: amd }).fn("modern_only"), fl.ArgumentError, /defined only under #if CUDART_VERSION >= 9000/);
  });

  it("declares cuRAND's host types in <curand.h>, as a project's common header names them beside its kernels (CPU)", function () {
    // Under NVRTC, <curand.h> is the toolkit's own.
    if (dev().backend !== "cpu") this.skip();
    const module = fl.compile(`
#include <curand.h>
#include <curand_kernel.h>
const char* curandGetErrorString(curandStatus_t error);
static curandGenerator_t generator;  // host code's
__global__ void codes(int* out) {
  out[0] = CURAND_STATUS_SUCCESS + CURAND_STATUS_INTERNAL_ERROR + CURAND_RNG_PSEUDO_PHILOX4_32_10 + (sizeof(curandGenerator_t) == sizeof(void*));
}`, { device: dev() });
    const out = fl.full([1], -1, { dtype: "i32", device: dev() });
    module.fn("codes").launch({ grid: 1, block: 1 }, out);
    expect(Array.from(out.toArray())).to.deep.equal([0 + 999 + 161 + 1]);
  });

  it("takes thrust::tuple in host and device code, and finds thrust's binary_search and iterator headers for the host code beside the kernels", () => {
    const module = fl.compile(`
#include <thrust/tuple.h>
#include <thrust/binary_search.h>
#include <thrust/iterator/zip_iterator.h>
#include <thrust/iterator/counting_iterator.h>
// A comparator of index pairs, as a sparse matrix's assembly sorts them.
struct pair_less {
  __host__ __device__ bool operator()(const thrust::tuple<int, int>& a, const thrust::tuple<int, int>& b) const {
    return thrust::get<0>(a) < thrust::get<0>(b) || (thrust::get<0>(a) == thrust::get<0>(b) && thrust::get<1>(a) < thrust::get<1>(b));
  }
};
__global__ void ordered(int* out, const int* rows, const int* cols, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i + 1 >= n) return;
  out[i] = pair_less()(thrust::make_tuple(rows[i], cols[i]), thrust::make_tuple(rows[i + 1], cols[i + 1])) ? 1 : 0;
}`, { device: dev() });
    const rows = [0, 0, 1, 1, 1, 2, 1], cols = [3, 1, 0, 2, 5, 0, 4];
    const out = fl.full([rows.length - 1], -1, { dtype: "i32", device: dev() });
    module.fn("ordered").launch({ grid: 1, block: 32 }, out, fl.tensor(rows, { dtype: "i32", device: dev() }), fl.tensor(cols, { dtype: "i32", device: dev() }), rows.length);
    expect(Array.from(out.toArray())).to.deep.equal(range(rows.length - 1).map((i) =>
      (rows[i] < rows[i + 1] || (rows[i] === rows[i + 1] && cols[i] < cols[i + 1]) ? 1 : 0)));
  });

  it("takes thrust::complex and cuFFT's types in device code, and an enum template parameter written with its keyword", () => {
    const module = fl.compile(`
#include <thrust/complex.h>
#include <cufft.h>
enum norm_type { L1NORM, L2NORM };
// z = x * y + conj(x), on interleaved pairs.
__global__ void complex_fma(float* z, const float* x, const float* y, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const thrust::complex<float> a(x[2 * i], x[2 * i + 1]), b(y[2 * i], y[2 * i + 1]);
  const thrust::complex<float> r = a * b + thrust::conj(a);
  z[2 * i] = r.real();
  z[2 * i + 1] = r.imag();
}
__global__ void scale_spectrum(cufftComplex* data, float s, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] = make_cuComplex(cuCrealf(data[i]) * s, cuCimagf(data[i]) * s);
}
template <enum norm_type norm, typename T = double>
__global__ void norm_kernel(T* out, const T* u, const int n) {
  if (threadIdx.x != 0) return;
  T sum = 0;
  for (int i = 0; i < n; i++) sum += norm == L1NORM ? fabs(u[i]) : u[i] * u[i];
  *out = sum;
}`, { device: dev() });
    const n = 21;
    const x = range(2 * n).map((i) => (i % 7) - 3), y = range(2 * n).map((i) => (i % 5) - 2);
    const z = fl.full([2 * n], NaN, { device: dev() });
    module.fn("complex_fma").launch({ grid: 1, block: 32 }, z, fl.tensor(x, { device: dev() }), fl.tensor(y, { device: dev() }), n);
    expect(Array.from(z.toArray())).to.deep.equal(range(n).flatMap((i) => {
      const [ar, ai, br, bi] = [x[2 * i], x[2 * i + 1], y[2 * i], y[2 * i + 1]];
      return [ar * br - ai * bi + ar, ar * bi + ai * br - ai];
    }));
    const spectrum = fl.tensor(range(2 * n), { device: dev() });
    module.fn("scale_spectrum").launch({ grid: 1, block: 32 }, spectrum, 0.5, n);
    expect(Array.from(spectrum.toArray())).to.deep.equal(range(2 * n).map((i) => i / 2));
    const u = fl.tensor([1, -2, 3], { dtype: "f64", device: dev() });
    for (const [name, expected] of [["norm_kernel<L1NORM, double>", 6], ["norm_kernel<L2NORM>", 14]] as const) {
      const out = fl.full([1], NaN, { dtype: "f64", device: dev() });
      module.fn(name).launch({ grid: 1, block: 32 }, out, u, 3);
      expect(Array.from(out.toArray()), name).to.deep.equal([expected]);
    }
  });

  it("groups coalesced_threads() by the call each lane reaches, elects one with invoke_one, and gives libcu++'s bit and span, and __managed__ variables", () => {
    const module = fl.compile(`#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cuda/std/bit>
#include <cuda/std/span>
namespace cg = cooperative_groups;
__device__ __managed__ int elected;
__managed__ int last_seen;
__device__ float total(cuda::std::span<const float> s) { float t = 0; for (float v : s) t += v; return t; }
__global__ void arms(int* out, const float* x) {
  const int lane = threadIdx.x % 32;
  int sum;
  if (lane % 2 == 0) {
    cg::coalesced_group even = cg::coalesced_threads();
    sum = cg::reduce(even, lane, cg::plus<int>());
  } else {
    cg::coalesced_group odd = cg::coalesced_threads();
    sum = -cg::reduce(odd, lane, cg::plus<int>());
  }
  out[threadIdx.x] = sum;
  cg::thread_block_tile<8> tile = cg::tiled_partition<8>(cg::this_thread_block());
  const int leader = cg::invoke_one_broadcast(tile, [&] { return (int)threadIdx.x; });
  cg::invoke_one(tile, [&] { atomicAdd(&elected, 1); });
  out[64 + threadIdx.x] = leader;
  if (threadIdx.x == 0) {
    out[128] = cuda::std::bit_cast<int>(1.0f);
    out[129] = cuda::std::popcount(0xF0F0u) + 100 * cuda::std::countl_zero(1u) + 10000 * cuda::std::bit_width(9u);
    out[130] = (int)total(cuda::std::span<const float>(x, 4));
    last_seen = 7;
  }
}`, { device: dev() });
    const out = fl.full([131], -1, { dtype: "i32", device: dev() });
    module.constant("elected").set([0]);
    module.fn("arms").launch({ grid: 1, block: 64 }, out, fl.tensor([1, 2, 3, 4], { device: dev() }));
    const got = Array.from(out.toArray());
    // Even lanes of a warp sum 0 + 2 + ... + 30 = 240, odd lanes 1 + ... + 31 = 256, each in its own group.
    expect(got.slice(0, 64)).to.deep.equal(range(64).map((i) => (i % 2 === 0 ? 240 : -256)));
    expect(got.slice(64, 128)).to.deep.equal(range(64).map((i) => i - (i % 8)));
    expect(got.slice(128)).to.deep.equal([0x3f800000, 8 + 3100 + 40000, 10]);
    expect(Array.from(module.constant("elected").get())).to.deep.equal([8]);
    expect(Array.from(module.constant("last_seen").get())).to.deep.equal([7]);
  });

  it("gives libcu++'s atomics in C++17: cuda::atomic_ref with a thread scope, cuda::std::atomic_ref on a float, fetch_max", () => {
    const module = fl.compile(`#include <cuda/atomic>
__global__ void tally(int* counts, float* sums, int* largest, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  cuda::atomic_ref<int, cuda::thread_scope_device> count(counts[i % 4]);
  count.fetch_add(1, cuda::memory_order_relaxed);
  cuda::std::atomic_ref<float> sum(sums[0]);
  sum.fetch_add(0.5f);
  cuda::atomic_ref<int, cuda::thread_scope_block>(largest[0]).fetch_max(i);
}`, { device: dev() });
    const counts = fl.zeros([4], { dtype: "i32", device: dev() }), sums = fl.zeros([1], { device: dev() });
    const largest = fl.zeros([1], { dtype: "i32", device: dev() });
    module.fn("tally").launch({ grid: 5, block: 64 }, counts, sums, largest, 301);
    expect([...counts.toArray(), ...sums.toArray(), ...largest.toArray()]).to.deep.equal([76, 75, 75, 75, 150.5, 300]);
  });

  it("passes a tensor or a view for a cuda::std::span parameter, its pointer and size (NVIDIA's C++ tutorial's kernels)", () => {
    const module = fl.compile(`#include <cuda/std/span>
__global__ void scale(cuda::std::span<float> out, cuda::std::span<const float> in, float s) {
  const size_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < out.size() && i < in.size()) out[i] = in[i] * s;
}`, { device: dev() });
    const kernel = module.fn("scale");
    expect(kernel.signature()).to.equal("scale(cuda::std::span<float> out, cuda::std::span<const float> in, float s)");
    const out = fl.full([10], NaN, { device: dev() });
    kernel.launch({ grid: 1, block: 32 }, out.view(2, 5), fl.tensor(range(7).map((i) => i + 1), { device: dev() }), 2);
    expect(Array.from(out.toArray())).to.deep.equal([NaN, NaN, 2, 4, 6, 8, 10, NaN, NaN, NaN]);
    expectThrows(() => kernel.launch({ grid: 1, block: 32 }, 3, out, 2), fl.ArgumentError,
      "kernel scale: argument 0 (out) must be an f32 tensor or a view of one (cuda::std::span<float>), got 3");
  });

  it("passes any tensor for a pointer to a vector type, whose bytes it carries (ChatRWKV's halves through float2*, f16 weights through uint4*)", () => {
    const module = fl.compile(`#include <cuda_fp16.h>
__global__ void scale_halves(float2* r, unsigned int n) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i * 4 >= n) return;
  half2* pair = reinterpret_cast<half2*>(&r[i].x);
  pair[0] = __hmul2(pair[0], __float2half2_rn(2.0f));
  pair[1] = __hmul2(pair[1], __float2half2_rn(2.0f));
}
__global__ void copy16(uint4* out, const uint4* in, int n16) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n16) out[i] = in[i];
}`, { device: dev(), name: "vector_carriers" });
    const values = range(40).map((i) => i / 4 - 3);
    const r = fl.tensor(values, { dtype: "f16", device: dev() });
    module.fn("scale_halves").launch({ grid: 1, block: 32 }, r, 40);
    expect(Array.from(r.toArray())).to.deep.equal(values.map((v) => 2 * v));
    const copied = fl.full([40], NaN, { dtype: "f16", device: dev() });
    module.fn("copy16").launch({ grid: 1, block: 32 }, copied, r, 5);
    expect(Array.from(copied.toArray())).to.deep.equal(values.map((v) => 2 * v));
  });

  it("passes cuda::std::mdspan parameters: a tensor of their rank, or { data, extents, strides } for any layout (NVIDIA's C++ tutorial's heat grid)", () => {
    const module = fl.compile(`#include <cuda/std/mdspan>
namespace ach {
using temperature_grid_f = cuda::std::mdspan<float, cuda::std::dextents<int, 2>>;
__host__ __device__ float compute(int cell_id, temperature_grid_f temp) {
  int height = temp.extent(0), width = temp.extent(1);
  int column = cell_id % width, row = cell_id / width;
  if (row > 0 && column > 0 && row < height - 1 && column < width - 1) {
    float d2tdx2 = temp(row, column - 1) - temp(row, column) * 2 + temp(row, column + 1);
    float d2tdy2 = temp(row - 1, column) - temp(row, column) * 2 + temp(row + 1, column);
    return temp(row, column) + 0.2f * (d2tdx2 + d2tdy2);
  }
  return temp(row, column);
}
__global__ void grid_kernel(temperature_grid_f in, float* out) {
  int thread_index = blockDim.x * blockIdx.x + threadIdx.x, number_of_threads = blockDim.x * gridDim.x;
  for (int id = thread_index; id < in.size(); id += number_of_threads) out[id] = ach::compute(id, in);
}
}  // namespace ach
using rows_of_4 = cuda::std::extents<long, cuda::std::dynamic_extent, 4>;
__global__ void column_sums(cuda::std::mdspan<const float, rows_of_4, cuda::std::layout_stride> m, float* out) {
  const int c = threadIdx.x;
  if (c >= m.extent(1)) return;
  float s = 0;
  for (int r = 0; r < m.extent(0); r++) s += m(r, c);
  out[c] = s + 1000 * (m.stride(0) == 8 && m.static_extent(1) == 4);
}
__global__ void to_column_major(cuda::std::mdspan<float, cuda::std::dims<2, unsigned>, cuda::std::layout_left> dst, const float* src) {
  const unsigned i = threadIdx.x, j = threadIdx.y;
  if (i < dst.extent(0) && j < dst.extent(1)) dst(i, j) = src[i * dst.extent(1) + j];
}`, { device: dev(), name: "mdspan_params" });
    const grid = module.fn("ach::grid_kernel");
    expect(grid.signature()).to.equal("ach::grid_kernel(cuda::std::mdspan<float, cuda::std::dextents<int, 2>> in, float* out)");
    const [height, width] = [5, 7];
    const cells = range(height * width).map((i) => (i * 7) % 11);
    const at = (r: number, c: number) => cells[r * width + c];
    const expected = cells.map((v, i) => {
      const [r, c] = [Math.floor(i / width), i % width];
      if (r === 0 || c === 0 || r === height - 1 || c === width - 1) return v;
      return Math.fround(v + Math.fround(0.2) * Math.fround(Math.fround(at(r, c - 1) - v * 2 + at(r, c + 1)) + Math.fround(at(r - 1, c) - v * 2 + at(r + 1, c))));
    });
    const temperatures = fl.tensor(cells, { shape: [height, width], device: dev() });
    for (const given of [temperatures, { data: temperatures.view(0), extents: [height, width] }]) {
      const out = fl.full([height * width], NaN, { device: dev() });
      grid.launch({ grid: 2, block: 16 }, given, out);
      fl.assertClose(out, expected, { rtol: 1e-6, atol: 1e-6 });
    }
    const values = fl.tensor(range(24), { device: dev() });
    const sums = fl.full([4], NaN, { device: dev() });
    module.fn("column_sums").launch({ grid: 1, block: 32 }, { data: values, extents: [3, 4], strides: [8, 2] }, sums);
    expect(Array.from(sums.toArray())).to.deep.equal([1024, 1030, 1036, 1042]);
    const columns = fl.full([6], NaN, { device: dev() });
    module.fn("to_column_major").launch({ grid: 1, block: [2, 3] }, { data: columns, extents: [2, 3] }, fl.tensor(range(6).map((i) => i + 1), { device: dev() }));
    expect(Array.from(columns.toArray())).to.deep.equal([1, 4, 2, 5, 3, 6]);
    expectThrows(() => module.fn("column_sums").launch({ grid: 1, block: 32 }, { data: values, extents: [4, 4], strides: [8, 2] }, sums), fl.ArgumentError,
      "kernel column_sums: argument 0 (m).data must be 31 elements at least, which extents [4, 4] and strides [8, 2] reach, got 24");
    expectThrows(() => module.fn("column_sums").launch({ grid: 1, block: 32 }, { data: values, extents: [3, 5], strides: [8, 2] }, sums), fl.ArgumentError,
      "kernel column_sums: argument 0 (m).extents must be extent 1 of 4, as cuda::std::mdspan<const float, cuda::std::extents<long, cuda::std::dynamic_extent, 4>, cuda::std::layout_stride> fixes it, got [3, 5]");
    expectThrows(() => grid.launch({ grid: 1, block: 1 }, { data: temperatures.view(3), extents: [height, width] }, sums), fl.ArgumentError,
      "kernel ach::grid_kernel: argument 0 (in).data must be 35 elements at least, which extents [5, 7] reach, got 32");
    expectThrows(() => module.fn("to_column_major").launch({ grid: 1, block: 1 }, columns, columns), fl.ArgumentError, /must be \{ data, extents \}.*column-major/);
  });

  it("takes HIP's first launch API as its samples wrote it: a hipLaunchParm first parameter (0 from TS), hipLaunchKernel in main", () => {
    const module = fl.compile(`
#include "hip/hip_runtime.h"
__global__ void atomic_reduction_kernel(hipLaunchParm lp, int* in, int* out, int n) {
  const int idx = hipBlockIdx_x * hipBlockDim_x + hipThreadIdx_x;
  int sum = 0;
  for (int i = idx; i < n; i += hipBlockDim_x * hipGridDim_x) sum += in[i];
  atomicAdd(out, sum);
}
int main() {
  int *in = nullptr, *out = nullptr;
  hipLaunchKernel(HIP_KERNEL_NAME(atomic_reduction_kernel), dim3(4), dim3(64), 0, 0, in, out, 1000);
  return 0;
}
`, { device: dev() });
    const n = 1000;
    const input = fl.tensor(range(n).map((i) => (i % 13) - 6), { dtype: "i32", device: dev() });
    const out = fl.zeros([1], { dtype: "i32", device: dev() });
    module.fn("atomic_reduction_kernel").launch({ grid: 4, block: 64 }, 0, input, out, n);
    expect(Array.from(out.toArray())).to.deep.equal([range(n).reduce((s, i) => s + (i % 13) - 6, 0)]);
  });
});
