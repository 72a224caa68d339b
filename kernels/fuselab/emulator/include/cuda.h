// <cuda.h> on the CPU emulator: the kernel language of fuselab/fuselab.h, and
// the version of the toolkit whose device API the emulator gives (CUDA 13.0),
// so that a source's `#if CUDA_VERSION >= 12000` takes the branch a GPU takes.
#ifndef FUSELAB_EMULATOR_INCLUDE_CUDA_H
#define FUSELAB_EMULATOR_INCLUDE_CUDA_H
#include <fuselab/fuselab.h>
#ifndef CUDA_VERSION
#define CUDA_VERSION 13000
#endif
#endif
