// The one header every kernel source includes. Kernels are written in HIP's
// kernel language; the vendor header makes that language mean the same thing on
// each target:
//   vendors/hip.h   hipcc / hiprtc for AMD (plain HIP, a few names added)
//   vendors/cuda.h  nvcc / NVRTC for NVIDIA (HIP spellings mapped onto CUDA)
//   vendors/cpu.h   the host C++ compiler, for the CPU emulator
//
// What a kernel may use, on every target:
//   __global__ __device__ __host__ __forceinline__ __shared__ __restrict__
//   threadIdx blockIdx blockDim gridDim warpSize (x, y, z members)
//   __syncthreads()  __syncwarp()
//   __shfl(v, src, w) __shfl_xor(v, mask, w) __shfl_down(v, d, w) __shfl_up(v, d, w)
//     (w defaults to warpSize; v: int, unsigned, float, double, long long)
//   __any(p) __all(p) __ballot(p) (ballot returns unsigned long long)
//   atomicAdd/Sub/Exch/Min/Max/CAS/And/Or/Xor on int, unsigned; atomicAdd on float, double
//   math: expf logf exp2f log2f powf sqrtf rsqrtf tanhf erff sinf cosf fabsf fmaxf
//         fminf floorf ceilf roundf rintf fmaf copysignf __expf __logf __fdividef
//         and their double versions; min max (int, unsigned, float)
//   float2 float4 int2 int4 uint2 uint4 and make_float4 ... (vector types)
//   __half (f16) with __half2float __float2half; fl_bf16 (bf16) with
//     __bfloat162float __float2bfloat16; fl_half is __half
//   assert(e) (with <assert.h>) and __trap(): the launch fails with an error
//     naming the kernel, block, thread and line (on a GPU: a device-side assert,
//     after which the process must restart to use that GPU)
//   Run-time compiled sources (fl.compile) may use much more of CUDA's and
//   HIP's language: the _sync warp operations with lane masks, the 16-bit float
//   API, cooperative groups, cub's block and warp primitives, __constant__ ...
//   (docs/ARCHITECTURE.md, "The kernel language of compile()").
//   FL_DYNAMIC_SHARED(T, name)   declares the dynamic shared memory as T name[]
//   FL_KERNEL_EXPORT(name, fn)   exports a kernel (function or template
//                                instantiation) to the launch-by-name registry
//   FL_KERNEL_EXPORT_PARAMS(name, "out[n] x[n] n", fn)
//                                the same, naming each parameter and, for each
//                                pointer, the elements it may touch: an
//                                expression of integer literals and integer
//                                scalars with + * ( ). Every launch is refused
//                                whose buffer holds fewer (native/addon/extents.cc)
//   FL_EXPORT_DTYPES(op, "out[n] x[n] n", kernel, extra...)
//                                FL_KERNEL_EXPORT_PARAMS of kernel<T, extra...> as
//                                op_f32, op_f16 and op_bf16 (T = float, __half, fl_bf16)
//
// And here, for every target: fl::to_float / fl::from_float<T>, fl::vec<T, N>
// for 16-byte loads and stores, fl::load_floats / fl::store_floats (a chunk of
// W elements as floats), fl::aligned16 and fl::mul_rn (a product never fused into
// an fma).
#ifndef FUSELAB_FUSELAB_H
#define FUSELAB_FUSELAB_H

#if defined(FL_TARGET_CPU)
#include "vendors/cpu.h"
#elif defined(__HIP__) || defined(__HIPCC_RTC__)
#include "vendors/hip.h"
#elif defined(__CUDACC__) || defined(__CUDACC_RTC__)
#include "vendors/cuda.h"
#else
#error "fuselab.h: unknown target: compile with nvcc, hipcc, or define FL_TARGET_CPU"
#endif

// nvcc includes <cuda_runtime.h> in every .cu, which defines CUDART_VERSION, so a
// source's `#if CUDART_VERSION >= 9000` takes the branch a GPU takes; HIP on AMD's
// platform defines none.
#if !defined(CUDART_VERSION) && !defined(__HIP_PLATFORM_AMD__) && !defined(__HIP__) && !defined(__HIPCC_RTC__)
#if defined(__CUDACC_VER_MAJOR__)
#define CUDART_VERSION (__CUDACC_VER_MAJOR__ * 1000 + __CUDACC_VER_MINOR__ * 10)
#elif defined(FL_TARGET_CPU)
#define CUDART_VERSION 13000
#endif
#endif

#if !defined(FL_TARGET_CPU)
// One untyped array, cast per use: kernels of different element types can then
// share a translation unit (a typed extern __shared__ array may be declared once).
// `name` is a reference to an array, as the declaration it replaces names one
// (`reinterpret_cast<TempStorage&>(smem)` is the shared memory, not a pointer).
#define FL_DYNAMIC_SHARED(T, name)                                 \
  extern __shared__ __attribute__((aligned(16))) unsigned char fl_dynamic_shared_[]; \
  T (&name)[] = *reinterpret_cast<T (*)[]>(fl_dynamic_shared_)

