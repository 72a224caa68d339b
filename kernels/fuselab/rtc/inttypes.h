// <inttypes.h> for run-time compiled kernels: the fixed-width integers and their printf
// formats, which device printf takes too (printf("%" PRId64 "\n", v)).
#ifndef FUSELAB_RTC_INTTYPES
#define FUSELAB_RTC_INTTYPES
extern "C++" {
#include "fuselab_rtc_std.h"
}
#define PRId32 "d"
#define PRIi32 "i"
#define PRIu32 "u"
#define PRIx32 "x"
#define PRIX32 "X"
#define PRId64 "lld"
#define PRIi64 "lli"
#define PRIu64 "llu"
#define PRIx64 "llx"
#define PRIX64 "llX"
#endif
