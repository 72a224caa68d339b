// cuSOLVER's dense handle and status types, which a project's common header names
// in host declarations beside its kernels (MindSpore's cuda_device_info.h): the
// <cusolverDn.h> of the CPU emulator, NVRTC and hiprtc. cuSOLVER's calls are host
// code, and launches come from TS.
#ifndef FUSELAB_CUSOLVER_TYPES_H
#define FUSELAB_CUSOLVER_TYPES_H
typedef struct cusolverDnContext* cusolverDnHandle_t;
typedef enum { CUSOLVER_STATUS_SUCCESS = 0, CUSOLVER_STATUS_NOT_INITIALIZED = 1, CUSOLVER_STATUS_ALLOC_FAILED = 2,
               CUSOLVER_STATUS_INVALID_VALUE = 3, CUSOLVER_STATUS_ARCH_MISMATCH = 4, CUSOLVER_STATUS_EXECUTION_FAILED = 6,
               CUSOLVER_STATUS_INTERNAL_ERROR = 7 } cusolverStatus_t;
#endif
