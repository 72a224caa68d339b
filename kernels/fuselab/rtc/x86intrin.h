// <x86intrin.h> under NVRTC and hiprtc: the host compiler's x86 vector intrinsics, which
// sources include for a CPU version of their kernel in main(). That host code is
// left out of what the run-time compiler reads, so the header declares nothing;
// a call left in device code is reported as undeclared.
#ifndef FUSELAB_RTC_X86INTRIN_H
#define FUSELAB_RTC_X86INTRIN_H
#endif
