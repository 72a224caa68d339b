// cub's block collectives that move or compare a block's items across threads,
// on the CPU emulator: BlockExchange (blocked, striped and warp-striped
// arrangements, scatters by rank), BlockRadixSort (stable, over a range of the
// keys' bits as cub ranks them: signed keys with the sign bit flipped, floats
// with -0.0 equal to +0.0), BlockMergeSort, BlockHistogram, BlockDiscontinuity
// and BlockAdjacentDifference. Each goes through its TempStorage in __shared__
// with a barrier where cub has one (a block-wide one, or a warp's for the
// warp-striped forms), and leaves reusing the storage to the caller's
// __syncthreads(), as cub does. The block's first thread does the sorting.
#ifndef FUSELAB_EMULATOR_CUB_BLOCK_ITEMS_H
#define FUSELAB_EMULATOR_CUB_BLOCK_ITEMS_H
#include <cub/version.cuh>

#include <algorithm>
#include <cfloat>  // cub's util_type.cuh includes it: sources using cub take FLT_MAX from there
#include <type_traits>
#include <utility>
#include <vector>

#include "cub.h"

namespace cub {

namespace detail {

// A warp's share of the block's items is N * width slots (width: the warp's
// lanes, or the block's threads if fewer). Warp-striped, lane l holds slots
// l, l + width ... of it; blocked, slots l * N ... l * N + N - 1.
inline int warp_width(int threads) { return std::min(threads, static_cast<int>(warp_lanes())); }
inline int warp_striped_slot(int thread, int item, int items, int threads) {
  const int width = warp_width(threads);
  return thread / width * width * items + item * width + thread % width;
}
inline int warp_blocked_slot(int thread, int item, int items, int threads) {
  const int width = warp_width(threads);
  return thread / width * width * items + thread % width * items + item;
}

// Sorting and other library work that allocates must not be cut short by a stop.
struct library_work {
  ::fl::emu::hold_stops hold{::fl::emu::current_block().worker};
};

// Reorders the block's `count` items (and values) in storage by a stable sort of
// positions with `before`.
template <typename Key, typename Value, typename Before>
inline void stable_sort_tile(Key* keys, Value* values, int count, Before before) {
  library_work work;
  std::vector<int> order(static_cast<size_t>(count));
  for (int i = 0; i < count; i++) order[i] = i;
  std::stable_sort(order.begin(), order.end(), before);
  std::vector<Key> sorted_keys(static_cast<size_t>(count));
  for (int i = 0; i < count; i++) sorted_keys[i] = keys[order[i]];
  std::copy(sorted_keys.begin(), sorted_keys.end(), keys);
  if (values) {
    std::vector<Value> sorted_values(static_cast<size_t>(count));
    for (int i = 0; i < count; i++) sorted_values[i] = values[order[i]];
    std::copy(sorted_values.begin(), sorted_values.end(), values);
  }
}

// The block's own TempStorage of a collective made without one (cub's
// PrivateStorage, a __shared__ variable of the function).
template <typename Storage>
inline Storage& private_storage() {
  static thread_local Storage storage;
  return storage;
}

// A block's sort of its kThreadCount * N items: each thread puts its keys (those at
// `valid` and past it as *oob, when given) and values into the tile, the first
// thread sorts the tile stably with before(tile_keys)(a, b), and each thread takes
// its items back, blocked or striped.
template <int kThreadCount, int N, typename Key, typename Value, typename MakeBefore>
inline void sort_tile(Key (&keys)[N], Value* values, Key* tile_keys, Value* tile_values, int valid, const Key* oob,
                      bool striped_out, MakeBefore make_before) {
  const int t = static_cast<int>(linear_thread());
  if (t < kThreadCount)
    for (int k = 0; k < N; k++) {
      tile_keys[t * N + k] = oob && t * N + k >= valid ? *oob : keys[k];
      if (values) tile_values[t * N + k] = values[k];
    }
  ::fl::emu::syncthreads(__LINE__);
  if (t == 0) stable_sort_tile(tile_keys, values ? tile_values : static_cast<Value*>(nullptr), kThreadCount * N, make_before(tile_keys));
  ::fl::emu::syncthreads(__LINE__);
  if (t < kThreadCount)
    for (int k = 0; k < N; k++) {
      const int slot = striped_out ? k * kThreadCount + t : t * N + k;
      keys[k] = tile_keys[slot];
      if (values) values[k] = tile_values[slot];
    }
}

// flag_op(a, b) or flag_op(a, b, index of b), as the caller's functor takes it.
template <typename Op, typename T>
inline bool apply_flag(Op& op, const T& a, const T& b, int index) {
  if constexpr (std::is_invocable<Op&, const T&, const T&, int>::value) return op(a, b, index);
  else return op(a, b);
}

}  // namespace detail

template <typename T, int BLOCK_DIM_X, int ITEMS_PER_THREAD, bool WARP_TIME_SLICING = false, int BLOCK_DIM_Y = 1,
          int BLOCK_DIM_Z = 1, int LEGACY_PTX_ARCH = 0>
class BlockExchange {
  static constexpr int kThreadCount = BLOCK_DIM_X * BLOCK_DIM_Y * BLOCK_DIM_Z;
  static constexpr int N = ITEMS_PER_THREAD;

