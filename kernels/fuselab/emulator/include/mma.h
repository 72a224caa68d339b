// <mma.h> on the CPU emulator: CUDA's warp matrix functions (nvcuda::wmma), the
// tensor-core API of sm_70 and later, for the shapes and types the toolkit has:
// __half and __nv_bfloat16 (m16n16k16, m32n8k16, m8n32k16) with float or half
// accumulators, signed and unsigned char with int accumulators on the same
// shapes, precision::tf32 (m16n16k8) and double (m8n8k4).
//
// A fragment holds as many elements a lane as the GPU's does, so a source's
// element-wise loops over frag.x[0 .. num_elements) work as written; which
// element of the matrix each slot holds is the GPU's own business (CUDA leaves
// it unspecified), and here slot i of lane l holds element (l * num_elements + i)
// modulo the matrix's size, in row-major order. mma_sync is a warp operation:
// the warp's lanes put their fragments together in a scratch area of the
// warp's, meet, compute their slots of d = a * b + c, and meet again. Products
// are exact and sums are taken in double (int64 for integers), then rounded once
// to the accumulator's type: a GPU's tensor cores sum in another order, and
// their float results may differ from these in the last bits. tf32 inputs are
// read as the tensor cores read them, to their 10 bits of mantissa.
#ifndef FUSELAB_EMULATOR_INCLUDE_MMA_H
#define FUSELAB_EMULATOR_INCLUDE_MMA_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include <limits>
#include <type_traits>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

namespace fl::emu {
// A warp's scratch for mma_sync: A, B and C as doubles, for the largest shapes
// (the run time's own, not the kernel's __shared__ memory).
inline double* wmma_scratch(unsigned thread) {
  constexpr int kDoubles = 32 * 16 + 16 * 32 + 16 * 16;
  static thread_local double scratch[1024 / 32][kDoubles];
  return scratch[thread / 32 % (1024 / 32)];
}
}  // namespace fl::emu

