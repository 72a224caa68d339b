// <cusparse.h> in a kernel source: fuselab/cusparse_types.h.
extern "C++" {
#include <fuselab/cusparse_types.h>
}
