// <cufft.h> in a kernel source: cuFFT's types (fuselab/cufft_types.h). Plans are made
// and run by host code, which a source here leaves out (launches come from TypeScript).
#ifndef FUSELAB_RTC_CUFFT_H
#define FUSELAB_RTC_CUFFT_H
extern "C++" {
#include <fuselab/cufft_types.h>
}
#endif
