// What thrust's containers and algorithms (thrust::device_vector, thrust::sort,
// thrust::exclusive_scan ...) stand for on the CPU emulator and under NVRTC:
// sources include them for the main() that sets up and checks their kernels,
// which fl.compile leaves out as host code (it launches with <<<...>>>).
// Kernels cannot call them, so they declare nothing; a use left in device code
// is reported as undeclared.
#ifndef FUSELAB_THRUST_HOST_ONLY_H
#define FUSELAB_THRUST_HOST_ONLY_H
#endif
