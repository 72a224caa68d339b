// <hipcub/hipcub.hpp> on the CPU emulator: cub's block and warp primitives.
#ifndef FUSELAB_EMULATOR_INCLUDE_HIPCUB_HIPCUB_HPP
#define FUSELAB_EMULATOR_INCLUDE_HIPCUB_HIPCUB_HPP
#include <hip/hip_runtime.h>
#include <fuselab/emulator/cub_block_items.h>
// hipCUB is cub under another namespace.
namespace hipcub {
using namespace ::cub;
}
#endif
