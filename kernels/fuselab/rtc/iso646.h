// <iso646.h> for run-time compiled kernels: C's and, or, not ... are C++'s own keywords.
#ifndef FUSELAB_RTC_ISO646_H
#define FUSELAB_RTC_ISO646_H
#endif
