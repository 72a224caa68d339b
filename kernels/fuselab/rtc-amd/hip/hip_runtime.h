// <hip/hip_runtime.h> for hiprtc: hiprtc compiles every source with HIP's runtime already
// included, and some releases have no file of this name to find.
