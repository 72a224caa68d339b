// HIP's kernel language on NVIDIA (nvcc, NVRTC): only the spellings the kernels
// use that differ from CUDA's. Warp operations act on the full warp, as HIP's do.
#ifndef FUSELAB_VENDORS_CUDA_H
#define FUSELAB_VENDORS_CUDA_H

// HIP's switch for its half operators (PyTorch's ROCm builds pass it) under the name
// CUDA's headers read, for a HIP source on NVIDIA: such a source defines its own. First,
// as cuda/std's headers include <cuda_fp16.h>.
#if defined(__HIP_NO_HALF_OPERATORS__) && !defined(__CUDA_NO_HALF_OPERATORS__)
#define __CUDA_NO_HALF_OPERATORS__
#define __CUDA_NO_HALF2_OPERATORS__
#endif

#if !defined(__CUDACC_RTC__)
#include <cuda_runtime.h>
#else
// What nvcc's implicit cuda_runtime.h gives a .cu file, and the emulator's
// prelude gives too: the fixed-width integers (global under NVRTC) and the
// float constants of <math.h> (NVRTC has no __builtin_huge_valf).
#include <cuda/std/cstdint>
#include <cuda/std/cstddef>
#include <cuda/std/limits>
// std::size_t and std::ptrdiff_t, which every C++ header of the host's declares, so that
// nvcc gives them to every .cu file through its implicit cuda_runtime.h.
namespace std {
using ::cuda::std::ptrdiff_t;
using ::cuda::std::size_t;
}  // namespace std
// INT_MIN, INT_MAX ...: nvcc's cuda_runtime.h brings <limits.h> to every .cu file.
#include <cuda/std/climits>
#ifndef INFINITY
#define INFINITY (::cuda::std::numeric_limits<float>::infinity())
#endif
#ifndef NAN
#define NAN (::cuda::std::numeric_limits<float>::quiet_NaN())
#endif
#ifndef HUGE_VALF
#define HUGE_VALF INFINITY
#endif
// glibc's float classifications, which nvcc's host <math.h> brings a .cu file and
// sources call in device code (candle's isnanf).
__device__ __forceinline__ int isnanf(float x) { return x != x; }
__device__ __forceinline__ int isinff(float x) { return x == INFINITY ? 1 : x == -INFINITY ? -1 : 0; }
__device__ __forceinline__ int finitef(float x) { return x - x == 0.0f; }
#ifndef HUGE_VAL
#define HUGE_VAL (::cuda::std::numeric_limits<double>::infinity())
#endif
#include <fuselab_rtc_math_constants.h>
// GNU's __extension__, which nvcc's front end takes and NVRTC's does not (llama.cpp's
// ggml-common.h marks its anonymous unions with it): it only quiets pedantic warnings.
#define __extension__
// GCC's and clang's __builtin_memcpy and __builtin_memset, which nvcc takes in device code
// and NVRTC does not (MIOpen's hip_atomic.hpp type-puns with them): the device's memcpy and memset.
#define __builtin_memcpy memcpy
#define __builtin_memset memset
// nvcc's hint __assume (CUDA 11.2), which NVRTC does not declare: its __builtin_assume.
#define __assume(condition) __builtin_assume(condition)
#include <fuselab_rtc_math_promotions.h>
#include <fuselab_rtc_std_math.h>
#include <fuselab_rtc_glibc_types.h>
#endif
#include <cuda_fp16.h>
#include <cuda_bf16.h>

typedef __half fl_half;
typedef __nv_bfloat16 fl_bf16;
// HIP's bf16 names, as every target's kernel language has them: a ROCm
// extension names __hip_bfloat162 beside <cuda_bf16.h>, which hipify rewrites.
typedef __nv_bfloat16 __hip_bfloat16;
typedef __nv_bfloat162 __hip_bfloat162;
typedef __nv_bfloat16 hip_bfloat16;

#define FL_FULL_MASK 0xffffffffu
// NVIDIA's warps are 32 lanes on every GPU, but warpSize is read at run time: a
// constant lets loops over a warp's lanes unroll and divisions by it shift.
#define FL_WARP_SIZE 32

