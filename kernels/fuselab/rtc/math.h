// <math.h> for run-time compiled kernels.
#ifndef FUSELAB_RTC_MATH_H
#define FUSELAB_RTC_MATH_H
extern "C++" {
#include "cmath"
}
#endif
