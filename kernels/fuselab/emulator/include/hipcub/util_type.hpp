// <hipcub/util_type.hpp> on the CPU emulator: what the emulator gives of hipCUB.
#include <hipcub/hipcub.hpp>
