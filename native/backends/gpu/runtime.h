// The GPU runtime API under one set of names, so that one backend source builds
// against CUDA (FL_GPU_CUDA: libfuselab_cuda.so) and HIP (FL_GPU_HIP:
// libfuselab_hip.so). Only what the backend uses is mapped.
#ifndef FUSELAB_GPU_RUNTIME_H
#define FUSELAB_GPU_RUNTIME_H

#include <string>

#if defined(FL_GPU_HIP)

#include <hip/hip_runtime_api.h>

#define FL_GPU_BACKEND_NAME "hip"
#define FL_GPU_VENDOR "HIP"
#define FL_GPU_API "hip"          // prefix of the runtime's function names, for error texts
#define FL_RTC_API "hiprtc"       // prefix of the run-time compiler's function names
#define FL_RTC_PRODUCT "hiprtc"
#define FL_RTC_GET_CODE "hiprtcGetCode"
#define FL_RTC_GET_CODE_SIZE "hiprtcGetCodeSize"
#define FL_RTC_PROGRAM_NAME "kernel.hip"
#define FL_GPU_RUNTIME_LINKAGE " (libamdhip64)"

#define gpuError_t hipError_t
#define gpuSuccess hipSuccess
#define gpuGetErrorName hipGetErrorName
#define gpuGetErrorString hipGetErrorString
#define gpuGetLastError hipGetLastError
#define gpuGetDeviceCount hipGetDeviceCount
#define gpuSetDevice hipSetDevice
#define gpuDeviceProp hipDeviceProp_t
#define gpuGetDeviceProperties hipGetDeviceProperties
#define gpuDeviceGetAttribute hipDeviceGetAttribute
#define gpuDevAttrMemoryClockRate hipDeviceAttributeMemoryClockRate
#define gpuDevAttrGlobalMemoryBusWidth hipDeviceAttributeMemoryBusWidth
#define gpuDevAttrMaxSharedMemoryPerBlockOptin hipDeviceAttributeSharedMemPerBlockOptin
#define gpuDriverGetVersion hipDriverGetVersion
#define gpuRuntimeGetVersion hipRuntimeGetVersion
#define gpuStream_t hipStream_t
#define gpuStreamCreateWithFlags hipStreamCreateWithFlags
#define gpuStreamNonBlocking hipStreamNonBlocking
#define gpuStreamDestroy hipStreamDestroy
#define gpuStreamSynchronize hipStreamSynchronize
#define gpuStreamQuery hipStreamQuery
#define gpuErrorNotReady hipErrorNotReady
#define gpuMalloc hipMalloc
#define gpuFree hipFree
#define gpuMemcpyAsync hipMemcpyAsync
#define gpuMemcpyKind hipMemcpyKind
#define gpuMemcpyHostToDevice hipMemcpyHostToDevice
#define gpuMemcpyDeviceToHost hipMemcpyDeviceToHost
#define gpuMemcpyDeviceToDevice hipMemcpyDeviceToDevice
#define gpuMemsetAsync hipMemsetAsync
#define gpuLaunchKernel hipLaunchKernel
#define gpuFuncAttributes hipFuncAttributes
#define gpuFuncGetAttributes hipFuncGetAttributes
#define gpuFuncSetAttribute hipFuncSetAttribute
#define gpuFuncAttributeMaxDynamicSharedMemorySize hipFuncAttributeMaxDynamicSharedMemorySize
#define gpuOccupancyMaxActiveBlocksPerMultiprocessor hipOccupancyMaxActiveBlocksPerMultiprocessor
#define gpuEvent_t hipEvent_t
#define gpuEventCreate hipEventCreate
#define gpuEventRecord hipEventRecord
#define gpuEventSynchronize hipEventSynchronize
#define gpuEventQuery hipEventQuery
#define gpuEventElapsedTime hipEventElapsedTime
#define gpuEventDestroy hipEventDestroy

