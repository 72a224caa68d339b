// <thrust/tuple.h> for run-time compiled kernels: thrust::tuple in device code, as
// the toolkit's C++ library's tuple under NVRTC (<tuple>), with get, make_tuple and tie.
#ifndef FUSELAB_RTC_THRUST_TUPLE_H
#define FUSELAB_RTC_THRUST_TUPLE_H
#include <tuple>
namespace thrust {
using std::get; using std::make_tuple; using std::tie; using std::tuple; using std::tuple_element; using std::tuple_size;
}  // namespace thrust
#endif
