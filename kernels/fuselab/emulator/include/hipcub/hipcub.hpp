// <hipcub/hipcub.hpp> on the CPU emulator: cub's block and warp primitives.
#ifndef FUSELAB_EMULATOR_INCLUDE_HIPCUB_HIPCUB_HPP
#define FUSELAB_EMULATOR_INCLUDE_HIPCUB_HIPCUB_HPP
#include <fuselab/fuselab.h>
#include <fuselab/emulator/cub.h>
#endif
