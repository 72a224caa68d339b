// Run-time compilation for the cpu backend: a kernel source becomes a shared
// object, built by the host C++ compiler and kept in a cache.
#ifndef FUSELAB_CPU_COMPILER_H
#define FUSELAB_CPU_COMPILER_H

#include <string>

#include "compiler_process.h"

namespace fl::cpu {

// "run-time compilation: c++ (/usr/bin/c++), cache ~/.cache/fuselab/cpu" or
// why run-time compilation cannot work here.
std::string compiler_note();

struct compile_result {
  bool ok = false;
  std::string code;   // the shared object's bytes
  std::string error;  // one line
  std::string log;    // the compiler's output
};

// Compiles `source` with one FL_KERNEL_EXPORT per name in `kernel_names`
// (comma separated) and `options` (space separated), or finds it in the cache.
// `check`: for a device in check mode, every typed access is checked for
// alignment (a misaligned one ends the launch, as on a GPU).
// The compiler runs under `limits`. A source that includes a file other than
// fuselab's headers and the compiler's own is refused, and its log withheld.
compile_result compile_module(const std::string& source, const std::string& kernel_names, const std::string& options,
                              bool check, const process_limits& limits);

// dlopen()s a shared object held in memory. *keep_fd must stay open while the
// library is loaded (its name is the descriptor's), then be closed.
void* load_shared_object(const std::string& code, int* keep_fd, std::string* error);

}  // namespace fl::cpu

#endif
