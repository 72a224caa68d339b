// What thrust's containers and algorithms (thrust::device_vector, thrust::sort,
// thrust::exclusive_scan ...) stand for on the CPU emulator and under NVRTC:
// sources include them for the main() that sets up and checks their kernels,
// which fl.compile leaves out as host code (it launches with <<<...>>>).
// Kernels cannot call them, so they declare the containers' names alone, for a
// header's aliases (`template <typename T> using thrustHvec =
// thrust::host_vector<T>;`, Ansorge's cx.h); a use left in device code is
// reported as undeclared or incomplete.
#ifndef FUSELAB_THRUST_HOST_ONLY_H
#define FUSELAB_THRUST_HOST_ONLY_H
#include <fuselab/thrust_functional.h>
namespace thrust {
template <typename T, typename Alloc = void> class host_vector;
template <typename T, typename Alloc = void> class device_vector;
template <typename T> class device_ptr;
template <typename T, typename Alloc = void> class universal_vector;
}  // namespace thrust
#endif
