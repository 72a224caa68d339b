// <hip/hip_bfloat16.h> on the CPU emulator: hip_bfloat16, as <hip/hip_bf16.h> gives it.
#include "hip_bf16.h"
