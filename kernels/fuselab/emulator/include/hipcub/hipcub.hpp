// <hipcub/hipcub.hpp> on the CPU emulator: cub's block and warp primitives.
#ifndef FUSELAB_EMULATOR_INCLUDE_HIPCUB_HIPCUB_HPP
#define FUSELAB_EMULATOR_INCLUDE_HIPCUB_HIPCUB_HPP
#include <hip/hip_runtime.h>
#include <fuselab/emulator/cub_block_items.h>
// hipCUB is cub under another namespace, its warp width the platform's: on AMD's
// (a 64-lane device) the warp primitives take the wavefront's 64 lanes unless a
// logical width is given, as hipCUB's HIPCUB_DEVICE_WARP_THREADS makes them.
namespace hipcub {
using namespace ::cub;
#if defined(__HIP_PLATFORM_AMD__)
#define HIPCUB_DEVICE_WARP_THREADS 64
template <typename T, int LOGICAL_WARP_THREADS = HIPCUB_DEVICE_WARP_THREADS, int ARCH = 0>
using WarpReduce = ::cub::WarpReduce<T, LOGICAL_WARP_THREADS>;
template <typename T, int LOGICAL_WARP_THREADS = HIPCUB_DEVICE_WARP_THREADS, int ARCH = 0>
using WarpScan = ::cub::WarpScan<T, LOGICAL_WARP_THREADS>;
#else
#define HIPCUB_DEVICE_WARP_THREADS 32
#endif
}  // namespace hipcub
#endif
