// <helper_functions.h> in a kernel source: the CUDA samples' header of host helpers (error checks
// around runtime calls, device selection, timers), which samples include for their host
// code. A source here is device code (launches come from TypeScript): a host function
// calling the helpers (sdkCreateTimer, checkCudaErrors ...) is left out, and the header
// gives only the timer's type, for a source's `StopWatchInterface* timer` at namespace scope.
#ifndef FUSELAB_EMULATOR_INCLUDE_HELPER_FUNCTIONS_H
#define FUSELAB_EMULATOR_INCLUDE_HELPER_FUNCTIONS_H
class StopWatchInterface;
#endif
