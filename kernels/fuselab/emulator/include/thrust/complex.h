// <thrust/complex.h> on the CPU emulator: thrust::complex<T> in device code, as
// std::complex<T> (device code here is the host's C++), with its functions.
#ifndef FUSELAB_EMULATOR_INCLUDE_THRUST_COMPLEX_H
#define FUSELAB_EMULATOR_INCLUDE_THRUST_COMPLEX_H
#include <fuselab/thrust_version.h>
#include <complex>
namespace thrust {
template <typename T>
using complex = std::complex<T>;
using std::abs; using std::arg; using std::norm; using std::conj; using std::proj; using std::polar;
using std::exp; using std::log; using std::log10; using std::pow; using std::sqrt;
using std::sin; using std::cos; using std::tan; using std::sinh; using std::cosh; using std::tanh;
using std::asin; using std::acos; using std::atan; using std::asinh; using std::acosh; using std::atanh;
}  // namespace thrust
#endif
