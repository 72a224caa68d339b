// cuFFT's types, which kernels that feed or follow a cuFFT plan take (cufftComplex
// is cuComplex, a float2), and its handle, result and transform codes for the host
// declarations beside them: the <cufft.h> of the CPU emulator and of NVRTC.
#ifndef FUSELAB_CUFFT_TYPES_H
#define FUSELAB_CUFFT_TYPES_H
#if defined(__HIPCC_RTC__)
// hiprtc has no <cuComplex.h>: the types alone, as HIP's NVIDIA platform defines them.
typedef float2 cuFloatComplex;
typedef double2 cuDoubleComplex;
typedef cuFloatComplex cuComplex;
#else
#include <cuComplex.h>
#endif
typedef float cufftReal;
typedef double cufftDoubleReal;
typedef cuComplex cufftComplex;
typedef cuDoubleComplex cufftDoubleComplex;
typedef int cufftHandle;
typedef enum cufftResult_t {
  CUFFT_SUCCESS = 0, CUFFT_INVALID_PLAN = 1, CUFFT_ALLOC_FAILED = 2, CUFFT_INVALID_TYPE = 3, CUFFT_INVALID_VALUE = 4,
  CUFFT_INTERNAL_ERROR = 5, CUFFT_EXEC_FAILED = 6, CUFFT_SETUP_FAILED = 7, CUFFT_INVALID_SIZE = 8, CUFFT_UNALIGNED_DATA = 9
} cufftResult;
typedef enum cufftType_t { CUFFT_R2C = 0x2a, CUFFT_C2R = 0x2c, CUFFT_C2C = 0x29, CUFFT_D2Z = 0x6a, CUFFT_Z2D = 0x6c, CUFFT_Z2Z = 0x69 } cufftType;
#define CUFFT_FORWARD -1
#define CUFFT_INVERSE 1
#endif
