// What cub's device-wide algorithms (cub::DeviceRadixSort, DeviceReduce,
// DeviceScan ...) and its CachingDeviceAllocator stand for on the CPU emulator
// and under NVRTC: a source includes them for the host code that sets up its
// launches, which fl.compile leaves out (launches come from TS). Kernels cannot
// call them, so they declare nothing but the allocator's type, which a sample
// defines an object of at namespace scope (`cub::CachingDeviceAllocator
// g_allocator(true);`); the header brings cub's block and warp primitives, as
// the toolkit's does.
#ifndef FUSELAB_CUB_HOST_ONLY_H
#define FUSELAB_CUB_HOST_ONLY_H
#include <cub/version.cuh>
namespace cub {
struct CachingDeviceAllocator {
  template <typename... Settings>
  __host__ __device__ constexpr explicit CachingDeviceAllocator(Settings...) {}
};
}  // namespace cub
#endif
