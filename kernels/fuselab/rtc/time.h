// <time.h> for run-time compiled kernels: what device code has of it (clock_t, time_t), from the toolkit's C++ library (cuda/std).
#ifndef FUSELAB_RTC_TIME_H
#define FUSELAB_RTC_TIME_H
extern "C++" {
#include "fuselab_rtc_std.h"
}
#if defined(__CUDACC_RTC__)
extern "C++" {
#include <cuda/std/ctime>
}
#endif
#endif
