// <thrust/tuple.h> under hiprtc, which has no C++ library's tuple: host code only
// (fuselab/thrust_host_only.h). NVIDIA GPUs take the toolkit's, which cub includes.
#include <fuselab/thrust_host_only.h>
