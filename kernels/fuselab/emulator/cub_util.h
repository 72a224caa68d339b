// cub's utilities on the CPU emulator: its function objects (Sum, Max, Min,
// ArgMax, ArgMin over KeyValuePair), type traits (Traits<T> with the bit
// twiddles radix sorts order keys by), Uninitialized storage, cache-modified
// loads and stores, ThreadReduce, a thread's binary searches, and the warp and block helpers that sources
// written for cub 1 and 2 call (CTA_SYNC, WARP_SYNC, LaneId, WarpId,
// DivideAndRoundUp, ShuffleIndex/Up/Down).
#ifndef FUSELAB_EMULATOR_CUB_UTIL_H
#define FUSELAB_EMULATOR_CUB_UTIL_H

#include <string.h>

#include <limits>
#include <type_traits>

#include "include/cuda/functional"
#include "intrinsics.h"

namespace cub {

struct NullType {};

struct Sum {
  template <typename T> T operator()(const T& a, const T& b) const { return a + b; }
};
struct Max {
  template <typename T> T operator()(const T& a, const T& b) const { return a < b ? b : a; }
};
struct Min {
  template <typename T> T operator()(const T& a, const T& b) const { return b < a ? b : a; }
};
struct Equality {
  template <typename T, typename U> bool operator()(const T& a, const U& b) const { return a == b; }
};
struct Inequality {
  template <typename T, typename U> bool operator()(const T& a, const U& b) const { return a != b; }
};

template <typename K, typename V>
struct KeyValuePair {
  using Key = K;
  using Value = V;
  Key key;
  Value value;
  KeyValuePair() {}
  KeyValuePair(const Key& k, const Value& v) : key(k), value(v) {}
  bool operator!=(const KeyValuePair& b) { return value != b.value || key != b.key; }
};

// The larger (smaller) value, the smaller key on a tie: the first occurrence.
struct ArgMax {
  template <typename T, typename Offset>
  KeyValuePair<Offset, T> operator()(const KeyValuePair<Offset, T>& a, const KeyValuePair<Offset, T>& b) const {
    return (b.value > a.value || (a.value == b.value && b.key < a.key)) ? b : a;
  }
};
struct ArgMin {
  template <typename T, typename Offset>
  KeyValuePair<Offset, T> operator()(const KeyValuePair<Offset, T>& a, const KeyValuePair<Offset, T>& b) const {
    return (b.value < a.value || (a.value == b.value && b.key < a.key)) ? b : a;
  }
};

// Storage for a T without constructing it, so that TempStorage types can share a union.
template <typename T>
struct Uninitialized {
  alignas(T) unsigned char storage[sizeof(T)];
  T& Alias() { return *reinterpret_cast<T*>(storage); }
};

namespace detail {
// N items of T in raw storage: a TempStorage member that a union may hold,
// whatever T's constructors.
template <typename T, int N>
struct raw_array {
  alignas(T) unsigned char bytes[sizeof(T) * (N > 0 ? N : 1)];
  T& operator[](long i) { return reinterpret_cast<T*>(bytes)[i]; }
};
}  // namespace detail

enum Category { NOT_A_NUMBER, SIGNED_INTEGER, UNSIGNED_INTEGER, FLOATING_POINT };

// A key's bits in the order radix sorts rank them (TwiddleIn) and back.
template <Category CATEGORY_, typename UnsignedBits_, typename T>
struct BaseTraits {
  using UnsignedBits = UnsignedBits_;
  static constexpr Category CATEGORY = CATEGORY_;
  static constexpr bool PRIMITIVE = true;
  static constexpr bool NULL_TYPE = false;
  static constexpr UnsignedBits HIGH_BIT = UnsignedBits(UnsignedBits(1) << (sizeof(UnsignedBits) * 8 - 1));
  static constexpr UnsignedBits LOWEST_KEY =
      CATEGORY_ == UNSIGNED_INTEGER ? UnsignedBits(0) : CATEGORY_ == SIGNED_INTEGER ? HIGH_BIT : UnsignedBits(-1);
  static constexpr UnsignedBits MAX_KEY =
      CATEGORY_ == UNSIGNED_INTEGER ? UnsignedBits(-1) : UnsignedBits(UnsignedBits(-1) ^ HIGH_BIT);

