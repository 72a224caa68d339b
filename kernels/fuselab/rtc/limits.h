// <limits.h> for run-time compiled kernels, from the toolkit's C++ library (cuda/std).
#ifndef FUSELAB_RTC_LIMITS_H
#define FUSELAB_RTC_LIMITS_H
extern "C++" {
#include "fuselab_rtc_std.h"
}
#endif
