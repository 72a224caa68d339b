// HIP's own device-side spellings that CUDA lacks, for the targets where HIP is
// not the native language (NVIDIA GPUs, the CPU emulator): a HIP source then
// compiles there as written. On AMD, hipcc and hiprtc define them.
#ifndef FUSELAB_HIP_SPELLINGS_H
#define FUSELAB_HIP_SPELLINGS_H

#define HIP_DYNAMIC_SHARED(type, var) FL_DYNAMIC_SHARED(type, var);
#define HIP_DYNAMIC_SHARED_ATTRIBUTE
#define HIP_KERNEL_NAME(...) __VA_ARGS__

// The coordinates as HIP's first releases spelled them; samples still use them.
#define hipThreadIdx_x (threadIdx.x)
#define hipThreadIdx_y (threadIdx.y)
#define hipThreadIdx_z (threadIdx.z)
#define hipBlockIdx_x (blockIdx.x)
#define hipBlockIdx_y (blockIdx.y)
#define hipBlockIdx_z (blockIdx.z)
#define hipBlockDim_x (blockDim.x)
#define hipBlockDim_y (blockDim.y)
#define hipBlockDim_z (blockDim.z)
#define hipGridDim_x (gridDim.x)
#define hipGridDim_y (gridDim.y)
#define hipGridDim_z (gridDim.z)

// The calling thread's lane in its warp (wavefront).
__device__ __forceinline__ unsigned int __lane_id() {
  return (threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z)) % warpSize;
}

#endif
