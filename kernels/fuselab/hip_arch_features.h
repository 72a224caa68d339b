// HIP's device feature macros (__HIP_ARCH_HAS_DOUBLES__ ...), as hipcc's device pass
// defines them for the GPUs it targets, for a HIP source's kernels that pick a path by
// them: fuselab's HIP headers include this on the CPU and under NVRTC, where kernels
// run with every feature here but funnel shifts, the extended barriers, surfaces and
// dynamic parallelism.
#ifndef FUSELAB_HIP_ARCH_FEATURES_H
#define FUSELAB_HIP_ARCH_FEATURES_H
#define __HIP_ARCH_HAS_GLOBAL_INT32_ATOMICS__ 1
#define __HIP_ARCH_HAS_GLOBAL_FLOAT_ATOMIC_EXCH__ 1
#define __HIP_ARCH_HAS_SHARED_INT32_ATOMICS__ 1
#define __HIP_ARCH_HAS_SHARED_FLOAT_ATOMIC_EXCH__ 1
#define __HIP_ARCH_HAS_FLOAT_ATOMIC_ADD__ 1
#define __HIP_ARCH_HAS_GLOBAL_INT64_ATOMICS__ 1
#define __HIP_ARCH_HAS_SHARED_INT64_ATOMICS__ 1
#define __HIP_ARCH_HAS_DOUBLES__ 1
#define __HIP_ARCH_HAS_WARP_VOTE__ 1
#define __HIP_ARCH_HAS_WARP_BALLOT__ 1
#define __HIP_ARCH_HAS_WARP_SHUFFLE__ 1
#define __HIP_ARCH_HAS_WARP_FUNNEL_SHIFT__ 0
#define __HIP_ARCH_HAS_THREAD_FENCE_SYSTEM__ 1
#define __HIP_ARCH_HAS_SYNC_THREAD_EXT__ 0
#define __HIP_ARCH_HAS_SURFACE_FUNCS__ 0
#define __HIP_ARCH_HAS_3DGRID__ 1
#define __HIP_ARCH_HAS_DYNAMIC_PARALLEL__ 0
#endif
