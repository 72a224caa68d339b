// <torch/headeronly/cuda/Atomic.h>: gpuAtomicAdd and its kin, as <ATen/cuda/Atomic.cuh> gives them.
#include <ATen/cuda/Atomic.cuh>
