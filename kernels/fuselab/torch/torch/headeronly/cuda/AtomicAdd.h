// <torch/headeronly/cuda/AtomicAdd.h>: torch::headeronly::fastAtomicAdd, as KernelUtils.h gives it.
#include <torch/headeronly/cuda/KernelUtils.h>
