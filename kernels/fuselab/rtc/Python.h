// <Python.h> in a kernel source: fuselab/python_types.h.
#include <fuselab/python_types.h>
