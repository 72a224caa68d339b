// <cuda_profiler_api.h> in a kernel source: the runtime's profiler control
// (cudaProfilerStart, cudaProfilerStop), which samples call from their host code. A
// source here is device code (launches come from TypeScript), so the header declares
// nothing; a host call left in the source is reported as undeclared.
#ifndef FUSELAB_RTC_CUDA_PROFILER_API_H
#define FUSELAB_RTC_CUDA_PROFILER_API_H
#endif