 public:
  // Room for whole warps of up to 64 lanes, so a partial last warp's warp-striped slots fit.
  struct TempStorage {
    detail::raw_array<T, (kThreadCount + 63) / 64 * 64 * ITEMS_PER_THREAD> items;
  };

  BlockExchange() : storage_(detail::private_storage<TempStorage>()) {}
  explicit BlockExchange(TempStorage& storage) : storage_(storage) {}

  template <typename OutputT> void StripedToBlocked(const T (&input)[N], OutputT (&output)[N]) {
    exchange(input, output, [](int t, int k) { return k * kThreadCount + t; }, [](int t, int k) { return t * N + k; }, false);
  }
  template <typename OutputT> void BlockedToStriped(const T (&input)[N], OutputT (&output)[N]) {
    exchange(input, output, [](int t, int k) { return t * N + k; }, [](int t, int k) { return k * kThreadCount + t; }, false);
  }
  template <typename OutputT> void WarpStripedToBlocked(const T (&input)[N], OutputT (&output)[N]) {
    exchange(input, output, [](int t, int k) { return detail::warp_striped_slot(t, k, N, kThreadCount); },
             [](int t, int k) { return detail::warp_blocked_slot(t, k, N, kThreadCount); }, true);
  }
  template <typename OutputT> void BlockedToWarpStriped(const T (&input)[N], OutputT (&output)[N]) {
    exchange(input, output, [](int t, int k) { return detail::warp_blocked_slot(t, k, N, kThreadCount); },
             [](int t, int k) { return detail::warp_striped_slot(t, k, N, kThreadCount); }, true);
  }
  // Item k goes to slot ranks[k] of the block's order.
  template <typename OutputT, typename OffsetT> void ScatterToBlocked(const T (&input)[N], OutputT (&output)[N], OffsetT (&ranks)[N]) {
    scatter(input, output, ranks, [](int) { return true; }, [](int t, int k) { return t * N + k; });
  }
  template <typename OutputT, typename OffsetT> void ScatterToStriped(const T (&input)[N], OutputT (&output)[N], OffsetT (&ranks)[N]) {
    scatter(input, output, ranks, [](int) { return true; }, [](int t, int k) { return k * kThreadCount + t; });
  }
  // Items whose rank is negative are not scattered.
  template <typename OutputT, typename OffsetT>
  void ScatterToStripedGuarded(const T (&input)[N], OutputT (&output)[N], OffsetT (&ranks)[N]) {
    scatter(input, output, ranks, [&ranks](int k) { return ranks[k] >= 0; }, [](int t, int k) { return k * kThreadCount + t; });
  }
  template <typename OutputT, typename OffsetT, typename ValidFlag>
  void ScatterToStripedFlagged(const T (&input)[N], OutputT (&output)[N], OffsetT (&ranks)[N], ValidFlag (&is_valid)[N]) {
    scatter(input, output, ranks, [&is_valid](int k) { return static_cast<bool>(is_valid[k]); },
            [](int t, int k) { return k * kThreadCount + t; });
  }
  // cub 1's in-place forms.
  void StripedToBlocked(T (&items)[N]) { StripedToBlocked(items, items); }
  void BlockedToStriped(T (&items)[N]) { BlockedToStriped(items, items); }
  void WarpStripedToBlocked(T (&items)[N]) { WarpStripedToBlocked(items, items); }
  void BlockedToWarpStriped(T (&items)[N]) { BlockedToWarpStriped(items, items); }
  template <typename OffsetT> void ScatterToBlocked(T (&items)[N], OffsetT (&ranks)[N]) { ScatterToBlocked(items, items, ranks); }
  template <typename OffsetT> void ScatterToStriped(T (&items)[N], OffsetT (&ranks)[N]) { ScatterToStriped(items, items, ranks); }

