// hipRAND's device header by its older name: see fuselab/hiprand_device.h.
#include <fuselab/hiprand_device.h>
