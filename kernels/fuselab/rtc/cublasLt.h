// <cublasLt.h> in a kernel source: fuselab/cublas_types.h.
extern "C++" {
#include <fuselab/cublas_types.h>
}
