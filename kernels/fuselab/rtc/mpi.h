// <mpi.h> in a kernel source: fuselab/mpi_types.h.
extern "C++" {
#include <fuselab/mpi_types.h>
}
