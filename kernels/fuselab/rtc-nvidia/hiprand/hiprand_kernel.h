// hipRAND's device header: see fuselab/hiprand_device.h.
#include <fuselab/hiprand_device.h>
