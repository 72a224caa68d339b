// <assert.h> for run-time compiled kernels: NVRTC and hiprtc declare what device code uses of it (printf, malloc, free, assert) themselves.
#ifndef FUSELAB_RTC_ASSERT_H
#define FUSELAB_RTC_ASSERT_H
#endif
