// <channel_descriptor.h> for run-time compiled kernels: the runtime's host-side
// makers of a texture's channel format (cudaCreateChannelDesc), which NVRTC refuses
// as __host__ functions. Sources include it for their host code; it declares nothing
// here, and a call left in the source is reported as undeclared.
#ifndef FUSELAB_RTC_CHANNEL_DESCRIPTOR_H
#define FUSELAB_RTC_CHANNEL_DESCRIPTOR_H
#endif