namespace nvcuda {
namespace wmma {

struct matrix_a {};
struct matrix_b {};
struct accumulator {};
struct row_major {};
struct col_major {};
enum layout_t { mem_row_major, mem_col_major };

namespace precision {
struct tf32 {};
}

namespace detail {

template <typename T> struct storage { using type = T; };
template <> struct storage<precision::tf32> { using type = float; };

// The matrix a fragment holds: A is m x k, B is k x n, the accumulator m x n.
template <typename Use, int m, int n, int k> struct shape;
template <int m, int n, int k> struct shape<matrix_a, m, n, k> { static constexpr int rows = m, cols = k; };
template <int m, int n, int k> struct shape<matrix_b, m, n, k> { static constexpr int rows = k, cols = n; };
template <int m, int n, int k> struct shape<accumulator, m, n, k> { static constexpr int rows = m, cols = n; };

template <int m, int n, int k> constexpr bool is_16bit_shape() {
  return (m == 16 && n == 16 && k == 16) || (m == 32 && n == 8 && k == 16) || (m == 8 && n == 32 && k == 16);
}
template <typename T> constexpr bool is_16bit_input() {
  return std::is_same<T, __half>::value || std::is_same<T, __nv_bfloat16>::value || std::is_same<T, signed char>::value ||
         std::is_same<T, unsigned char>::value;
}
// The shapes and types the toolkit's mma.h declares (sub-byte types aside).
template <typename Use, int m, int n, int k, typename T> constexpr bool supported() {
  if (std::is_same<Use, accumulator>::value) {
    if (is_16bit_shape<m, n, k>()) return std::is_same<T, float>::value || std::is_same<T, __half>::value || std::is_same<T, int>::value;
    if (m == 16 && n == 16 && k == 8) return std::is_same<T, float>::value;
    return m == 8 && n == 8 && k == 4 && std::is_same<T, double>::value;
  }
  if (is_16bit_shape<m, n, k>()) return is_16bit_input<T>();
  if (m == 16 && n == 16 && k == 8) return std::is_same<T, precision::tf32>::value;
  return m == 8 && n == 8 && k == 4 && std::is_same<T, double>::value;
}
// Elements a lane holds, as the GPU's fragment declares them: one matrix's share
// a lane, but 16 for __half's A and B on every shape (their sm_70 layout).
template <typename Use, int m, int n, int k, typename T> constexpr int lane_elements() {
  return !std::is_same<Use, accumulator>::value && std::is_same<T, __half>::value ? 16
                                                                                : shape<Use, m, n, k>::rows * shape<Use, m, n, k>::cols / 32;
}

using ::fl::emu::linear_thread;

inline double value_of(double v) { return v; }
inline double value_of(float v) { return v; }
inline double value_of(int v) { return v; }
inline double value_of(signed char v) { return v; }
inline double value_of(unsigned char v) { return v; }
inline double value_of(__half v) { return static_cast<float>(v); }
inline double value_of(__nv_bfloat16 v) { return static_cast<float>(v); }

// The bits a tensor core reads of a tf32 operand: sign, exponent, 10 of the mantissa.
inline double tf32_value(float v) {
  uint32_t bits;
  memcpy(&bits, &v, sizeof bits);
  if ((bits & 0x7f800000u) != 0x7f800000u) bits &= 0xffffe000u;
  float kept;
  memcpy(&kept, &bits, sizeof kept);
  return kept;
}

template <typename T> inline T rounded(double sum, bool satf) {
  if constexpr (std::is_same<T, int>::value) {
    const int64_t whole = static_cast<int64_t>(sum);
    if (satf) return whole > INT32_MAX ? INT32_MAX : whole < INT32_MIN ? INT32_MIN : static_cast<int>(whole);
    return static_cast<int>(static_cast<uint32_t>(static_cast<uint64_t>(whole)));
  } else {
    // Rounded once from the double: a __half from it directly, not through a float.
    T result;
    if constexpr (std::is_same<T, double>::value) result = sum;
    else if constexpr (std::is_same<T, float>::value) result = static_cast<float>(sum);
    else result = T(sum);
    if (satf) {
      const double v = value_of(result);
      if (v != v) return T(0.0f);
      const double largest = std::is_same<T, __half>::value ? 65504.0 : std::is_same<T, float>::value ? 3.4028234663852886e38 : 1.7976931348623157e308;
      if (v > largest) return T(static_cast<float>(largest));
      if (v < -largest) return T(static_cast<float>(-largest));
    }
    return result;
  }
}

}  // namespace detail

template <typename Use, int m, int n, int k, typename T, typename Layout = void>
class fragment {
  static_assert(detail::supported<Use, m, n, k, T>(),
                "this wmma fragment's shape and element type are not ones CUDA's tensor cores take (or a sub-byte type, "
                "which the CPU emulator does not model)");