#if defined(__CUDACC_RTC__) || defined(__HIPCC_RTC__)
// Run-time modules are searched by kernel name; nothing to register.
#define FL_KERNEL_EXPORT_PARAMS(name, params, ...)
#else
#include "registry.h"
// The kernel's host-side handle, which cudaLaunchKernel / hipLaunchKernel take.
#define FL_KERNEL_EXPORT_PARAMS(name, params, ...)                                               \
  FL_PARAMS_CHECK(name, params, __VA_ARGS__)                                                     \
  static ::fl::kernel_registrar fl_registrar_##name(#name, ::fl::signature_of(&__VA_ARGS__), params, \
                                                    reinterpret_cast<const void*>(&__VA_ARGS__), nullptr);
#endif
#endif

#define FL_KERNEL_EXPORT(name, ...) FL_KERNEL_EXPORT_PARAMS(name, "", __VA_ARGS__)

#if defined(__CUDACC_RTC__) || defined(__HIPCC_RTC__)
#define FL_EXPORT_DTYPES(op, params, kernel, ...)
#else
// The storage types of the built-in ops, each exported under the dtype's name.
// Extra template arguments (a flag) follow the storage type.
#define FL_EXPORT_DTYPES(op, params, kernel, ...)                                          \
  FL_KERNEL_EXPORT_PARAMS(op##_f32, params, kernel<float __VA_OPT__(, ) __VA_ARGS__>)    \
  FL_KERNEL_EXPORT_PARAMS(op##_f16, params, kernel<__half __VA_OPT__(, ) __VA_ARGS__>)   \
  FL_KERNEL_EXPORT_PARAMS(op##_bf16, params, kernel<fl_bf16 __VA_OPT__(, ) __VA_ARGS__>)
#endif

namespace fl {

// Lanes a warp: a compile-time constant where the target fixes it (FL_WARP_SIZE,
// from the vendor header), else warpSize (AMD's 32 or 64, the emulator's choice).
__device__ __forceinline__ int warp_size() {
#ifdef FL_WARP_SIZE
  return FL_WARP_SIZE;
#else
  return warpSize;
#endif
}

__device__ __forceinline__ float to_float(float x) { return x; }
__device__ __forceinline__ float to_float(__half x) { return __half2float(x); }
__device__ __forceinline__ float to_float(fl_bf16 x) { return __bfloat162float(x); }

template <typename T> __device__ __forceinline__ T from_float(float x);
template <> __device__ __forceinline__ float from_float<float>(float x) { return x; }
template <> __device__ __forceinline__ __half from_float<__half>(float x) { return __float2half(x); }
template <> __device__ __forceinline__ fl_bf16 from_float<fl_bf16>(float x) { return __float2bfloat16(x); }

// N elements of T loaded or stored as one aligned access (16 bytes: a 128-bit
// load on the GPU) when the address is a multiple of sizeof(vec).
template <typename T, int N>
struct alignas(sizeof(T) * N) vec {
  T v[N];
};

// Elements of T in one 16-byte access.
template <typename T> struct vec16 { static constexpr int n = 16 / sizeof(T); };

// Chunk `chunk` of W elements of p (W consecutive Ts, one access), as floats.
template <typename T, int W>
__device__ __forceinline__ void load_floats(const T* p, long long chunk, float (&f)[W]) {
  const vec<T, W> v = reinterpret_cast<const vec<T, W>*>(p)[chunk];
  for (int j = 0; j < W; ++j) f[j] = to_float(v.v[j]);
}

// f rounded to T, stored as chunk `chunk` of W elements of p.
template <typename T, int W>
__device__ __forceinline__ void store_floats(T* p, long long chunk, const float (&f)[W]) {
  vec<T, W> v;
  for (int j = 0; j < W; ++j) v.v[j] = from_float<T>(f[j]);
  reinterpret_cast<vec<T, W>*>(p)[chunk] = v;
}

__device__ __forceinline__ bool aligned16(const void* p) { return reinterpret_cast<size_t>(p) % 16 == 0; }

// a * b rounded to f32 by itself, never fused with an add that follows into one
// fma: nvcc keeps __fmul_rn apart, clang (HIP, and a clang host build) is told to
// here. For code that must round as a C reference does (quant.hip's encoder).
__device__ __forceinline__ float mul_rn(float a, float b) {
#if defined(__clang__) && !defined(__CUDACC__)
#pragma clang fp contract(off)
#endif
  return __fmul_rn(a, b);
}

}  // namespace fl

#endif
