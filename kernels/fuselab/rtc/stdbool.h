// <stdbool.h> for run-time compiled kernels: C's bool, true and false are C++'s own.
#ifndef FUSELAB_RTC_STDBOOL_H
#define FUSELAB_RTC_STDBOOL_H
#define __bool_true_false_are_defined 1
#endif
