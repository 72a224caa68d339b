// <stdalign.h> for run-time compiled kernels: C's alignas and alignof are C++'s own keywords.
#ifndef FUSELAB_RTC_STDALIGN_H
#define FUSELAB_RTC_STDALIGN_H
#define __alignas_is_defined 1
#define __alignof_is_defined 1
#endif
