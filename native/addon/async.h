// The addon's calls that may take long, run on libuv's worker pool and
// returned as promises, so that a notebook stays responsive meanwhile.
#ifndef FUSELAB_ADDON_ASYNC_H
#define FUSELAB_ADDON_ASYNC_H

#include <napi.h>

namespace fl::addon {

Napi::Value synchronize_async(const Napi::CallbackInfo& info);
Napi::Value download_async(const Napi::CallbackInfo& info);
Napi::Value compile_async(const Napi::CallbackInfo& info);
Napi::Value bench_async(const Napi::CallbackInfo& info);

}  // namespace fl::addon

#endif
