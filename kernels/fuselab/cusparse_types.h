// What <cusparse.h> gives a kernel source here: the host library's handle,
// descriptor and enum types, at cuSPARSE's values, so that a source's host
// declarations and error checks compile beside its kernels (launches come from
// TypeScript), and no function: a host function calling the library is left out.
#ifndef FUSELAB_CUSPARSE_TYPES_H
#define FUSELAB_CUSPARSE_TYPES_H

typedef enum {
  CUSPARSE_STATUS_SUCCESS = 0,
  CUSPARSE_STATUS_NOT_INITIALIZED = 1,
  CUSPARSE_STATUS_ALLOC_FAILED = 2,
  CUSPARSE_STATUS_INVALID_VALUE = 3,
  CUSPARSE_STATUS_ARCH_MISMATCH = 4,
  CUSPARSE_STATUS_MAPPING_ERROR = 5,
  CUSPARSE_STATUS_EXECUTION_FAILED = 6,
  CUSPARSE_STATUS_INTERNAL_ERROR = 7,
  CUSPARSE_STATUS_MATRIX_TYPE_NOT_SUPPORTED = 8,
  CUSPARSE_STATUS_ZERO_PIVOT = 9,
  CUSPARSE_STATUS_NOT_SUPPORTED = 10,
  CUSPARSE_STATUS_INSUFFICIENT_RESOURCES = 11
} cusparseStatus_t;

typedef enum {
  CUSPARSE_OPERATION_NON_TRANSPOSE = 0,
  CUSPARSE_OPERATION_TRANSPOSE = 1,
  CUSPARSE_OPERATION_CONJUGATE_TRANSPOSE = 2
} cusparseOperation_t;

typedef enum { CUSPARSE_INDEX_BASE_ZERO = 0, CUSPARSE_INDEX_BASE_ONE = 1 } cusparseIndexBase_t;
typedef enum { CUSPARSE_INDEX_16U = 1, CUSPARSE_INDEX_32I = 2, CUSPARSE_INDEX_64I = 3 } cusparseIndexType_t;
typedef enum { CUSPARSE_ORDER_COL = 1, CUSPARSE_ORDER_ROW = 2 } cusparseOrder_t;

struct cusparseContext;
typedef struct cusparseContext* cusparseHandle_t;
struct cusparseMatDescr;
typedef struct cusparseMatDescr* cusparseMatDescr_t;
struct cusparseSpVecDescr;
typedef struct cusparseSpVecDescr* cusparseSpVecDescr_t;
struct cusparseDnVecDescr;
typedef struct cusparseDnVecDescr* cusparseDnVecDescr_t;
struct cusparseSpMatDescr;
typedef struct cusparseSpMatDescr* cusparseSpMatDescr_t;
struct cusparseDnMatDescr;
typedef struct cusparseDnMatDescr* cusparseDnMatDescr_t;

#endif
