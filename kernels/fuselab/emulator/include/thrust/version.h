// <thrust/version.h>: thrust's version (fuselab/thrust_version.h).
#include <fuselab/thrust_version.h>
