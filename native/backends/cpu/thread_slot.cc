// libfuselab_thread.so: every OS thread's fl_emu_thread, in static TLS
// (initial-exec), so that its offset from the thread pointer is one number for
// all threads and a module reaches it in two loads, without the call to
// __tls_get_addr its own thread_local would cost at every barrier, warp
// operation and read of threadIdx. A library of its own, holding nothing else:
// static TLS for a library loaded with dlopen comes from a small reserve, which
// the plugin's own thread-local data (its kernels' __shared__ arrays) would
// not fit in.
#include "fuselab/emulator/abi.h"

namespace {
__thread fl_emu_thread slot __attribute__((tls_model("initial-exec")));
}

extern "C" __attribute__((visibility("default"))) ptrdiff_t fuselab_thread_offset(void) {
  void* pointer = fl_emu_thread_pointer();
  return pointer ? reinterpret_cast<char*>(&slot) - static_cast<char*>(pointer) : 0;
}
