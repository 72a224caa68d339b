// <thrust/functional.h> on the CPU emulator and under NVRTC: thrust's function
// objects, which device code passes to cub (`BlockScan(...).InclusiveScan(in,
// out, thrust::plus<float>())`). Each is a `__host__ __device__` functor of T;
// of `void`, transparent, as thrust's are.
#ifndef FUSELAB_THRUST_FUNCTIONAL_H
#define FUSELAB_THRUST_FUNCTIONAL_H
#include <fuselab/thrust_version.h>

namespace thrust {

#define FL_THRUST_BINARY(name, R, expression)                                                     \
  template <typename T = void>                                                                    \
  struct name {                                                                                   \
    typedef T first_argument_type;                                                                \
    typedef T second_argument_type;                                                               \
    typedef R result_type;                                                                        \
    __host__ __device__ constexpr R operator()(const T& a, const T& b) const { return expression; } \
  };                                                                                              \
  template <>                                                                                     \
  struct name<void> {                                                                             \
    template <typename A, typename B>                                                             \
    __host__ __device__ constexpr auto operator()(const A& a, const B& b) const -> decltype(expression) { \
      return expression;                                                                          \
    }                                                                                             \
  };
FL_THRUST_BINARY(plus, T, a + b)
FL_THRUST_BINARY(minus, T, a - b)
FL_THRUST_BINARY(multiplies, T, a * b)
FL_THRUST_BINARY(divides, T, a / b)
FL_THRUST_BINARY(modulus, T, a % b)
FL_THRUST_BINARY(maximum, T, a < b ? b : a)
FL_THRUST_BINARY(minimum, T, a < b ? a : b)
FL_THRUST_BINARY(bit_and, T, a & b)
FL_THRUST_BINARY(bit_or, T, a | b)
FL_THRUST_BINARY(bit_xor, T, a ^ b)
FL_THRUST_BINARY(equal_to, bool, a == b)
FL_THRUST_BINARY(not_equal_to, bool, a != b)
FL_THRUST_BINARY(greater, bool, a > b)
FL_THRUST_BINARY(less, bool, a < b)
FL_THRUST_BINARY(greater_equal, bool, a >= b)
FL_THRUST_BINARY(less_equal, bool, a <= b)
FL_THRUST_BINARY(logical_and, bool, a && b)
FL_THRUST_BINARY(logical_or, bool, a || b)
#undef FL_THRUST_BINARY

template <typename T = void>
struct negate {
  __host__ __device__ constexpr T operator()(const T& a) const { return -a; }
};
template <typename T = void>
struct logical_not {
  __host__ __device__ constexpr bool operator()(const T& a) const { return !a; }
};
template <typename T = void>
struct identity {
  __host__ __device__ constexpr const T& operator()(const T& a) const { return a; }
};

}  // namespace thrust

#endif
