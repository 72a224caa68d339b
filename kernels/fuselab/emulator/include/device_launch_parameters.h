// <device_launch_parameters.h> on the CPU emulator: the kernel language of fuselab/fuselab.h.
#ifndef FUSELAB_EMULATOR_INCLUDE_DEVICE_LAUNCH_PARAMETERS_H
#define FUSELAB_EMULATOR_INCLUDE_DEVICE_LAUNCH_PARAMETERS_H
#include <fuselab/fuselab.h>
#endif
