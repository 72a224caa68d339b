// Kernel arguments from JS to the backend's args[] (as for cudaLaunchKernel),
// re-checked against the kernel's signature where the backend knows it.
#ifndef FUSELAB_ADDON_MARSHAL_H
#define FUSELAB_ADDON_MARSHAL_H

#include <functional>

#include "handles.h"

namespace fl::addon {

// "f32*,const f32*,i32" -> {pointer f32}, {pointer f32}, {scalar i32}.
std::vector<ParamKind> parse_signature(const std::string& signature);

// A launch of `kernel` with grid, block, shared bytes and args checked and packed.
// Throws a JS Error naming the argument at fault.
std::shared_ptr<LaunchState> pack_launch(const Napi::CallbackInfo& info, std::shared_ptr<KernelState> kernel);

// Writes into `record` (of `bytes`) the addresses that `pointers` lists ([{ offset,
// buffer, byteOffset?, bytes? }], undefined for none), each a buffer on `device`,
// handing each to `found`; returns what is wrong with the list, or "".
std::string write_pointers(const Napi::Value& pointers, const std::shared_ptr<DeviceState>& device, uint8_t* record, size_t bytes,
                           const std::function<void(PointerArg)>& found);

// Throws when the launch's device is closed, its module unloaded, or one of its
// buffers released since it was packed.
void check_launch_alive(Napi::Env env, const LaunchState& launch);

}  // namespace fl::addon

#endif
