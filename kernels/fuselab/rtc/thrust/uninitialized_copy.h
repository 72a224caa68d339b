// <thrust/uninitialized_copy.h>: host code only (fuselab/thrust_host_only.h).
#include <fuselab/thrust_host_only.h>
