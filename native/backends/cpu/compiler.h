// Run-time compilation for the cpu backend: a kernel source becomes a shared
// object, built by the host C++ compiler and kept in a cache.
#ifndef FUSELAB_CPU_COMPILER_H
#define FUSELAB_CPU_COMPILER_H

#include <string>

namespace fl::cpu {

// The compiler command: $CXX, else c++.
std::string compiler_command();
// The cache folder: $FUSELAB_CACHE, else ~/.cache/fuselab/cpu.
std::string cache_folder();
// "c++ (found at /usr/bin/c++)" or why run-time compilation cannot work here.
std::string compiler_note();

struct compile_result {
  bool ok = false;
  std::string library;  // path of the shared object
  std::string error;    // one line
  std::string log;      // the compiler's output
};

// Compiles `source` with one FL_KERNEL_EXPORT per name in `kernel_names`
// (comma separated) and `options` (space separated), or finds it in the cache.
compile_result compile_module(const std::string& source, const std::string& kernel_names, const std::string& options);

}  // namespace fl::cpu

#endif
