// The seccomp lock of a grader's submission process (sandbox.cc).
#ifndef FUSELAB_ADDON_SANDBOX_H
#define FUSELAB_ADDON_SANDBOX_H

#include <napi.h>

#include <string>

namespace fl::addon {

// Installs the filter on every thread; returns "" or why it could not.
// allow_process_creation: fork/exec stay possible (a compiler still has to run);
// allow_threads: clone with CLONE_THREAD stays possible.
std::string sandbox_lock(bool allow_process_creation, bool allow_threads);

// JS: sandboxLock({ processes, threads }).
Napi::Value sandbox_lock_call(const Napi::CallbackInfo& info);

}  // namespace fl::addon

#endif
