// hipRAND's device API as hipRAND gives it on NVIDIA's platform: cuRAND's
// generators under HIP's names, each call forwarded to cuRAND's, so a hipified
// kernel (`hiprandState_t`, `hiprand_init`, `hiprand_uniform`) draws the numbers
// its cuRAND original draws. On the CPU that is the emulator's cuRAND (XORWOW,
// Philox4_32_10 and MRG32k3a); under NVRTC the toolkit's, with all of its generators.
#ifndef FUSELAB_HIPRAND_DEVICE_H
#define FUSELAB_HIPRAND_DEVICE_H
#include <curand_kernel.h>

#define HIPRAND_VERSION 200000
#define FL_HIPRAND_FORWARD __device__ __forceinline__

typedef curandStateXORWOW_t hiprandStateXORWOW_t;
typedef hiprandStateXORWOW_t hiprandState_t;
typedef hiprandStateXORWOW_t hiprandState;
typedef curandStatePhilox4_32_10_t hiprandStatePhilox4_32_10_t;
typedef curandStateMRG32k3a_t hiprandStateMRG32k3a_t;
#if defined(__CUDACC_RTC__)
typedef curandStateSobol32_t hiprandStateSobol32_t;
typedef curandStateScrambledSobol32_t hiprandStateScrambledSobol32_t;
typedef curandStateSobol64_t hiprandStateSobol64_t;
typedef curandStateScrambledSobol64_t hiprandStateScrambledSobol64_t;
typedef curandStateMtgp32_t hiprandStateMtgp32_t;
#endif

template <typename State>
FL_HIPRAND_FORWARD void hiprand_init(unsigned long long seed, unsigned long long subsequence, unsigned long long offset, State* state) {
  curand_init(seed, subsequence, offset, state);
}
template <typename State> FL_HIPRAND_FORWARD unsigned int hiprand(State* state) { return curand(state); }
template <typename State> FL_HIPRAND_FORWARD uint4 hiprand4(State* state) { return curand4(state); }
template <typename State> FL_HIPRAND_FORWARD float hiprand_uniform(State* state) { return curand_uniform(state); }
template <typename State> FL_HIPRAND_FORWARD float4 hiprand_uniform4(State* state) { return curand_uniform4(state); }
template <typename State> FL_HIPRAND_FORWARD double hiprand_uniform_double(State* state) { return curand_uniform_double(state); }
template <typename State> FL_HIPRAND_FORWARD double2 hiprand_uniform2_double(State* state) { return curand_uniform2_double(state); }
template <typename State> FL_HIPRAND_FORWARD float hiprand_normal(State* state) { return curand_normal(state); }
template <typename State> FL_HIPRAND_FORWARD float2 hiprand_normal2(State* state) { return curand_normal2(state); }
template <typename State> FL_HIPRAND_FORWARD float4 hiprand_normal4(State* state) { return curand_normal4(state); }
template <typename State> FL_HIPRAND_FORWARD double hiprand_normal_double(State* state) { return curand_normal_double(state); }
template <typename State> FL_HIPRAND_FORWARD double2 hiprand_normal2_double(State* state) { return curand_normal2_double(state); }
template <typename State>
FL_HIPRAND_FORWARD float hiprand_log_normal(State* state, float mean, float stddev) { return curand_log_normal(state, mean, stddev); }
template <typename State>
FL_HIPRAND_FORWARD float2 hiprand_log_normal2(State* state, float mean, float stddev) { return curand_log_normal2(state, mean, stddev); }
template <typename State>
FL_HIPRAND_FORWARD float4 hiprand_log_normal4(State* state, float mean, float stddev) { return curand_log_normal4(state, mean, stddev); }
template <typename State>
FL_HIPRAND_FORWARD double hiprand_log_normal_double(State* state, double mean, double stddev) {
  return curand_log_normal_double(state, mean, stddev);
}
// skipahead and skipahead_sequence keep cuRAND's names in hipRAND.

#endif  // FUSELAB_HIPRAND_DEVICE_H
