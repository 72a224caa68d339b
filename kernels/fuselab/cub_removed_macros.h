// The arithmetic macros cub 1 and 2 defined and cub 3 (CUDA 13) removed, which
// sources written for them still use; for the CPU emulator's cub and NVRTC's.
#ifndef FUSELAB_CUB_REMOVED_MACROS_H
#define FUSELAB_CUB_REMOVED_MACROS_H
#ifndef CUB_MIN
#define CUB_MIN(a, b) (((b) < (a)) ? (b) : (a))
#define CUB_MAX(a, b) (((b) > (a)) ? (b) : (a))
#define CUB_QUOTIENT_CEILING(x, y) (((x) + (y) - 1) / (y))
#define CUB_QUOTIENT_FLOOR(x, y) ((x) / (y))
#define CUB_ROUND_UP_NEAREST(x, y) ((((x) + (y) - 1) / (y)) * (y))
#endif
#endif
