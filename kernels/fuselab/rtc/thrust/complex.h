// <thrust/complex.h> for run-time compiled kernels: under NVRTC thrust::complex<T>
// as the toolkit's cuda::std::complex<T>, with its functions; under hiprtc, for
// host code only.
#ifndef FUSELAB_RTC_THRUST_COMPLEX_H
#define FUSELAB_RTC_THRUST_COMPLEX_H
#include <fuselab/thrust_version.h>
#include <complex>
#if defined(__CUDACC_RTC__)
namespace thrust {
template <typename T>
using complex = ::cuda::std::complex<T>;
using ::cuda::std::abs; using ::cuda::std::arg; using ::cuda::std::norm; using ::cuda::std::conj; using ::cuda::std::proj;
using ::cuda::std::polar; using ::cuda::std::exp; using ::cuda::std::log; using ::cuda::std::log10; using ::cuda::std::pow;
using ::cuda::std::sqrt; using ::cuda::std::sin; using ::cuda::std::cos; using ::cuda::std::tan; using ::cuda::std::sinh;
using ::cuda::std::cosh; using ::cuda::std::tanh; using ::cuda::std::asin; using ::cuda::std::acos; using ::cuda::std::atan;
using ::cuda::std::asinh; using ::cuda::std::acosh; using ::cuda::std::atanh;
}  // namespace thrust
#endif
#endif
