// <cusparse.h> in a kernel source: fuselab/cusparse_types.h.
#include <fuselab/cusparse_types.h>
