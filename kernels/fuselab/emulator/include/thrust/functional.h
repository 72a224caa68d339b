// <thrust/functional.h>: thrust's function objects (fuselab/thrust_functional.h).
#include <fuselab/thrust_functional.h>
