// <float.h> for run-time compiled kernels.
#ifndef FUSELAB_RTC_FLOAT_H
#define FUSELAB_RTC_FLOAT_H
extern "C++" {
#include "cfloat"
}
#endif