  static UnsignedBits TwiddleIn(UnsignedBits key) {
    if (CATEGORY_ == SIGNED_INTEGER) return key ^ HIGH_BIT;
    if (CATEGORY_ == FLOATING_POINT) return key ^ ((key & HIGH_BIT) ? UnsignedBits(-1) : HIGH_BIT);
    return key;
  }
  static UnsignedBits TwiddleOut(UnsignedBits key) {
    if (CATEGORY_ == SIGNED_INTEGER) return key ^ HIGH_BIT;
    if (CATEGORY_ == FLOATING_POINT) return key ^ ((key & HIGH_BIT) ? HIGH_BIT : UnsignedBits(-1));
    return key;
  }
  static T Max() { return std::numeric_limits<T>::max(); }
  static T Lowest() { return std::numeric_limits<T>::lowest(); }
};

template <typename T>
struct NumericTraits {
  static constexpr Category CATEGORY = NOT_A_NUMBER;
  static constexpr bool PRIMITIVE = false;
  static constexpr bool NULL_TYPE = false;
};
template <> struct NumericTraits<NullType> {
  static constexpr Category CATEGORY = NOT_A_NUMBER;
  static constexpr bool PRIMITIVE = false;
  static constexpr bool NULL_TYPE = true;
};
template <> struct NumericTraits<char> : BaseTraits<std::numeric_limits<char>::is_signed ? SIGNED_INTEGER : UNSIGNED_INTEGER, unsigned char, char> {};
template <> struct NumericTraits<signed char> : BaseTraits<SIGNED_INTEGER, unsigned char, signed char> {};
template <> struct NumericTraits<short> : BaseTraits<SIGNED_INTEGER, unsigned short, short> {};
template <> struct NumericTraits<int> : BaseTraits<SIGNED_INTEGER, unsigned int, int> {};
template <> struct NumericTraits<long> : BaseTraits<SIGNED_INTEGER, unsigned long, long> {};
template <> struct NumericTraits<long long> : BaseTraits<SIGNED_INTEGER, unsigned long long, long long> {};
template <> struct NumericTraits<unsigned char> : BaseTraits<UNSIGNED_INTEGER, unsigned char, unsigned char> {};
template <> struct NumericTraits<unsigned short> : BaseTraits<UNSIGNED_INTEGER, unsigned short, unsigned short> {};
template <> struct NumericTraits<unsigned int> : BaseTraits<UNSIGNED_INTEGER, unsigned int, unsigned int> {};
template <> struct NumericTraits<unsigned long> : BaseTraits<UNSIGNED_INTEGER, unsigned long, unsigned long> {};
template <> struct NumericTraits<unsigned long long> : BaseTraits<UNSIGNED_INTEGER, unsigned long long, unsigned long long> {};
template <> struct NumericTraits<bool> : BaseTraits<UNSIGNED_INTEGER, unsigned char, bool> {};
template <> struct NumericTraits<float> : BaseTraits<FLOATING_POINT, unsigned int, float> {};
template <> struct NumericTraits<double> : BaseTraits<FLOATING_POINT, unsigned long long, double> {};
template <> struct NumericTraits<__half> : BaseTraits<FLOATING_POINT, unsigned short, __half> {};
template <> struct NumericTraits<__nv_bfloat16> : BaseTraits<FLOATING_POINT, unsigned short, __nv_bfloat16> {};

template <typename T>
struct Traits : NumericTraits<typename std::remove_cv<T>::type> {};

enum CacheLoadModifier { LOAD_DEFAULT, LOAD_CA, LOAD_CG, LOAD_CS, LOAD_CV, LOAD_LDG, LOAD_VOLATILE };
enum CacheStoreModifier { STORE_DEFAULT, STORE_WB, STORE_CG, STORE_CS, STORE_WT, STORE_VOLATILE };

// The cache hints steer a GPU's caches; the value is the same.
template <CacheLoadModifier MODIFIER, typename It>
inline typename std::remove_cv<typename std::remove_reference<decltype(*std::declval<It>())>::type>::type ThreadLoad(It it) {
  return *it;
}
template <CacheStoreModifier MODIFIER, typename It, typename T>
inline void ThreadStore(It it, T value) {
  *it = value;
}

// A thread's items reduced in order (cub's ThreadReduce), optionally after a prefix.
template <int N, typename T, typename Op>
inline T ThreadReduce(T (&input)[N], Op op) {
  T total = input[0];
  for (int i = 1; i < N; i++) total = op(total, input[i]);
  return total;
}
template <int N, typename T, typename Op, typename Prefix>
inline T ThreadReduce(T (&input)[N], Op op, Prefix prefix) {
  T total = prefix;
  for (int i = 0; i < N; i++) total = op(total, input[i]);
  return total;
}
namespace internal {
using ::cub::ThreadReduce;
}

namespace detail {
using ::fl::emu::linear_thread;
inline unsigned warp_lanes() { return static_cast<unsigned>(::fl::emu::tls().warp_size); }
}  // namespace detail

// The barrier and warp helpers of cub 1 and 2 (cub 3 dropped them).
inline void CTA_SYNC() { ::fl::emu::syncthreads(__LINE__); }
inline int CTA_SYNC_AND(int p) { return ::fl::emu::syncthreads_and(__LINE__, p); }
inline int CTA_SYNC_OR(int p) { return ::fl::emu::syncthreads_or(__LINE__, p); }
inline void WARP_SYNC(unsigned long long member_mask) { ::fl::emu::syncwarp(__LINE__, member_mask); }
inline unsigned int LaneId() { return ::fl::emu::lane_in_warp(); }
inline unsigned int WarpId() { return detail::linear_thread() / detail::warp_lanes(); }
inline int RowMajorTid(int dim_x, int dim_y, int /*dim_z*/) {
  const fl_emu_dim3& t = ::fl::emu::tls().where.thread;
  return static_cast<int>(t.z) * dim_x * dim_y + static_cast<int>(t.y) * dim_x + static_cast<int>(t.x);
}
template <typename Numerator, typename Denominator>
constexpr Numerator DivideAndRoundUp(Numerator n, Denominator d) {
  return static_cast<Numerator>(n / d + (n % d != 0 ? 1 : 0));
}

// A thread's binary searches (<cub/thread/thread_search.cuh>): the first position in
// the sorted input whose item is not less than `value` (LowerBound), or greater
// than it (UpperBound), among the first num_items.
template <typename InputIteratorT, typename OffsetT, typename T>
inline OffsetT LowerBound(InputIteratorT input, OffsetT num_items, T value) {
  OffsetT first = 0;
  while (num_items > 0) {
    const OffsetT half = num_items >> 1;
    if (input[first + half] < value) {
      first = first + half + 1;
      num_items = num_items - (half + 1);
    } else {
      num_items = half;
    }
  }
  return first;
}
template <typename InputIteratorT, typename OffsetT, typename T>
inline OffsetT UpperBound(InputIteratorT input, OffsetT num_items, T value) {
  OffsetT first = 0;
  while (num_items > 0) {
    const OffsetT half = num_items >> 1;
    if (value < input[first + half]) {
      num_items = half;
    } else {
      first = first + half + 1;
      num_items = num_items - (half + 1);
    }
  }
  return first;
}
// Where the merge path of sorted a and b crosses `diagonal` (a's items taken in
// .x, b's in .y; ties take a's first), as a merge splits its work among threads.
template <typename AIteratorT, typename BIteratorT, typename OffsetT, typename CoordinateT>
inline void MergePathSearch(OffsetT diagonal, AIteratorT a, BIteratorT b, OffsetT a_len, OffsetT b_len, CoordinateT& path_coordinate) {
  OffsetT low = diagonal > b_len ? diagonal - b_len : 0;
  OffsetT high = diagonal < a_len ? diagonal : a_len;
  while (low < high) {
    const OffsetT pivot = (low + high) >> 1;
    if (a[pivot] <= b[diagonal - pivot - 1]) low = pivot + 1;
    else high = pivot;
  }
  path_coordinate.x = low < a_len ? low : a_len;
  path_coordinate.y = diagonal - low;
}

// Shuffles within a logical warp of LOGICAL_WARP_THREADS lanes: a lane whose
// source is before first_thread (after last_thread) keeps its own value.
template <int LOGICAL_WARP_THREADS, typename T>
inline T ShuffleIndex(T input, int src_lane, unsigned long long member_mask) {
  return ::fl::emu::shfl_sync(__LINE__, member_mask, input, src_lane, LOGICAL_WARP_THREADS);
}
template <int LOGICAL_WARP_THREADS, typename T>
inline T ShuffleUp(T input, int src_offset, int first_thread, unsigned long long member_mask) {
  const int lane = static_cast<int>(LaneId() % LOGICAL_WARP_THREADS);
  const int source = lane - src_offset >= first_thread ? lane - src_offset : lane;
  return ::fl::emu::shfl_sync(__LINE__, member_mask, input, source, LOGICAL_WARP_THREADS);
}
template <int LOGICAL_WARP_THREADS, typename T>
inline T ShuffleDown(T input, int src_offset, int last_thread, unsigned long long member_mask) {
  const int lane = static_cast<int>(LaneId() % LOGICAL_WARP_THREADS);
  const int source = lane + src_offset <= last_thread ? lane + src_offset : lane;
  return ::fl::emu::shfl_sync(__LINE__, member_mask, input, source, LOGICAL_WARP_THREADS);
}

}  // namespace cub

#include "../cub_removed_macros.h"
#ifndef CUB_PTX_WARP_THREADS
#define CUB_PTX_WARP_THREADS 32
#define CUB_WARP_THREADS(unused) 32
#define CUB_RUNTIME_FUNCTION
#define CubDebug(e) (e)
#define CubDebugExit(e) (e)
#endif

#endif
