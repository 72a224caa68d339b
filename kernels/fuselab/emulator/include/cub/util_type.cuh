// <cub/util_type.cuh> on the CPU emulator: what the emulator gives of cub.
#include <cub/cub.cuh>