 private:
  // Writes item k to slot from(t, k), waits for the block (or warp), reads slot to(t, k).
  template <typename OutputT, typename From, typename To>
  void exchange(const T (&input)[N], OutputT (&output)[N], From from, To to, bool warp_only) {
    const int t = static_cast<int>(detail::linear_thread());
    if (t < kThreadCount)
      for (int k = 0; k < N; k++) storage_.items[from(t, k)] = input[k];
    if (warp_only) ::fl::emu::syncwarp(__LINE__);
    else ::fl::emu::syncthreads(__LINE__);
    if (t < kThreadCount)
      for (int k = 0; k < N; k++) output[k] = storage_.items[to(t, k)];
  }
  template <typename OutputT, typename OffsetT, typename Keep, typename To>
  void scatter(const T (&input)[N], OutputT (&output)[N], OffsetT (&ranks)[N], Keep keep, To to) {
    const int t = static_cast<int>(detail::linear_thread());
    if (t < kThreadCount)
      for (int k = 0; k < N; k++)
        if (keep(k)) storage_.items[static_cast<long>(ranks[k])] = input[k];
    ::fl::emu::syncthreads(__LINE__);
    if (t < kThreadCount)
      for (int k = 0; k < N; k++) output[k] = storage_.items[to(t, k)];
  }

  TempStorage& storage_;
};

template <typename KeyT, int BLOCK_DIM_X, int ITEMS_PER_THREAD, typename ValueT = NullType, int RADIX_BITS = 4,
          bool MEMOIZE_OUTER_SCAN = true, BlockScanAlgorithm INNER_SCAN_ALGORITHM = BLOCK_SCAN_WARP_SCANS,
          cudaSharedMemConfig SMEM_CONFIG = cudaSharedMemBankSizeFourByte, int BLOCK_DIM_Y = 1, int BLOCK_DIM_Z = 1,
          int LEGACY_PTX_ARCH = 0>
class BlockRadixSort {
  static constexpr int kThreadCount = BLOCK_DIM_X * BLOCK_DIM_Y * BLOCK_DIM_Z;
  static constexpr int N = ITEMS_PER_THREAD;
  static constexpr int TILE = kThreadCount * N;
  static constexpr bool KEYS_ONLY = std::is_same<ValueT, NullType>::value;
  using Value = typename std::conditional<KEYS_ONLY, unsigned char, ValueT>::type;
  using Bits = typename Traits<KeyT>::UnsignedBits;
  static constexpr int KEY_BITS = static_cast<int>(sizeof(KeyT) * 8);

 public:
  struct TempStorage {
    detail::raw_array<KeyT, TILE> keys;
    detail::raw_array<Value, KEYS_ONLY ? 1 : TILE> values;
  };

  BlockRadixSort() : storage_(detail::private_storage<TempStorage>()) {}
  explicit BlockRadixSort(TempStorage& storage) : storage_(storage) {}