namespace fl::gpu {

// Errors after which the device's state is undefined and every later call
// fails the same way: the process must be restarted to use it again.
inline bool is_sticky(hipError_t e) {
  return e == hipErrorIllegalAddress || e == hipErrorLaunchTimeOut || e == hipErrorAssert ||
         e == hipErrorLaunchFailure;
}
// What a sticky error says about the kernel that caused it, in plain words.
inline const char* sticky_meaning(hipError_t e) {
  switch (e) {
    case hipErrorAssert: return "a kernel's device-side assert failed (the GPU printed which one, with its block and thread, on stderr)";
    case hipErrorIllegalAddress: return "a kernel read or wrote memory outside its buffers";
    case hipErrorLaunchTimeOut: return "a kernel ran past the driver's time limit";
    default: return "a kernel crashed (an illegal instruction, __trap() or abort())";
  }
}
// hipGetDeviceCount's answers when there is no usable driver or no device.
inline bool means_no_driver(hipError_t e) {
  return e == hipErrorInsufficientDriver || e == hipErrorNotInitialized;
}
inline bool means_no_device(hipError_t e) { return e == hipErrorNoDevice; }

// HIP versions are major * 10000000 + minor * 100000 + patch.
inline std::string version_text(int v) {
  return std::to_string(v / 10000000) + "." + std::to_string((v / 100000) % 100) + "." +
         std::to_string(v % 100000);
}

// "gfx90a" from "gfx90a:sramecc+:xnack-".
inline std::string arch_of(const hipDeviceProp_t& p) {
  std::string full = p.gcnArchName;
  return full.substr(0, full.find(':'));
}
// The run-time compiler targets the device's exact ISA, features included.
inline std::string rtc_arch(const hipDeviceProp_t& p) { return p.gcnArchName; }

}  // namespace fl::gpu

#else  // CUDA

#include <cuda_runtime_api.h>

#define FL_GPU_BACKEND_NAME "cuda"
#define FL_GPU_VENDOR "CUDA"
#define FL_GPU_API "cuda"
#define FL_RTC_API "nvrtc"
#define FL_RTC_PRODUCT "NVRTC"
#define FL_RTC_GET_CODE "nvrtcGetCUBIN"
#define FL_RTC_GET_CODE_SIZE "nvrtcGetCUBINSize"
#define FL_RTC_PROGRAM_NAME "kernel.cu"
#define FL_GPU_RUNTIME_LINKAGE " (cudart linked statically)"

