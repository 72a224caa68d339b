// <thrust/tuple.h> on the CPU emulator: thrust::tuple in host and device code, as
// std::tuple (device code here is the host's C++), with get, make_tuple and tie
// (a __host__ __device__ comparator of index pairs, thrust::tuple<int, int>).
#ifndef FUSELAB_EMULATOR_INCLUDE_THRUST_TUPLE_H
#define FUSELAB_EMULATOR_INCLUDE_THRUST_TUPLE_H
#include <fuselab/thrust_version.h>
#include <tuple>
namespace thrust {
using std::get; using std::make_tuple; using std::tie; using std::tuple; using std::tuple_element; using std::tuple_size;
}  // namespace thrust
#endif
