// <mpi.h> in a kernel source: fuselab/mpi_types.h.
#include <fuselab/mpi_types.h>
