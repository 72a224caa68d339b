// <sys/socket.h> for run-time compiled kernels: host code only (fuselab_rtc_host_only.h).
#include <fuselab_rtc_host_only.h>
