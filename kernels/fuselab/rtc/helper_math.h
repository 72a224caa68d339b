// <helper_math.h>, the CUDA samples' vector math: fuselab/helper_math.h.
extern "C++" {
#include <fuselab/helper_math.h>
}
