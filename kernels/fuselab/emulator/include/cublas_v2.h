// <cublas_v2.h> in a kernel source: the host library's header, which sources of kernels
// include for their host code. A source here is device code (launches come from
// TypeScript), so the header declares nothing; a call into the library is
// reported as undeclared.
#ifndef FUSELAB_EMULATOR_INCLUDE_CUBLAS_V2_H
#define FUSELAB_EMULATOR_INCLUDE_CUBLAS_V2_H
#endif
