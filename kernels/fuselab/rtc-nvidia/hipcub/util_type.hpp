// <hipcub/util_type.hpp> for a HIP source compiled by NVRTC: cub's, under hipCUB's name.
#include <hipcub/hipcub.hpp>
#include <cub/util_type.cuh>