template <typename T> __device__ __forceinline__ T fl_shfl(T v, int src, int width = warpSize) {
  return __shfl_sync(FL_FULL_MASK, v, src, width);
}
template <typename T> __device__ __forceinline__ T fl_shfl_xor(T v, int mask, int width = warpSize) {
  return __shfl_xor_sync(FL_FULL_MASK, v, mask, width);
}
template <typename T> __device__ __forceinline__ T fl_shfl_down(T v, unsigned delta, int width = warpSize) {
  return __shfl_down_sync(FL_FULL_MASK, v, delta, width);
}
template <typename T> __device__ __forceinline__ T fl_shfl_up(T v, unsigned delta, int width = warpSize) {
  return __shfl_up_sync(FL_FULL_MASK, v, delta, width);
}
__device__ __forceinline__ int fl_any(int p) { return __any_sync(FL_FULL_MASK, p); }
__device__ __forceinline__ int fl_all(int p) { return __all_sync(FL_FULL_MASK, p); }
// HIP's ballot is 64 bits wide (wavefronts of 64); on NVIDIA the top half is zero.
__device__ __forceinline__ unsigned long long fl_ballot(int p) { return __ballot_sync(FL_FULL_MASK, p); }

// The sum of the products of a's and b's four bytes, plus c (one instruction).
__device__ __forceinline__ unsigned fl_dot4(unsigned a, unsigned b, unsigned c) { return __dp4a(a, b, c); }

// Renames rather than function-like macros: the toolkit's C++ library has its
// own names __any and __shfl (a struct with a constructor __any(...)), which a
// rename leaves consistent and a function-like macro would break.
#define __shfl fl_shfl
#define __shfl_xor fl_shfl_xor
#define __shfl_down fl_shfl_down
#define __shfl_up fl_shfl_up
#define __any fl_any
#define __all fl_all
#define __ballot fl_ballot

