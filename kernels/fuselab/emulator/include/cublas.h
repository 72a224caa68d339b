// <cublas.h>, cuBLAS's legacy API, which host code includes (kNN-CUDA's cublasSgemm('n', 't', ...)): cuBLAS's types, as
// fuselab/cublas_types.h gives them; the functions are the host's, left out with its code.
#include <fuselab/cublas_types.h>
