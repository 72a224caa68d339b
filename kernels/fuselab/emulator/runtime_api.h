// The CUDA and HIP runtime APIs' types and error strings on the CPU emulator, for
// the host code that sources keep beside their kernels: error-check helpers
// (gpuAssert(cudaError_t ...) with cudaGetErrorString), declarations of launchers
// that take a stream, a device's properties. nvcc and hipcc give a .cu file these
// without an #include, and so does the emulator.
//
// Launches and memory come from TypeScript, so the calls that need a running
// runtime (cudaMalloc, cudaMemcpy, cudaGetLastError, cudaDeviceSynchronize ...) are
// not declared: a host function that calls one is reported as undeclared.
#ifndef FUSELAB_EMULATOR_RUNTIME_API_H
#define FUSELAB_EMULATOR_RUNTIME_API_H

#include <stddef.h>

// Codes that the two runtimes number alike, with the runtime's description of each.
#define FL_RUNTIME_ERRORS(X)                                                                        \
  X(cudaSuccess, hipSuccess, 0, "no error")                                                        \
  X(cudaErrorInvalidValue, hipErrorInvalidValue, 1, "invalid argument")                            \
  X(cudaErrorMemoryAllocation, hipErrorOutOfMemory, 2, "out of memory")                            \
  X(cudaErrorInitializationError, hipErrorNotInitialized, 3, "initialization error")               \
  X(cudaErrorInvalidConfiguration, hipErrorInvalidConfiguration, 9, "invalid configuration argument") \
  X(cudaErrorNoDevice, hipErrorNoDevice, 100, "no CUDA-capable device is detected")                \
  X(cudaErrorInvalidDevice, hipErrorInvalidDevice, 101, "invalid device ordinal")                  \
  X(cudaErrorIllegalAddress, hipErrorIllegalAddress, 700, "an illegal memory access was encountered") \
  X(cudaErrorLaunchOutOfResources, hipErrorLaunchOutOfResources, 701, "too many resources requested for launch") \
  X(cudaErrorAssert, hipErrorAssert, 710, "device-side assert triggered")                          \
  X(cudaErrorLaunchFailure, hipErrorLaunchFailure, 719, "unspecified launch failure")              \
  X(cudaErrorNotSupported, hipErrorNotSupported, 801, "operation not supported")                   \
  X(cudaErrorUnknown, hipErrorUnknown, 999, "unknown error")

#define FL_CUDA_CODE(cuda, hip, value, text) cuda = value,
#define FL_HIP_CODE(cuda, hip, value, text) hip = value,
enum cudaError { FL_RUNTIME_ERRORS(FL_CUDA_CODE) };
enum hipError_t { FL_RUNTIME_ERRORS(FL_HIP_CODE) };
#undef FL_CUDA_CODE
#undef FL_HIP_CODE
typedef enum cudaError cudaError_t;

#define FL_CODE_TEXT(cuda, hip, value, text) \
  case value:                                \
    return text;
#define FL_CUDA_NAME(cuda, hip, value, text) \
  case value:                                \
    return #cuda;
#define FL_HIP_NAME(cuda, hip, value, text) \
  case value:                               \
    return #hip;
inline const char* fl_runtime_error_text(int code) {
  switch (code) { FL_RUNTIME_ERRORS(FL_CODE_TEXT) }
  return "unrecognized error code";
}
inline const char* cudaGetErrorString(cudaError_t error) { return fl_runtime_error_text(error); }
inline const char* hipGetErrorString(hipError_t error) { return fl_runtime_error_text(error); }
inline const char* cudaGetErrorName(cudaError_t error) {
  switch (static_cast<int>(error)) { FL_RUNTIME_ERRORS(FL_CUDA_NAME) }
  return "cudaErrorUnknown";
}
inline const char* hipGetErrorName(hipError_t error) {
  switch (static_cast<int>(error)) { FL_RUNTIME_ERRORS(FL_HIP_NAME) }
  return "hipErrorUnknown";
}
#undef FL_CODE_TEXT
#undef FL_CUDA_NAME
#undef FL_HIP_NAME
#undef FL_RUNTIME_ERRORS

// Handles the runtime hands out; host code only passes them along.
typedef struct CUstream_st* cudaStream_t;
typedef struct CUevent_st* cudaEvent_t;
typedef struct ihipStream_t* hipStream_t;
typedef struct ihipEvent_t* hipEvent_t;
// The arrays textures read from (a host struct's members, cudaMallocArray's result).
struct cudaArray;
typedef struct cudaArray* cudaArray_t;
typedef const struct cudaArray* cudaArray_const_t;
struct cudaMipmappedArray;
typedef struct cudaMipmappedArray* cudaMipmappedArray_t;
struct hipArray;
typedef struct hipArray* hipArray_t;
typedef const struct hipArray* hipArray_const_t;

// A shared-memory bank width, which cub's BlockRadixSort takes as a template argument.
enum cudaSharedMemConfig {
  cudaSharedMemBankSizeDefault = 0,
  cudaSharedMemBankSizeFourByte = 1,
  cudaSharedMemBankSizeEightByte = 2
};
enum hipSharedMemConfig {
  hipSharedMemBankSizeDefault = 0,
  hipSharedMemBankSizeFourByte = 1,
  hipSharedMemBankSizeEightByte = 2
};
// The roundings that conversions name (cuda_fp8.h's to E8M0, cuda_fp6.h's and cuda_fp4.h's);
// the toolkit's device_types.h, which its cuda_runtime.h includes, declares it.
enum cudaRoundMode { cudaRoundNearest, cudaRoundZero, cudaRoundPosInf, cudaRoundMinInf };
enum cudaMemcpyKind {
  cudaMemcpyHostToHost = 0,
  cudaMemcpyHostToDevice = 1,
  cudaMemcpyDeviceToHost = 2,
  cudaMemcpyDeviceToDevice = 3,
  cudaMemcpyDefault = 4
};
enum hipMemcpyKind {
  hipMemcpyHostToHost = 0,
  hipMemcpyHostToDevice = 1,
  hipMemcpyDeviceToHost = 2,
  hipMemcpyDeviceToDevice = 3,
  hipMemcpyDefault = 4
};

// A device's properties, with the members host code reads most (cudaGetDeviceProperties,
// which fills them in, needs a runtime).
#define FL_DEVICE_PROP_MEMBERS      \
  char name[256];                   \
  size_t totalGlobalMem;            \
  size_t sharedMemPerBlock;         \
  int regsPerBlock;                 \
  int warpSize;                     \
  size_t memPitch;                  \
  int maxThreadsPerBlock;           \
  int maxThreadsDim[3];             \
  int maxGridSize[3];               \
  int clockRate;                    \
  size_t totalConstMem;             \
  int major;                        \
  int minor;                        \
  int multiProcessorCount;          \
  int memoryBusWidth;               \
  int l2CacheSize;                  \
  int maxThreadsPerMultiProcessor;  \
  size_t sharedMemPerMultiprocessor;\
  int regsPerMultiprocessor;
struct cudaDeviceProp { FL_DEVICE_PROP_MEMBERS };
struct hipDeviceProp_t { FL_DEVICE_PROP_MEMBERS char gcnArchName[256]; };
#undef FL_DEVICE_PROP_MEMBERS

#endif
