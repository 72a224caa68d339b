// <hip/cooperative_groups/hip_scan.h>: cooperative groups' scans, as CUDA's <cooperative_groups/scan.h> gives them.
#include <hip/hip_cooperative_groups.h>
#include <cooperative_groups/scan.h>
