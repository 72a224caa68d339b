// <malloc.h> for run-time compiled kernels: what <stdlib.h> gives (device code has malloc and free).
extern "C++" {
#include <stdlib.h>
}