  // Blocked in and out.
  void Sort(KeyT (&keys)[N], int begin_bit = 0, int end_bit = KEY_BITS) { sort(keys, nullptr, begin_bit, end_bit, false, false); }
  void Sort(KeyT (&keys)[N], ValueT (&values)[N], int begin_bit = 0, int end_bit = KEY_BITS) {
    sort(keys, values_of(values), begin_bit, end_bit, false, false);
  }
  void SortDescending(KeyT (&keys)[N], int begin_bit = 0, int end_bit = KEY_BITS) {
    sort(keys, nullptr, begin_bit, end_bit, true, false);
  }
  void SortDescending(KeyT (&keys)[N], ValueT (&values)[N], int begin_bit = 0, int end_bit = KEY_BITS) {
    sort(keys, values_of(values), begin_bit, end_bit, true, false);
  }
  // Blocked in, striped out.
  void SortBlockedToStriped(KeyT (&keys)[N], int begin_bit = 0, int end_bit = KEY_BITS) {
    sort(keys, nullptr, begin_bit, end_bit, false, true);
  }
  void SortBlockedToStriped(KeyT (&keys)[N], ValueT (&values)[N], int begin_bit = 0, int end_bit = KEY_BITS) {
    sort(keys, values_of(values), begin_bit, end_bit, false, true);
  }
  void SortDescendingBlockedToStriped(KeyT (&keys)[N], int begin_bit = 0, int end_bit = KEY_BITS) {
    sort(keys, nullptr, begin_bit, end_bit, true, true);
  }
  void SortDescendingBlockedToStriped(KeyT (&keys)[N], ValueT (&values)[N], int begin_bit = 0, int end_bit = KEY_BITS) {
    sort(keys, values_of(values), begin_bit, end_bit, true, true);
  }

 private:
  static Value* values_of(ValueT (&values)[N]) {
    if constexpr (KEYS_ONLY) return nullptr;
    else return values;
  }
  // The bits [begin_bit, end_bit) of the key as cub ranks it.
  static Bits digit(const KeyT& key, int begin_bit, int end_bit) {
    Bits bits;
    memcpy(&bits, &key, sizeof bits);
    bits = Traits<KeyT>::TwiddleIn(bits);
    if (Traits<KeyT>::CATEGORY == FLOATING_POINT && bits == Traits<KeyT>::TwiddleIn(Traits<KeyT>::HIGH_BIT))
      bits = Traits<KeyT>::TwiddleIn(Bits(0));  // -0.0 ranks as +0.0
    const int width = end_bit - begin_bit;
    if (width <= 0 || begin_bit >= KEY_BITS) return 0;
    bits = static_cast<Bits>(bits >> begin_bit);
    return width >= KEY_BITS ? bits : static_cast<Bits>(bits & ((Bits(1) << width) - 1));
  }

  void sort(KeyT (&keys)[N], Value* values, int begin_bit, int end_bit, bool descending, bool striped_out) {
    detail::sort_tile<kThreadCount>(keys, values, &storage_.keys[0], &storage_.values[0], TILE, static_cast<const KeyT*>(nullptr), striped_out,
                               [&](const KeyT* all) {
                                 return [=](int a, int b) {
                                   const Bits da = digit(all[a], begin_bit, end_bit), db = digit(all[b], begin_bit, end_bit);
                                   return descending ? db < da : da < db;
                                 };
                               });
  }

  TempStorage& storage_;
};

template <typename KeyT, int BLOCK_DIM_X, int ITEMS_PER_THREAD, typename ValueT = NullType, int BLOCK_DIM_Y = 1,
          int BLOCK_DIM_Z = 1>
class BlockMergeSort {
  static constexpr int kThreadCount = BLOCK_DIM_X * BLOCK_DIM_Y * BLOCK_DIM_Z;
  static constexpr int N = ITEMS_PER_THREAD;
  static constexpr int TILE = kThreadCount * N;
  static constexpr bool KEYS_ONLY = std::is_same<ValueT, NullType>::value;
  using Value = typename std::conditional<KEYS_ONLY, unsigned char, ValueT>::type;

 public:
  struct TempStorage {
    detail::raw_array<KeyT, TILE> keys;
    detail::raw_array<Value, KEYS_ONLY ? 1 : TILE> values;
  };

  BlockMergeSort() : storage_(detail::private_storage<TempStorage>()) {}
  explicit BlockMergeSort(TempStorage& storage) : storage_(storage) {}

