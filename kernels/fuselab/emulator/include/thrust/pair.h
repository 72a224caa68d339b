// <thrust/pair.h> on the CPU emulator: thrust::pair in host and device code, as
// std::pair (device code here is the host's C++).
#ifndef FUSELAB_EMULATOR_INCLUDE_THRUST_PAIR_H
#define FUSELAB_EMULATOR_INCLUDE_THRUST_PAIR_H
#include <fuselab/thrust_version.h>
#include <utility>
namespace thrust {
using std::get; using std::make_pair; using std::pair;
}  // namespace thrust
#endif
