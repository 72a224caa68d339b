// <ATen/cuda/Atomic.cuh> for a PyTorch extension's kernels: PyTorch's atomic
// adds (gpuAtomicAdd, gpuAtomicAddNoReturn, and atomicAdd on c10::Half and
// c10::BFloat16), each returning the value it replaced.
#ifndef FUSELAB_TORCH_ATOMIC_CUH
#define FUSELAB_TORCH_ATOMIC_CUH
#include <fuselab_torch.h>
// As PyTorch's does: CUDA_VERSION for the extension's #if.
#include <cuda.h>

#if !defined(FL_TARGET_CPU) && (defined(__HIP__) || defined(__HIPCC_RTC__))
// A compare-and-swap of the 32-bit word holding the 16 bits, as HIP has no 16-bit atomics.
template <typename T>
__device__ __forceinline__ T fuselab_atomic_add_16(T* address, T value) {
  unsigned int* word = reinterpret_cast<unsigned int*>(reinterpret_cast<size_t>(address) & ~size_t(3));
  const unsigned int shift = (reinterpret_cast<size_t>(address) & 2u) * 8u;
  unsigned int old = *word, assumed;
  do {
    assumed = old;
    const T sum = T(static_cast<unsigned short>(assumed >> shift), T::from_bits()) + value;
    old = atomicCAS(word, assumed, (assumed & ~(0xffffu << shift)) | (static_cast<unsigned int>(sum.x) << shift));
  } while (assumed != old);
  return T(static_cast<unsigned short>(old >> shift), T::from_bits());
}
__device__ __forceinline__ c10::Half atomicAdd(c10::Half* address, c10::Half value) { return fuselab_atomic_add_16(address, value); }
__device__ __forceinline__ c10::BFloat16 atomicAdd(c10::BFloat16* address, c10::BFloat16 value) {
  return fuselab_atomic_add_16(address, value);
}
#else
__device__ __forceinline__ c10::Half atomicAdd(c10::Half* address, c10::Half value) {
  return atomicAdd(reinterpret_cast<__half*>(address), __ushort_as_half(value.x));
}
__device__ __forceinline__ c10::BFloat16 atomicAdd(c10::BFloat16* address, c10::BFloat16 value) {
  const __nv_bfloat16 old = atomicAdd(reinterpret_cast<__nv_bfloat16*>(address), __ushort_as_bfloat16(value.x));
  return c10::BFloat16(__bfloat16_as_ushort(old), c10::BFloat16::from_bits());
}
#endif

__device__ __forceinline__ float gpuAtomicAdd(float* address, float value) { return atomicAdd(address, value); }
__device__ __forceinline__ double gpuAtomicAdd(double* address, double value) { return atomicAdd(address, value); }
__device__ __forceinline__ int gpuAtomicAdd(int* address, int value) { return atomicAdd(address, value); }
__device__ __forceinline__ int64_t gpuAtomicAdd(int64_t* address, int64_t value) {
  return static_cast<int64_t>(atomicAdd(reinterpret_cast<unsigned long long*>(address), static_cast<unsigned long long>(value)));
}
__device__ __forceinline__ c10::Half gpuAtomicAdd(c10::Half* address, c10::Half value) { return atomicAdd(address, value); }
__device__ __forceinline__ c10::BFloat16 gpuAtomicAdd(c10::BFloat16* address, c10::BFloat16 value) { return atomicAdd(address, value); }
template <typename T, typename V>
__device__ __forceinline__ void gpuAtomicAddNoReturn(T* address, V value) {
  gpuAtomicAdd(address, static_cast<T>(value));
}

// PyTorch's gpuAtomicMax, gpuAtomicMin and gpuAtomicMul on 32- and 64-bit
// numbers: a compare-and-swap of the value's word, returning the value replaced.
template <int Bytes> struct fuselab_atomic_word;
template <> struct fuselab_atomic_word<4> { using type = unsigned int; };
template <> struct fuselab_atomic_word<8> { using type = unsigned long long; };
template <typename T, typename F>
__device__ __forceinline__ T fuselab_atomic_apply(T* address, F apply) {
  static_assert(sizeof(T) == 4 || sizeof(T) == 8, "gpuAtomicMax, gpuAtomicMin and gpuAtomicMul take 32- and 64-bit numbers");
  using Word = typename fuselab_atomic_word<sizeof(T)>::type;
  Word* word = reinterpret_cast<Word*>(address);
  Word old = *word, assumed;
  do {
    assumed = old;
    const T updated = apply(*reinterpret_cast<const T*>(&assumed));
    old = atomicCAS(word, assumed, *reinterpret_cast<const Word*>(&updated));
  } while (assumed != old);
  return *reinterpret_cast<const T*>(&old);
}
template <typename T>
__device__ __forceinline__ T gpuAtomicMax(T* address, T value) {
  return fuselab_atomic_apply(address, [value](T x) { return x < value ? value : x; });
}
template <typename T>
__device__ __forceinline__ T gpuAtomicMin(T* address, T value) {
  return fuselab_atomic_apply(address, [value](T x) { return value < x ? value : x; });
}
template <typename T>
__device__ __forceinline__ T gpuAtomicMul(T* address, T value) {
  return fuselab_atomic_apply(address, [value](T x) { return x * value; });
}
#endif