#define gpuError_t cudaError_t
#define gpuSuccess cudaSuccess
#define gpuGetErrorName cudaGetErrorName
#define gpuGetErrorString cudaGetErrorString
#define gpuGetLastError cudaGetLastError
#define gpuGetDeviceCount cudaGetDeviceCount
#define gpuSetDevice cudaSetDevice
#define gpuDeviceProp cudaDeviceProp
#define gpuGetDeviceProperties cudaGetDeviceProperties
#define gpuDeviceGetAttribute cudaDeviceGetAttribute
#define gpuDevAttrMemoryClockRate cudaDevAttrMemoryClockRate
#define gpuDevAttrGlobalMemoryBusWidth cudaDevAttrGlobalMemoryBusWidth
#define gpuDevAttrMaxSharedMemoryPerBlockOptin cudaDevAttrMaxSharedMemoryPerBlockOptin
#define gpuDriverGetVersion cudaDriverGetVersion
#define gpuRuntimeGetVersion cudaRuntimeGetVersion
#define gpuStream_t cudaStream_t
#define gpuStreamCreateWithFlags cudaStreamCreateWithFlags
#define gpuStreamNonBlocking cudaStreamNonBlocking
#define gpuStreamDestroy cudaStreamDestroy
#define gpuStreamSynchronize cudaStreamSynchronize
#define gpuStreamQuery cudaStreamQuery
#define gpuErrorNotReady cudaErrorNotReady
#define gpuMalloc cudaMalloc
#define gpuFree cudaFree
#define gpuMemcpyAsync cudaMemcpyAsync
#define gpuMemcpyKind cudaMemcpyKind
#define gpuMemcpyHostToDevice cudaMemcpyHostToDevice
#define gpuMemcpyDeviceToHost cudaMemcpyDeviceToHost
#define gpuMemcpyDeviceToDevice cudaMemcpyDeviceToDevice
#define gpuMemsetAsync cudaMemsetAsync
#define gpuLaunchKernel cudaLaunchKernel
#define gpuFuncAttributes cudaFuncAttributes
#define gpuFuncGetAttributes cudaFuncGetAttributes
#define gpuFuncSetAttribute cudaFuncSetAttribute
#define gpuFuncAttributeMaxDynamicSharedMemorySize cudaFuncAttributeMaxDynamicSharedMemorySize
#define gpuOccupancyMaxActiveBlocksPerMultiprocessor cudaOccupancyMaxActiveBlocksPerMultiprocessor
#define gpuEvent_t cudaEvent_t
#define gpuEventCreate cudaEventCreate
#define gpuEventRecord cudaEventRecord
#define gpuEventSynchronize cudaEventSynchronize
#define gpuEventQuery cudaEventQuery
#define gpuEventElapsedTime cudaEventElapsedTime
#define gpuEventDestroy cudaEventDestroy

namespace fl::gpu {

// The errors the CUDA runtime documents as leaving the process in an
// inconsistent state: every later call fails the same way until it restarts.
inline bool is_sticky(cudaError_t e) {
  switch (e) {
    case cudaErrorContained:
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchTimeout:
    case cudaErrorAssert:
    case cudaErrorHardwareStackError:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorLaunchFailure:
    case cudaErrorTensorMemoryLeak:
    case cudaErrorMpsClientTerminated:
    case cudaErrorExternalDevice:
      return true;
    default:
      return false;
  }
}
// What a sticky error says about the kernel that caused it, in plain words.
inline const char* sticky_meaning(cudaError_t e) {
  switch (e) {
    case cudaErrorAssert: return "a kernel's device-side assert failed (the GPU printed which one, with its block and thread, on stderr)";
    case cudaErrorIllegalAddress: return "a kernel read or wrote memory outside its buffers";
    case cudaErrorMisalignedAddress: return "a kernel made a misaligned access (a vector load or store from an address that is not a multiple of its size)";
    case cudaErrorLaunchTimeout: return "a kernel ran past the driver's time limit";
    case cudaErrorIllegalInstruction: return "a kernel executed an illegal instruction";
    case cudaErrorHardwareStackError: return "a kernel overflowed its stack";
    case cudaErrorLaunchFailure: return "a kernel crashed (an unspecified launch failure, as __trap() causes)";
    default: return "the GPU context failed";
  }
}
// cudaGetDeviceCount's answers when libcuda.so is missing, is a stub, or is
// older than this runtime.
inline bool means_no_driver(cudaError_t e) {
  return e == cudaErrorInsufficientDriver || e == cudaErrorStubLibrary ||
         e == cudaErrorInitializationError || e == cudaErrorCompatNotSupportedOnDevice ||
         e == cudaErrorSystemDriverMismatch;
}
inline bool means_no_device(cudaError_t e) { return e == cudaErrorNoDevice; }

// CUDA versions are major * 1000 + minor * 10.
inline std::string version_text(int v) {
  return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
}

inline std::string arch_of(const cudaDeviceProp& p) {
  return "sm_" + std::to_string(p.major) + std::to_string(p.minor);
}
// NVRTC builds a CUBIN for the device's own architecture (no PTX JIT at load).
inline std::string rtc_arch(const cudaDeviceProp& p) { return arch_of(p); }

}  // namespace fl::gpu

#endif
#endif
