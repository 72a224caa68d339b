// cuda::std on the CPU emulator: the host's C++ library, by that name too.
#ifndef FUSELAB_EMULATOR_INCLUDE_CUDA_STD_FUSELAB_CUDA_STD_H
#define FUSELAB_EMULATOR_INCLUDE_CUDA_STD_FUSELAB_CUDA_STD_H
#include <cuda/version>
namespace cuda {
namespace std {
using namespace ::std;
}  // namespace std
}  // namespace cuda
#endif
