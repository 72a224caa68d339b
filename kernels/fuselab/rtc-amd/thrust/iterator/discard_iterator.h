// <thrust/iterator/discard_iterator.h> under hiprtc: host code only (fuselab/thrust_host_only.h).
// NVIDIA GPUs take the toolkit's, which cub includes.
#include <fuselab/thrust_host_only.h>