  // Blocked in and out; with valid_items, the keys past them count as oob_default.
  template <typename CompareOp> void Sort(KeyT (&keys)[N], CompareOp compare_op) { sort(keys, nullptr, compare_op, TILE, nullptr); }
  template <typename CompareOp> void Sort(KeyT (&keys)[N], CompareOp compare_op, int valid_items, KeyT oob_default) {
    sort(keys, nullptr, compare_op, valid_items, &oob_default);
  }
  template <typename CompareOp> void Sort(KeyT (&keys)[N], ValueT (&values)[N], CompareOp compare_op) {
    sort(keys, values_of(values), compare_op, TILE, nullptr);
  }
  template <typename CompareOp>
  void Sort(KeyT (&keys)[N], ValueT (&values)[N], CompareOp compare_op, int valid_items, KeyT oob_default) {
    sort(keys, values_of(values), compare_op, valid_items, &oob_default);
  }
  template <typename... Args> void StableSort(Args&&... args) { Sort(std::forward<Args>(args)...); }

 private:
  static Value* values_of(ValueT (&values)[N]) {
    if constexpr (KEYS_ONLY) return nullptr;
    else return values;
  }
  template <typename CompareOp>
  void sort(KeyT (&keys)[N], Value* values, CompareOp& compare_op, int valid_items, const KeyT* oob_default) {
    detail::sort_tile<kThreadCount>(keys, values, &storage_.keys[0], &storage_.values[0], valid_items, oob_default, false,
                               [&](const KeyT* all) { return [&, all](int a, int b) { return static_cast<bool>(compare_op(all[a], all[b])); }; });
  }

  TempStorage& storage_;
};

enum BlockHistogramAlgorithm { BLOCK_HISTO_SORT, BLOCK_HISTO_ATOMIC };

// Counts of the items' values (each an index into the histogram's BINS).
template <typename T, int BLOCK_DIM_X, int ITEMS_PER_THREAD, int BINS, BlockHistogramAlgorithm ALGORITHM = BLOCK_HISTO_SORT,
          int BLOCK_DIM_Y = 1, int BLOCK_DIM_Z = 1, int LEGACY_PTX_ARCH = 0>
class BlockHistogram {
  static constexpr int kThreadCount = BLOCK_DIM_X * BLOCK_DIM_Y * BLOCK_DIM_Z;

 public:
  struct TempStorage {};
  BlockHistogram() {}
  explicit BlockHistogram(TempStorage&) {}

  template <typename CounterT> void InitHistogram(CounterT histogram[BINS]) {
    for (int bin = static_cast<int>(detail::linear_thread()); bin < BINS; bin += kThreadCount) histogram[bin] = 0;
  }
  template <typename CounterT> void Histogram(T (&items)[ITEMS_PER_THREAD], CounterT histogram[BINS]) {
    InitHistogram(histogram);
    ::fl::emu::syncthreads(__LINE__);
    Composite(items, histogram);
  }
  template <typename CounterT> void Composite(T (&items)[ITEMS_PER_THREAD], CounterT histogram[BINS]) {
    for (int k = 0; k < ITEMS_PER_THREAD; k++) atomicAdd(&histogram[static_cast<long>(items[k])], CounterT(1));
  }
};

template <typename T, int BLOCK_DIM_X, int BLOCK_DIM_Y = 1, int BLOCK_DIM_Z = 1, int LEGACY_PTX_ARCH = 0>
class BlockDiscontinuity {
  static constexpr int kThreadCount = BLOCK_DIM_X * BLOCK_DIM_Y * BLOCK_DIM_Z;

 public:
  struct TempStorage {
    detail::raw_array<T, kThreadCount> first_items;
    detail::raw_array<T, kThreadCount> last_items;
  };

  BlockDiscontinuity() : storage_(detail::private_storage<TempStorage>()) {}
  explicit BlockDiscontinuity(TempStorage& storage) : storage_(storage) {}