#if defined(__CUDACC_RTC__)
// std's type traits, std::declval and std::numeric_limits, which nvcc's implicit
// cuda_runtime.h brings every .cu file through the host's headers (FasterTransformer's
// T5addResidual names std::is_same with no #include); NVRTC's built-in header has
// std::move and std::forward, which a using-directive would make ambiguous beside
// cuda::std's after a source's `using namespace std;`: declared one by one. After the
// renames above, so that cuda::std's headers included here and by the source all read
// its __all as fl_all (one included before them and one after would disagree).
#include <cuda/std/type_traits>
#include <cuda/std/utility>
namespace std {
using ::cuda::std::add_const; using ::cuda::std::add_const_t; using ::cuda::std::add_cv;
using ::cuda::std::add_cv_t; using ::cuda::std::add_lvalue_reference;
using ::cuda::std::add_lvalue_reference_t; using ::cuda::std::add_pointer; using ::cuda::std::add_pointer_t;
using ::cuda::std::add_rvalue_reference; using ::cuda::std::add_rvalue_reference_t;
using ::cuda::std::add_volatile; using ::cuda::std::add_volatile_t; using ::cuda::std::alignment_of;
using ::cuda::std::alignment_of_v; using ::cuda::std::bool_constant; using ::cuda::std::common_type;
using ::cuda::std::common_type_t; using ::cuda::std::conditional; using ::cuda::std::conditional_t;
using ::cuda::std::conjunction; using ::cuda::std::conjunction_v; using ::cuda::std::decay;
using ::cuda::std::decay_t; using ::cuda::std::declval; using ::cuda::std::disjunction;
using ::cuda::std::disjunction_v; using ::cuda::std::enable_if; using ::cuda::std::enable_if_t;
using ::cuda::std::extent; using ::cuda::std::extent_v; using ::cuda::std::false_type;
using ::cuda::std::has_unique_object_representations;
using ::cuda::std::has_unique_object_representations_v; using ::cuda::std::has_virtual_destructor;
using ::cuda::std::has_virtual_destructor_v; using ::cuda::std::index_sequence;
using ::cuda::std::integer_sequence; using ::cuda::std::integral_constant; using ::cuda::std::invoke_result;
using ::cuda::std::invoke_result_t; using ::cuda::std::is_abstract; using ::cuda::std::is_abstract_v;
using ::cuda::std::is_aggregate; using ::cuda::std::is_aggregate_v; using ::cuda::std::is_arithmetic;
using ::cuda::std::is_arithmetic_v; using ::cuda::std::is_array; using ::cuda::std::is_array_v;
using ::cuda::std::is_assignable; using ::cuda::std::is_assignable_v; using ::cuda::std::is_base_of;
using ::cuda::std::is_base_of_v; using ::cuda::std::is_bounded_array; using ::cuda::std::is_bounded_array_v;
using ::cuda::std::is_class; using ::cuda::std::is_class_v; using ::cuda::std::is_compound;
using ::cuda::std::is_compound_v; using ::cuda::std::is_const; using ::cuda::std::is_const_v;
using ::cuda::std::is_constructible; using ::cuda::std::is_constructible_v; using ::cuda::std::is_convertible;
using ::cuda::std::is_convertible_v; using ::cuda::std::is_copy_assignable;
using ::cuda::std::is_copy_assignable_v; using ::cuda::std::is_copy_constructible;
using ::cuda::std::is_copy_constructible_v; using ::cuda::std::is_default_constructible;
using ::cuda::std::is_default_constructible_v; using ::cuda::std::is_destructible;
using ::cuda::std::is_destructible_v; using ::cuda::std::is_empty; using ::cuda::std::is_empty_v;
using ::cuda::std::is_enum; using ::cuda::std::is_enum_v; using ::cuda::std::is_final;
using ::cuda::std::is_final_v; using ::cuda::std::is_floating_point; using ::cuda::std::is_floating_point_v;
using ::cuda::std::is_function; using ::cuda::std::is_function_v; using ::cuda::std::is_fundamental;
using ::cuda::std::is_fundamental_v; using ::cuda::std::is_integral; using ::cuda::std::is_integral_v;
using ::cuda::std::is_invocable; using ::cuda::std::is_invocable_r; using ::cuda::std::is_invocable_r_v;
using ::cuda::std::is_invocable_v; using ::cuda::std::is_lvalue_reference;
using ::cuda::std::is_lvalue_reference_v; using ::cuda::std::is_member_function_pointer;
using ::cuda::std::is_member_function_pointer_v; using ::cuda::std::is_member_object_pointer;
using ::cuda::std::is_member_object_pointer_v; using ::cuda::std::is_member_pointer;
using ::cuda::std::is_member_pointer_v; using ::cuda::std::is_move_assignable;
using ::cuda::std::is_move_assignable_v; using ::cuda::std::is_move_constructible;
using ::cuda::std::is_move_constructible_v; using ::cuda::std::is_nothrow_assignable;
using ::cuda::std::is_nothrow_assignable_v; using ::cuda::std::is_nothrow_constructible;
using ::cuda::std::is_nothrow_constructible_v; using ::cuda::std::is_nothrow_copy_assignable;
using ::cuda::std::is_nothrow_copy_assignable_v; using ::cuda::std::is_nothrow_copy_constructible;
using ::cuda::std::is_nothrow_copy_constructible_v; using ::cuda::std::is_nothrow_default_constructible;
using ::cuda::std::is_nothrow_default_constructible_v; using ::cuda::std::is_nothrow_destructible;
using ::cuda::std::is_nothrow_destructible_v; using ::cuda::std::is_nothrow_move_assignable;
using ::cuda::std::is_nothrow_move_assignable_v; using ::cuda::std::is_nothrow_move_constructible;
using ::cuda::std::is_nothrow_move_constructible_v; using ::cuda::std::is_nothrow_swappable;
using ::cuda::std::is_nothrow_swappable_v; using ::cuda::std::is_nothrow_swappable_with;
using ::cuda::std::is_nothrow_swappable_with_v; using ::cuda::std::is_null_pointer;
using ::cuda::std::is_null_pointer_v; using ::cuda::std::is_object; using ::cuda::std::is_object_v;
using ::cuda::std::is_pointer; using ::cuda::std::is_pointer_v; using ::cuda::std::is_polymorphic;
using ::cuda::std::is_polymorphic_v; using ::cuda::std::is_reference; using ::cuda::std::is_reference_v;
using ::cuda::std::is_rvalue_reference; using ::cuda::std::is_rvalue_reference_v; using ::cuda::std::is_same;
using ::cuda::std::is_same_v; using ::cuda::std::is_scalar; using ::cuda::std::is_scalar_v;
using ::cuda::std::is_scoped_enum; using ::cuda::std::is_scoped_enum_v; using ::cuda::std::is_signed;
using ::cuda::std::is_signed_v; using ::cuda::std::is_standard_layout;
using ::cuda::std::is_standard_layout_v; using ::cuda::std::is_swappable; using ::cuda::std::is_swappable_v;
using ::cuda::std::is_swappable_with; using ::cuda::std::is_swappable_with_v; using ::cuda::std::is_trivial;
using ::cuda::std::is_trivial_v; using ::cuda::std::is_trivially_assignable;
using ::cuda::std::is_trivially_assignable_v; using ::cuda::std::is_trivially_constructible;
using ::cuda::std::is_trivially_constructible_v; using ::cuda::std::is_trivially_copy_assignable;
using ::cuda::std::is_trivially_copy_assignable_v; using ::cuda::std::is_trivially_copy_constructible;
using ::cuda::std::is_trivially_copy_constructible_v; using ::cuda::std::is_trivially_copyable;
using ::cuda::std::is_trivially_copyable_v; using ::cuda::std::is_trivially_default_constructible;
using ::cuda::std::is_trivially_default_constructible_v; using ::cuda::std::is_trivially_destructible;
using ::cuda::std::is_trivially_destructible_v; using ::cuda::std::is_trivially_move_assignable;
using ::cuda::std::is_trivially_move_assignable_v; using ::cuda::std::is_trivially_move_constructible;
using ::cuda::std::is_trivially_move_constructible_v; using ::cuda::std::is_unbounded_array;
using ::cuda::std::is_unbounded_array_v; using ::cuda::std::is_union; using ::cuda::std::is_union_v;
using ::cuda::std::is_unsigned; using ::cuda::std::is_unsigned_v; using ::cuda::std::is_void;
using ::cuda::std::is_void_v; using ::cuda::std::is_volatile; using ::cuda::std::is_volatile_v;
using ::cuda::std::make_index_sequence; using ::cuda::std::make_integer_sequence;
using ::cuda::std::make_signed; using ::cuda::std::make_signed_t; using ::cuda::std::make_unsigned;
using ::cuda::std::make_unsigned_t; using ::cuda::std::negation;
using ::cuda::std::negation_v; using ::cuda::std::numeric_limits; using ::cuda::std::rank;
using ::cuda::std::rank_v; using ::cuda::std::remove_all_extents; using ::cuda::std::remove_all_extents_t;
using ::cuda::std::remove_const; using ::cuda::std::remove_const_t; using ::cuda::std::remove_cv;
using ::cuda::std::remove_cv_t; using ::cuda::std::remove_extent; using ::cuda::std::remove_extent_t;
using ::cuda::std::remove_pointer; using ::cuda::std::remove_pointer_t; using ::cuda::std::remove_reference;
using ::cuda::std::remove_reference_t; using ::cuda::std::remove_volatile;
using ::cuda::std::remove_volatile_t; using ::cuda::std::true_type; using ::cuda::std::underlying_type;
using ::cuda::std::underlying_type_t; using ::cuda::std::void_t;
// The storage and reference traits (OneFlow's softmax packs with std::aligned_storage).
using ::cuda::std::aligned_storage; using ::cuda::std::aligned_storage_t; using ::cuda::std::aligned_union;
using ::cuda::std::aligned_union_t; using ::cuda::std::common_reference; using ::cuda::std::common_reference_t;
using ::cuda::std::is_nothrow_convertible; using ::cuda::std::is_nothrow_convertible_v;
using ::cuda::std::is_nothrow_invocable; using ::cuda::std::is_nothrow_invocable_r;
using ::cuda::std::is_nothrow_invocable_r_v; using ::cuda::std::is_nothrow_invocable_v; using ::cuda::std::is_pod;
using ::cuda::std::is_pod_v; using ::cuda::std::remove_cvref; using ::cuda::std::remove_cvref_t;
using ::cuda::std::type_identity; using ::cuda::std::type_identity_t;
#if __cplusplus <= 201703L
using ::cuda::std::result_of; using ::cuda::std::result_of_t;  // removed in C++20
#endif
}  // namespace std
#endif

#endif
