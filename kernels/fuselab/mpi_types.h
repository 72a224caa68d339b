// MPI's handle and status types, which a multi-GPU course's source names in host
// declarations beside its kernels (ENCCS's heat-equation stencil includes <mpi.h>):
// the <mpi.h> of the CPU emulator, NVRTC and hiprtc. MPI's calls are host code, and
// launches come from TS; a call left in device code is reported as undeclared.
#ifndef FUSELAB_MPI_TYPES_H
#define FUSELAB_MPI_TYPES_H
typedef struct fl_mpi_communicator* MPI_Comm;
typedef struct fl_mpi_datatype* MPI_Datatype;
typedef struct fl_mpi_operation* MPI_Op;
typedef struct fl_mpi_request* MPI_Request;
typedef struct fl_mpi_info* MPI_Info;
typedef struct fl_mpi_group* MPI_Group;
typedef struct {
  int MPI_SOURCE, MPI_TAG, MPI_ERROR;
} MPI_Status;
#endif
