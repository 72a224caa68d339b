// <helper_functions.h> in a kernel source: the CUDA samples' header of host helpers (error checks
// around runtime calls, device selection, timers), which samples include for their host
// code. A source here is device code (launches come from TypeScript), so the header
// declares nothing; a host helper left in the source is reported as undeclared.
#ifndef FUSELAB_EMULATOR_INCLUDE_HELPER_FUNCTIONS_H
#define FUSELAB_EMULATOR_INCLUDE_HELPER_FUNCTIONS_H
#endif
