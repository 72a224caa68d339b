// <THC/THCAtomics.cuh>, which extensions written for PyTorch 1 still include: in
// PyTorch 2 it brings ATen's atomic adds, as here.
#include <ATen/cuda/Atomic.cuh>
// PyTorch 1 brought at::inf with it (through THCNumerics.cuh).
#include <ATen/cuda/NumericLimits.cuh>
