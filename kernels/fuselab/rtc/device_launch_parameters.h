// <device_launch_parameters.h> for run-time compiled kernels: NVRTC declares the device side of the
// runtime (built-in variables, vector types, intrinsics) itself.
#ifndef FUSELAB_RTC_DEVICE_LAUNCH_PARAMETERS_H
#define FUSELAB_RTC_DEVICE_LAUNCH_PARAMETERS_H
#endif
