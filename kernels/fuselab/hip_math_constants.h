// HIP's math constants (hip/hip_math_constants.h): CUDA's (math_constants.h) by HIP's names,
// HIP_INF_F for CUDART_INF_F, for the targets where HIP is not the native language.
#ifndef FUSELAB_HIP_MATH_CONSTANTS_H
#define FUSELAB_HIP_MATH_CONSTANTS_H
#include <math_constants.h>
#define HIP_INF_F CUDART_INF_F
#define HIP_NAN_F CUDART_NAN_F
#define HIP_MIN_DENORM_F CUDART_MIN_DENORM_F
#define HIP_MAX_NORMAL_F CUDART_MAX_NORMAL_F
#define HIP_NEG_ZERO_F CUDART_NEG_ZERO_F
#define HIP_ZERO_F CUDART_ZERO_F
#define HIP_ONE_F CUDART_ONE_F
#define HIP_PI_F CUDART_PI_F
#define HIP_PIO2_F CUDART_PIO2_F
#define HIP_SQRT_HALF_F CUDART_SQRT_HALF_F
#define HIP_L2E_F CUDART_L2E_F
#define HIP_LN2_F CUDART_LN2_F
#define HIP_INF CUDART_INF
#define HIP_NAN CUDART_NAN
#define HIP_PI CUDART_PI
#define HIP_LN2 CUDART_LN2
#endif
