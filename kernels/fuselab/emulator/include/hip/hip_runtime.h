// <hip/hip_runtime.h> on the CPU emulator: the kernel language of fuselab/fuselab.h
// and HIP's own spellings.
#ifndef FUSELAB_EMULATOR_INCLUDE_HIP_HIP_RUNTIME_H
#define FUSELAB_EMULATOR_INCLUDE_HIP_HIP_RUNTIME_H
// The platform, as HIP's headers define it: the emulator is an AMD GPU with
// 64-lane warps and an NVIDIA GPU with 32 (src/compile.ts gives the width).
#if !defined(__HIP_PLATFORM_AMD__) && !defined(__HIP_PLATFORM_NVIDIA__)
#if defined(FL_EMU_WARP_SIZE) && FL_EMU_WARP_SIZE == 64
#define __HIP_PLATFORM_AMD__ 1
#define __AMDGCN_WAVEFRONT_SIZE 64
#else
#define __HIP_PLATFORM_NVIDIA__ 1
#define __HIP_PLATFORM_NVCC__ 1
#endif
#endif
// What HIP's own header brings every source (the C++ library's math, integers,
// limits and algorithms), which host code beside the kernels relies on.
#include <hip/hip_version.h>
#include <fuselab/hip_arch_features.h>
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <new>
#include <tuple>
#include <utility>
#include <fuselab/fuselab.h>
#include <fuselab/hip_spellings.h>
// hip_common.h's word for hip-clang, the compiler of AMD's platform (clang's __HIP__).
#if defined(__HIP_PLATFORM_AMD__) && defined(__HIP__)
#define __HIP_CLANG_ONLY__ 1
#include <fuselab/emulator/amdgcn.h>
#include <fuselab/emulator/hip_vector_operators.h>
#else
#define __HIP_CLANG_ONLY__ 0
#endif
// HIP (through ROCm 6) makes warpSize a constant of device code, which sources
// use as an array bound (`__shared__ double sums[256 / warpSize];`): so it is
// here, the device's width.
#if defined(FL_EMU_WARP_SIZE)
#undef warpSize
static constexpr int warpSize = FL_EMU_WARP_SIZE;
#endif
#endif
