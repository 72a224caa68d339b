// <THC/THC.h>, which extensions written for PyTorch 1 include (DCNv2, ROI and
// deformable-convolution layers): the state their host launchers pass around,
// by name only, as `extern THCState *state;` declares it beside the kernels.
#ifndef FUSELAB_TORCH_THC_H
#define FUSELAB_TORCH_THC_H
#include <fuselab_torch.h>
#include <THC/THCAtomics.cuh>
#include <THC/THCDeviceUtils.cuh>
struct THCState;
#endif
