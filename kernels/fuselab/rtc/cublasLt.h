// <cublasLt.h> in a kernel source: the host library's header, which sources of kernels
// include for their host code. A source here is device code (launches come from
// TypeScript), so the header declares nothing; a call into the library is
// reported as undeclared.
#ifndef FUSELAB_RTC_CUBLASLT_H
#define FUSELAB_RTC_CUBLASLT_H
#endif