  // Head flags: an item differs from the one before it (the block's first item
  // is a head, or is compared with the tile's predecessor).
  template <int N, typename FlagT, typename FlagOp> void FlagHeads(FlagT (&head_flags)[N], T (&input)[N], FlagOp flag_op) {
    flags<N, FlagT>(&head_flags, nullptr, input, flag_op, nullptr, nullptr);
  }
  template <int N, typename FlagT, typename FlagOp>
  void FlagHeads(FlagT (&head_flags)[N], T (&input)[N], FlagOp flag_op, T tile_predecessor_item) {
    flags<N, FlagT>(&head_flags, nullptr, input, flag_op, &tile_predecessor_item, nullptr);
  }
  // Tail flags: an item differs from the one after it (the block's last item is
  // a tail, or is compared with the tile's successor).
  template <int N, typename FlagT, typename FlagOp> void FlagTails(FlagT (&tail_flags)[N], T (&input)[N], FlagOp flag_op) {
    flags<N, FlagT>(nullptr, &tail_flags, input, flag_op, nullptr, nullptr);
  }
  template <int N, typename FlagT, typename FlagOp>
  void FlagTails(FlagT (&tail_flags)[N], T (&input)[N], FlagOp flag_op, T tile_successor_item) {
    flags<N, FlagT>(nullptr, &tail_flags, input, flag_op, nullptr, &tile_successor_item);
  }
  template <int N, typename FlagT, typename FlagOp>
  void FlagHeadsAndTails(FlagT (&head_flags)[N], FlagT (&tail_flags)[N], T (&input)[N], FlagOp flag_op) {
    flags<N, FlagT>(&head_flags, &tail_flags, input, flag_op, nullptr, nullptr);
  }
  template <int N, typename FlagT, typename FlagOp>
  void FlagHeadsAndTails(FlagT (&head_flags)[N], FlagT (&tail_flags)[N], T tile_successor_item, T (&input)[N], FlagOp flag_op) {
    flags<N, FlagT>(&head_flags, &tail_flags, input, flag_op, nullptr, &tile_successor_item);
  }
  template <int N, typename FlagT, typename FlagOp>
  void FlagHeadsAndTails(FlagT (&head_flags)[N], T tile_predecessor_item, FlagT (&tail_flags)[N], T (&input)[N], FlagOp flag_op) {
    flags<N, FlagT>(&head_flags, &tail_flags, input, flag_op, &tile_predecessor_item, nullptr);
  }
  template <int N, typename FlagT, typename FlagOp>
  void FlagHeadsAndTails(FlagT (&head_flags)[N], T tile_predecessor_item, FlagT (&tail_flags)[N], T tile_successor_item,
                         T (&input)[N], FlagOp flag_op) {
    flags<N, FlagT>(&head_flags, &tail_flags, input, flag_op, &tile_predecessor_item, &tile_successor_item);
  }

 private:
  // Index arguments are cub's: the position in the block's order of the later item.
  template <int N, typename FlagT, typename FlagOp>
  void flags(FlagT (*heads)[N], FlagT (*tails)[N], T (&input)[N], FlagOp& op, const T* predecessor, const T* successor) {
    const int t = static_cast<int>(detail::linear_thread());
    if (t < kThreadCount) {
      storage_.first_items[t] = input[0];
      storage_.last_items[t] = input[N - 1];
    }
    ::fl::emu::syncthreads(__LINE__);
    if (t >= kThreadCount) return;
    if (heads) {
      if (t > 0) (*heads)[0] = detail::apply_flag(op, static_cast<const T&>(storage_.last_items[t - 1]), input[0], t * N);
      else (*heads)[0] = predecessor ? detail::apply_flag(op, *predecessor, input[0], 0) : 1;
      for (int k = 1; k < N; k++) (*heads)[k] = detail::apply_flag(op, input[k - 1], input[k], t * N + k);
    }
    if (tails) {
      for (int k = 0; k + 1 < N; k++) (*tails)[k] = detail::apply_flag(op, input[k], input[k + 1], t * N + k + 1);
      if (t + 1 < kThreadCount) (*tails)[N - 1] = detail::apply_flag(op, input[N - 1], static_cast<const T&>(storage_.first_items[t + 1]), t * N + N);
      else (*tails)[N - 1] = successor ? detail::apply_flag(op, input[N - 1], *successor, t * N + N) : 1;
    }
  }

