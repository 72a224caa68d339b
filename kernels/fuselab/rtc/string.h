// <string.h> for run-time compiled kernels: what device code has of it (memcpy, memset), from the toolkit's C++ library (cuda/std).
#ifndef FUSELAB_RTC_STRING_H
#define FUSELAB_RTC_STRING_H
#include "fuselab_rtc_std.h"
#if defined(__CUDACC_RTC__)
#include <cuda/std/cstring>
#endif
#endif
