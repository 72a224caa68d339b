// <linux/limits.h> for run-time compiled kernels: the path and name limits a host helper sizes its buffers with.
#ifndef FUSELAB_RTC_LINUX_LIMITS_H
#define FUSELAB_RTC_LINUX_LIMITS_H
#define NAME_MAX 255
#define PATH_MAX 4096
#endif
