// <curand_mrg32k3a.h> on the CPU emulator: part of cuRAND's device API, all of which <curand_kernel.h> gives.
#include <curand_kernel.h>
