// The names glibc's <sys/types.h> and <stddef.h> give every source that nvcc or hipcc
// compiles (their host headers include them), for the run-time compilers, which have none.
#ifndef FUSELAB_RTC_GLIBC_TYPES_H
#define FUSELAB_RTC_GLIBC_TYPES_H
typedef unsigned int uint;
typedef unsigned short ushort;
typedef unsigned long ulong;
// The BSD spellings (`#define T u_int32_t`).
typedef unsigned char u_char;
typedef unsigned short u_short;
typedef unsigned int u_int;
typedef unsigned long u_long;
typedef unsigned char u_int8_t;
typedef unsigned short u_int16_t;
typedef unsigned int u_int32_t;
typedef unsigned long u_int64_t;
// `if (bias != NULL)`.
#ifndef NULL
#define NULL __null
#endif
#endif
