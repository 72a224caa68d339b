// <memory.h> for run-time compiled kernels: the old name of what <string.h> declares (memcpy, memset).
#ifndef FUSELAB_RTC_MEMORY_H
#define FUSELAB_RTC_MEMORY_H
extern "C++" {
#include "string.h"
}
#endif