  TempStorage& storage_;
};

template <typename T, int BLOCK_DIM_X, int BLOCK_DIM_Y = 1, int BLOCK_DIM_Z = 1>
class BlockAdjacentDifference {
  static constexpr int kThreadCount = BLOCK_DIM_X * BLOCK_DIM_Y * BLOCK_DIM_Z;

 public:
  struct TempStorage {
    detail::raw_array<T, kThreadCount> first_items;
    detail::raw_array<T, kThreadCount> last_items;
  };

  BlockAdjacentDifference() : storage_(detail::private_storage<TempStorage>()) {}
  explicit BlockAdjacentDifference(TempStorage& storage) : storage_(storage) {}

  // output[i] = op(input[i], input[i - 1]) over the block's order; the first
  // item is kept, or taken with the tile's predecessor. Past valid_items, kept.
  template <int N, typename OutputT, typename Op> void SubtractLeft(T (&input)[N], OutputT (&output)[N], Op op) {
    left(input, output, op, N * kThreadCount, nullptr);
  }
  template <int N, typename OutputT, typename Op>
  void SubtractLeft(T (&input)[N], OutputT (&output)[N], Op op, T tile_predecessor_item) {
    left(input, output, op, N * kThreadCount, &tile_predecessor_item);
  }
  template <int N, typename OutputT, typename Op>
  void SubtractLeftPartialTile(T (&input)[N], OutputT (&output)[N], Op op, int valid_items) {
    left(input, output, op, valid_items, nullptr);
  }
  template <int N, typename OutputT, typename Op>
  void SubtractLeftPartialTile(T (&input)[N], OutputT (&output)[N], Op op, int valid_items, T tile_predecessor_item) {
    left(input, output, op, valid_items, &tile_predecessor_item);
  }
  // output[i] = op(input[i], input[i + 1]); the last item is kept, or taken with
  // the tile's successor. From valid_items - 1 on, kept.
  template <int N, typename OutputT, typename Op> void SubtractRight(T (&input)[N], OutputT (&output)[N], Op op) {
    right(input, output, op, N * kThreadCount, nullptr);
  }
  template <int N, typename OutputT, typename Op>
  void SubtractRight(T (&input)[N], OutputT (&output)[N], Op op, T tile_successor_item) {
    right(input, output, op, N * kThreadCount, &tile_successor_item);
  }
  template <int N, typename OutputT, typename Op>
  void SubtractRightPartialTile(T (&input)[N], OutputT (&output)[N], Op op, int valid_items) {
    right(input, output, op, valid_items, nullptr);
  }

 private:
  template <int N, typename OutputT, typename Op>
  void left(T (&input)[N], OutputT (&output)[N], Op& op, int valid_items, const T* predecessor) {
    const int t = static_cast<int>(detail::linear_thread());
    if (t < kThreadCount) storage_.last_items[t] = input[N - 1];
    ::fl::emu::syncthreads(__LINE__);
    if (t >= kThreadCount) return;
    T before = t > 0 ? static_cast<T>(storage_.last_items[t - 1]) : predecessor ? *predecessor : input[0];
    for (int k = 0; k < N; k++) {
      const T item = input[k];  // input and output may be one array
      const bool first = t == 0 && k == 0 && !predecessor;
      output[k] = t * N + k < valid_items && !first ? op(item, before) : item;
      before = item;
    }
  }
  template <int N, typename OutputT, typename Op>
  void right(T (&input)[N], OutputT (&output)[N], Op& op, int valid_items, const T* successor) {
    const int t = static_cast<int>(detail::linear_thread());
    if (t < kThreadCount) storage_.first_items[t] = input[0];
    ::fl::emu::syncthreads(__LINE__);
    if (t >= kThreadCount) return;
    for (int k = 0; k < N; k++) {
      const int i = t * N + k;
      const T item = input[k];
      if (i + 1 < valid_items) output[k] = op(item, k + 1 < N ? input[k + 1] : static_cast<T>(storage_.first_items[t + 1]));
      else if (i + 1 == N * kThreadCount && successor) output[k] = op(item, *successor);
      else output[k] = item;
    }
  }

  TempStorage& storage_;
};

}  // namespace cub

#endif
