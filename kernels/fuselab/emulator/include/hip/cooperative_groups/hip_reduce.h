// <hip/cooperative_groups/hip_reduce.h>: cooperative groups' reduce, as CUDA's <cooperative_groups/reduce.h> gives it.
#include <hip/hip_cooperative_groups.h>
#include <cooperative_groups/reduce.h>
