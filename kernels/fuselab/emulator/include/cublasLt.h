// <cublasLt.h> in a kernel source: the host library's header, which sources of kernels
// include for their host code. As <cublas_v2.h> here: the library's types (its
// handles and descriptors, and cuBLAS's status and compute types), no function.
#ifndef FUSELAB_EMULATOR_INCLUDE_CUBLASLT_H
#define FUSELAB_EMULATOR_INCLUDE_CUBLASLT_H
#include "cublas_v2.h"

typedef struct cublasLtContext* cublasLtHandle_t;
typedef struct cublasLtMatmulDescOpaque_t* cublasLtMatmulDesc_t;
typedef struct cublasLtMatrixLayoutOpaque_t* cublasLtMatrixLayout_t;
typedef struct cublasLtMatmulPreferenceOpaque_t* cublasLtMatmulPreference_t;

#endif
