// <Python.h> in a kernel source: fuselab/python_types.h.
extern "C++" {
#include <fuselab/python_types.h>
}
