// <omp.h> for run-time compiled kernels: OpenMP, which sources include for the host
// loops of their CPU references. Device code has no OpenMP, so the header declares
// nothing (NVRTC and hiprtc ignore an `#pragma omp`); a call into the library left in
// the source is reported as undeclared.
#ifndef FUSELAB_RTC_OMP_H
#define FUSELAB_RTC_OMP_H
#endif