 public:
  using element_type = T;
  using storage_element_type = typename detail::storage<T>::type;
  enum { num_elements = detail::lane_elements<Use, m, n, k, T>() };
  enum { num_storage_elements = num_elements };
  alignas(8) storage_element_type x[num_elements];
};

namespace detail {

// Where slot i of this lane lies in the matrix (row-major index).
template <typename Use, int m, int n, int k, typename T> inline int element_of(int i) {
  const int lane = static_cast<int>(linear_thread() % 32);
  return (lane * lane_elements<Use, m, n, k, T>() + i) % (shape<Use, m, n, k>::rows * shape<Use, m, n, k>::cols);
}
template <typename Use, int m, int n, int k> inline long offset_of(int element, unsigned ldm, bool row_major_memory) {
  const int cols = shape<Use, m, n, k>::cols;
  const long r = element / cols, c = element % cols;
  return row_major_memory ? r * ldm + c : c * ldm + r;
}

template <typename Use, int m, int n, int k, typename T, typename Layout, typename Pointer>
inline void load(fragment<Use, m, n, k, T, Layout>& f, const Pointer* p, unsigned ldm, bool row_major_memory) {
  for (int i = 0; i < f.num_elements; i++) f.x[i] = p[offset_of<Use, m, n, k>(element_of<Use, m, n, k, T>(i), ldm, row_major_memory)];
}

}  // namespace detail

template <typename Use, int m, int n, int k, typename T, typename Layout>
inline void fill_fragment(fragment<Use, m, n, k, T, Layout>& f, const typename detail::storage<T>::type& value) {
  for (int i = 0; i < f.num_elements; i++) f.x[i] = value;
}

template <typename Use, int m, int n, int k, typename T, typename Layout>
inline void load_matrix_sync(fragment<Use, m, n, k, T, Layout>& f, const typename detail::storage<T>::type* p, unsigned ldm) {
  static_assert(!std::is_same<Use, accumulator>::value, "an accumulator fragment's load_matrix_sync takes a layout_t (mem_row_major or mem_col_major)");
  static_assert(std::is_same<Layout, row_major>::value || std::is_same<Layout, col_major>::value,
                "a matrix_a or matrix_b fragment names its layout: wmma::row_major or wmma::col_major");
  detail::load(f, p, ldm, std::is_same<Layout, row_major>::value);
}
template <int m, int n, int k, typename T>
inline void load_matrix_sync(fragment<accumulator, m, n, k, T>& f, const T* p, unsigned ldm, layout_t layout) {
  detail::load(f, p, ldm, layout == mem_row_major);
}
template <int m, int n, int k, typename T>
inline void store_matrix_sync(T* p, const fragment<accumulator, m, n, k, T>& f, unsigned ldm, layout_t layout) {
  for (int i = 0; i < f.num_elements; i++)
    p[detail::offset_of<accumulator, m, n, k>(detail::element_of<accumulator, m, n, k, T>(i), ldm, layout == mem_row_major)] = f.x[i];
}

template <int m, int n, int k, typename Td, typename Ta, typename La, typename Tb, typename Lb, typename Tc>
inline void mma_sync(fragment<accumulator, m, n, k, Td>& d, const fragment<matrix_a, m, n, k, Ta, La>& a,
                     const fragment<matrix_b, m, n, k, Tb, Lb>& b, const fragment<accumulator, m, n, k, Tc>& c, bool satf = false) {
  static_assert(std::is_same<Ta, Tb>::value, "mma_sync's A and B fragments have one element type");
  double* a_values = ::fl::emu::wmma_scratch(detail::linear_thread());
  double* b_values = a_values + m * k;
  double* c_values = b_values + k * n;
  const auto operand = [](auto v) {
    if constexpr (std::is_same<Ta, precision::tf32>::value) return detail::tf32_value(v);
    else return detail::value_of(v);
  };
  for (int i = 0; i < a.num_elements; i++) a_values[detail::element_of<matrix_a, m, n, k, Ta>(i)] = operand(a.x[i]);
  for (int i = 0; i < b.num_elements; i++) b_values[detail::element_of<matrix_b, m, n, k, Tb>(i)] = operand(b.x[i]);
  for (int i = 0; i < c.num_elements; i++) c_values[detail::element_of<accumulator, m, n, k, Tc>(i)] = detail::value_of(c.x[i]);
  ::fl::emu::syncwarp(__LINE__);
  for (int i = 0; i < d.num_elements; i++) {
    const int e = detail::element_of<accumulator, m, n, k, Td>(i), r = e / n, col = e % n;
    double sum = c_values[e];
    if constexpr (std::is_same<Td, int>::value) {
      int64_t whole = static_cast<int64_t>(c_values[e]);
      for (int j = 0; j < k; j++) whole += static_cast<int64_t>(a_values[r * k + j]) * static_cast<int64_t>(b_values[j * n + col]);
      sum = static_cast<double>(whole);
    } else {
      for (int j = 0; j < k; j++) sum += a_values[r * k + j] * b_values[j * n + col];
    }
    d.x[i] = detail::rounded<Td>(sum, satf);
  }
  ::fl::emu::syncwarp(__LINE__);  // the scratch may be reused once every lane has read it
}

// Rounds a float to tf32 (nearest, ties away from zero), as cvt.rna.tf32.f32 does.
inline float __float_to_tf32(float v) {
  uint32_t bits;
  memcpy(&bits, &v, sizeof bits);
  if ((bits & 0x7f800000u) != 0x7f800000u) bits = (bits + 0x1000u) & 0xffffe000u;
  float rounded;
  memcpy(&rounded, &bits, sizeof rounded);
  return rounded;
}

}  // namespace wmma
}  // namespace nvcuda

#endif
