// Run-time compilation of kernel source strings: NVRTC (CUDA) or hiprtc (HIP),
// loaded with dlopen so that the backend works, minus this, where the compiler
// library is not installed.
#ifndef FUSELAB_GPU_RTC_H
#define FUSELAB_GPU_RTC_H

#include <string>
#include <vector>

#include "fuselab/kernel_name.h"

namespace fl::gpu {

// "NVRTC 13.0 (/usr/local/cuda/lib64/libnvrtc.so.13)" when the compiler library
// was found, else "unavailable (<why>)".
std::string rtc_status();

struct rtc_result {
  std::string code;                        // CUBIN (CUDA) or code object (HIP)
  std::vector<std::string> lowered_names;  // the symbol of each kernel name, in order
  std::string log;                         // the compiler's log, when it wrote one (warnings too)
};

// Compiles source with options, resolving each kernel's name through a name
// expression so that kernels need no extern "C"; one declared extern "C" is
// its unqualified name (the compiler reads name expressions in its host pass,
// where a kernel under `#if __CUDA_ARCH__` does not exist). Returns 0, or 1
// with the reason in *error (and the compiler's log in out->log on a compile error).
int rtc_compile(const std::string& source, const std::vector<fl::kernel_line>& kernels,
                const std::vector<std::string>& options, rtc_result* out, std::string* error);

}  // namespace fl::gpu

#endif
