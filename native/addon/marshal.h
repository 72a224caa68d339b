// Kernel arguments from JS to the backend's args[] (as for cudaLaunchKernel),
// re-checked against the kernel's signature where the backend knows it.
#ifndef FUSELAB_ADDON_MARSHAL_H
#define FUSELAB_ADDON_MARSHAL_H

#include "handles.h"

namespace fl::addon {

// "f32*,const f32*,i32" -> {pointer f32}, {pointer f32}, {scalar i32}.
std::vector<ParamKind> parse_signature(const std::string& signature);

// A launch of `kernel` with grid, block, shared bytes and args checked and packed.
// Throws a JS Error naming the argument at fault.
std::shared_ptr<LaunchState> pack_launch(const Napi::CallbackInfo& info, std::shared_ptr<KernelState> kernel);

// Throws when the launch's device is closed, its module unloaded, or one of its
// buffers released since it was packed.
void check_launch_alive(Napi::Env env, const LaunchState& launch);

}  // namespace fl::addon

#endif
