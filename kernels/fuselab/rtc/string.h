// <string.h> for run-time compiled kernels: what device code has of it (memcpy, memset), from the toolkit's C++ library (cuda/std).
#ifndef FUSELAB_RTC_STRING_H
#define FUSELAB_RTC_STRING_H
extern "C++" {
#include "fuselab_rtc_std.h"
}
#if defined(__CUDACC_RTC__)
extern "C++" {
#include <cuda/std/cstring>
}
#endif
#endif
