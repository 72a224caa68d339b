// <cuda_fp16.h> on the CPU emulator: the kernel language of fuselab/fuselab.h.
#ifndef FUSELAB_EMULATOR_INCLUDE_CUDA_FP16_H
#define FUSELAB_EMULATOR_INCLUDE_CUDA_FP16_H
#include <fuselab/fuselab.h>
// Under NVRTC, the C++ headers a source includes with these (<cmath>: CCCL's)
// bring CUDA's 8-bit floats along, and sources use __nv_fp8_e4m3 after including
// no more (candle's cuda_utils.cuh): here they come with the 16-bit floats, and
// the 6- and 4-bit ones with them, as CCCL 3 brings those too.
#include <cuda_fp4.h>
#endif
