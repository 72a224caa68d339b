// <strings.h> for run-time compiled kernels: host code only (fuselab_rtc_host_only.h).
extern "C++" {
#include <fuselab_rtc_host_only.h>
}
