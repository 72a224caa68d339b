// <hip/hip_common.h> on the CPU emulator: a part of HIP's runtime header, which sources include
// beside it or before it (rocm-examples' fdtd); here the whole of it, so that the
// installed HIP's own parts, written for hipcc, are never mixed in.
#ifndef FUSELAB_EMULATOR_INCLUDE_HIP_HIP_COMMON_H
#define FUSELAB_EMULATOR_INCLUDE_HIP_HIP_COMMON_H
#include <hip/hip_runtime.h>
#endif
