// <pthread.h> for run-time compiled kernels: POSIX threads' types, which a
// source's host declarations name (CUDA by Example's book.h: `typedef pthread_t
// CUTThread;`), and no function: the host code that starts threads is left out
// of what the run-time compiler reads (fuselab_rtc_host_only.h).
#ifndef FUSELAB_RTC_PTHREAD_H
#define FUSELAB_RTC_PTHREAD_H
extern "C++" {
#include <fuselab_rtc_host_only.h>
}
typedef unsigned long pthread_t;
typedef unsigned int pthread_key_t;
typedef int pthread_once_t;
typedef struct { long opaque[7]; } pthread_attr_t;
typedef struct { long opaque[5]; } pthread_mutex_t;
typedef struct { long opaque[6]; } pthread_cond_t;
#endif
