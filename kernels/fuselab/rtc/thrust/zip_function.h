// <thrust/zip_function.h>: host code only (fuselab/thrust_host_only.h).
#include <fuselab/thrust_host_only.h>
