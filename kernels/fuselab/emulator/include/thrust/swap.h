// <thrust/swap.h> on the CPU emulator: thrust::swap in host and device code, as std::swap.
#ifndef FUSELAB_EMULATOR_INCLUDE_THRUST_SWAP_H
#define FUSELAB_EMULATOR_INCLUDE_THRUST_SWAP_H
#include <fuselab/thrust_version.h>
#include <utility>
namespace thrust {
using std::swap;
}  // namespace thrust
#endif
