// <helper_string.h> in a kernel source: one of the CUDA samples' headers of host helpers, as
// <helper_functions.h> (which includes it in the samples).
#ifndef FUSELAB_EMULATOR_INCLUDE_HELPER_STRING_H
#define FUSELAB_EMULATOR_INCLUDE_HELPER_STRING_H
#include "helper_functions.h"
#endif
