// The memory a built-in kernel may touch through each pointer argument. Its
// export names every parameter and gives each pointer an extent in elements
// ("out[rows*cols] x[rows*cols] bias[cols] rows cols vectorized"); every launch
// and prepare is checked against the sizes of the buffers it passes, so no
// slip above the addon can make a built-in kernel reach memory it was not given.
// Kernels whose export names no parameters (compiled ones) are not checked here.
#ifndef FUSELAB_ADDON_EXTENTS_H
#define FUSELAB_ADDON_EXTENTS_H

#include "handles.h"

namespace fl::addon {

// Names kernel->params from the export's list and reads each extent; the
// kernel's signature then shows the names. Throws a JS Error naming the kernel
// when the list does not fit the signature.
void read_param_names(Napi::Env env, const std::string& list, KernelState* kernel);

// Throws a JS Error when a scalar that an extent uses is negative, an extent
// does not fit in 64 bits, or a buffer holds fewer bytes than its extent needs.
void check_extents(Napi::Env env, const LaunchState& launch);

}  // namespace fl::addon

#endif
