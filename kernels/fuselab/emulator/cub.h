// cub's block and warp primitives on the CPU emulator: WarpReduce, WarpScan,
// BlockReduce, BlockScan, BlockLoad and BlockStore, with cub's interfaces
// (TempStorage in __shared__, results valid where cub says they are) and
// cub's order of operations for reductions (shuffles down by 1, 2, 4 ... inside
// a warp, then the warps' totals in order), so float sums round as cub's
// default algorithms do.
// Partial warps and num_valid arguments take part as in cub: absent lanes add
// nothing.
#ifndef FUSELAB_EMULATOR_CUB_H
#define FUSELAB_EMULATOR_CUB_H

#include "cub_util.h"

namespace cub {

enum BlockReduceAlgorithm { BLOCK_REDUCE_RAKING_COMMUTATIVE_ONLY, BLOCK_REDUCE_RAKING, BLOCK_REDUCE_WARP_REDUCTIONS };
enum BlockScanAlgorithm { BLOCK_SCAN_RAKING, BLOCK_SCAN_RAKING_MEMOIZE, BLOCK_SCAN_WARP_SCANS };

namespace detail {

// The lanes [base, base + width) of the caller's warp.
inline unsigned long long segment_lanes(unsigned base, unsigned width) {
  return (width >= 64 ? ~0ull : (1ull << width) - 1) << base;
}

// Reduces over the first `valid` lanes of a logical warp of `width` lanes;
// the result is complete in its lane 0. A lane whose partner is past the valid
// ones reads its own value, so no lane reads one the block does not have.
// Segmented, each lane reduces up to its own bound: `valid` is then the lane
// after its segment's last.
template <typename T, typename Op>
inline T warp_reduce(T value, Op op, unsigned lane, unsigned width, unsigned valid, unsigned long long lanes) {
  const unsigned base = ::fl::emu::lane_in_warp() - lane;
  for (unsigned offset = 1; offset < width; offset *= 2) {
    const bool takes = lane + offset < valid;
    T other = ::fl::emu::shfl_sync(__LINE__, lanes, value, static_cast<int>(base + (takes ? lane + offset : lane)));
    if (takes) value = op(value, other);
  }
  return value;
}

// Inclusive scan over a logical warp (shuffles up by 1, 2, 4 ...).
template <typename T, typename Op>
inline T warp_inclusive_scan(T value, Op op, unsigned lane, unsigned width, unsigned long long lanes) {
  for (unsigned offset = 1; offset < width; offset *= 2) {
    T other = ::fl::emu::shfl_up_sync(__LINE__, lanes, value, offset, static_cast<int>(width));
    if (lane >= offset) value = op(other, value);
  }
  return value;
}

}  // namespace detail

template <typename T, int LOGICAL_WARP_THREADS = 32, int LEGACY_PTX_ARCH = 0>
class WarpReduce {
  static_assert(LOGICAL_WARP_THREADS >= 1 && LOGICAL_WARP_THREADS <= 64, "a logical warp has 1 to 64 threads");

 public:
  struct TempStorage {};

  explicit WarpReduce(TempStorage&) {}

  template <typename Op> T Reduce(T input, Op op) { return Reduce(input, op, LOGICAL_WARP_THREADS); }
  template <typename Op> T Reduce(T input, Op op, int valid_items) {
    unsigned warp_lane = ::fl::emu::lane_in_warp();
    unsigned width = pow2_width();
    unsigned base = warp_lane / width * width;
    unsigned present = lanes_present(base, width);
    unsigned valid = static_cast<unsigned>(valid_items) < present ? static_cast<unsigned>(valid_items) : present;
    return detail::warp_reduce(input, op, warp_lane - base, width, valid, detail::segment_lanes(base, present));
  }
  T Sum(T input) { return Reduce(input, cub::Sum()); }
  T Sum(T input, int valid_items) { return Reduce(input, cub::Sum(), valid_items); }

  // Segments marked by their first lane (head) or last lane (tail); each
  // segment's total is valid in its first lane, reduced in cub's order.
  template <typename Flag, typename Op> T HeadSegmentedReduce(T input, Flag head_flag, Op op) {
    return segmented(input, head_flag != Flag(0), true, op);
  }
  template <typename Flag, typename Op> T TailSegmentedReduce(T input, Flag tail_flag, Op op) {
    return segmented(input, tail_flag != Flag(0), false, op);
  }
  template <typename Flag> T HeadSegmentedSum(T input, Flag head_flag) { return HeadSegmentedReduce(input, head_flag, cub::Sum()); }
  template <typename Flag> T TailSegmentedSum(T input, Flag tail_flag) { return TailSegmentedReduce(input, tail_flag, cub::Sum()); }

 private:
  template <typename Op> T segmented(T input, bool flag, bool heads, Op op) {
    const unsigned warp_lane = ::fl::emu::lane_in_warp();
    const unsigned width = pow2_width();
    const unsigned base = warp_lane / width * width;
    const unsigned present = lanes_present(base, width);
    const unsigned long long lanes = detail::segment_lanes(base, present);
    const unsigned lane = warp_lane - base;
    // Lane i ends a segment when it is flagged a tail, or lane i + 1 a head.
    unsigned long long tails = ::fl::emu::vote_sync(::fl::emu::warp_op::ballot, __LINE__, lanes, flag) >> base;
    if (heads) tails >>= 1;
    tails &= ~0ull << lane;
    tails |= 1ull << (present - 1);
    const unsigned last = static_cast<unsigned>(__builtin_ctzll(tails));
    return detail::warp_reduce(input, op, lane, width, last + 1, lanes);
  }

  // A logical warp that is not a power of two is rounded up (cub allows any size).
  static unsigned pow2_width() {
    unsigned w = 1;
    while (w < LOGICAL_WARP_THREADS) w *= 2;
    return w;
  }
  // Lanes of this logical warp that are inside the block.
  static unsigned lanes_present(unsigned base, unsigned width) {
    const fl_emu_dim3& d = ::fl::emu::tls().block_dim;
    unsigned threads = d.x * d.y * d.z;
    unsigned first = detail::linear_thread() - (::fl::emu::lane_in_warp()) + base;
    unsigned left = threads - first;
    unsigned n = left < width ? left : width;
    return n < LOGICAL_WARP_THREADS ? n : LOGICAL_WARP_THREADS;
  }
};

template <typename T, int LOGICAL_WARP_THREADS = 32, int LEGACY_PTX_ARCH = 0>
class WarpScan {
 public:
  struct TempStorage {};
  explicit WarpScan(TempStorage&) {}

  template <typename Op> void InclusiveScan(T input, T& output, Op op) {
    const unsigned warp_lane = ::fl::emu::lane_in_warp();
    const unsigned base = segment_base();
    output = detail::warp_inclusive_scan(input, op, warp_lane - base, LOGICAL_WARP_THREADS,
                                         detail::segment_lanes(base, LOGICAL_WARP_THREADS));
  }
  void InclusiveSum(T input, T& output) { InclusiveScan(input, output, Sum()); }
  template <typename Op> void ExclusiveScan(T input, T& output, T initial, Op op) {
    T inclusive;
    InclusiveScan(input, inclusive, op);
    exclusive_from(inclusive, output, initial, op);
  }
  void ExclusiveSum(T input, T& output) { ExclusiveScan(input, output, T(), Sum()); }

  // With the logical warp's total (every lane gets it).
  template <typename Op> void InclusiveScan(T input, T& output, Op op, T& warp_aggregate) {
    InclusiveScan(input, output, op);
    warp_aggregate = Broadcast(output, LOGICAL_WARP_THREADS - 1);
  }
  void InclusiveSum(T input, T& output, T& warp_aggregate) { InclusiveScan(input, output, Sum(), warp_aggregate); }
  template <typename Op> void ExclusiveScan(T input, T& output, T initial, Op op, T& warp_aggregate) {
    T inclusive;
    InclusiveScan(input, inclusive, op, warp_aggregate);
    exclusive_from(inclusive, output, initial, op);
  }
  void ExclusiveSum(T input, T& output, T& warp_aggregate) { ExclusiveScan(input, output, T(), Sum(), warp_aggregate); }
  // Without an initial value: lane 0's output is undefined in cub (here its input).
  template <typename Op> void ExclusiveScan(T input, T& output, Op op) {
    T inclusive;
    InclusiveScan(input, inclusive, op);
    shifted(inclusive, output, input);
  }
  template <typename Op> void ExclusiveScan(T input, T& output, Op op, T& warp_aggregate) {
    T inclusive;
    InclusiveScan(input, inclusive, op, warp_aggregate);
    shifted(inclusive, output, input);
  }
  // Both scans at once.
  template <typename Op> void Scan(T input, T& inclusive_output, T& exclusive_output, Op op) {
    InclusiveScan(input, inclusive_output, op);
    shifted(inclusive_output, exclusive_output, input);
  }
  template <typename Op> void Scan(T input, T& inclusive_output, T& exclusive_output, T initial, Op op) {
    InclusiveScan(input, inclusive_output, op);
    exclusive_from(inclusive_output, exclusive_output, initial, op);
  }
  // The value of lane src_lane of the logical warp, in every lane.
  T Broadcast(T input, unsigned src_lane) {
    const unsigned base = segment_base();
    return ::fl::emu::shfl_sync(__LINE__, detail::segment_lanes(base, LOGICAL_WARP_THREADS), input,
                                static_cast<int>(src_lane), LOGICAL_WARP_THREADS);
  }

 private:
  static unsigned segment_base() {
    const unsigned warp_lane = ::fl::emu::lane_in_warp();
    return warp_lane / LOGICAL_WARP_THREADS * LOGICAL_WARP_THREADS;
  }
  // output: the inclusive scan of the lane before (first_lane_value in the first lane).
  void shifted(T inclusive, T& output, T first_lane_value) {
    const unsigned base = segment_base();
    T previous = ::fl::emu::shfl_up_sync(__LINE__, detail::segment_lanes(base, LOGICAL_WARP_THREADS), inclusive, 1,
                                         LOGICAL_WARP_THREADS);
    output = ::fl::emu::lane_in_warp() == base ? first_lane_value : previous;
  }
  template <typename Op> void exclusive_from(T inclusive, T& output, T initial, Op op) {
    T previous;
    const bool first = ::fl::emu::lane_in_warp() == segment_base();
    shifted(inclusive, previous, initial);
    output = first ? initial : op(initial, previous);
  }
};

template <typename T, int BLOCK_DIM_X, BlockReduceAlgorithm ALGORITHM = BLOCK_REDUCE_WARP_REDUCTIONS,
          int BLOCK_DIM_Y = 1, int BLOCK_DIM_Z = 1, int LEGACY_PTX_ARCH = 0>
class BlockReduce {
  static constexpr int BLOCK_THREADS = BLOCK_DIM_X * BLOCK_DIM_Y * BLOCK_DIM_Z;

 public:
  // One slot a warp's total; sized for the smallest warps.
  struct TempStorage {
    detail::raw_array<T, BLOCK_THREADS> warp_totals;
  };

  explicit BlockReduce(TempStorage& storage) : storage_(storage) {}

  // The result is valid in thread 0. Every thread the template names takes part:
  // in a block of another size a GPU combines warp totals no thread wrote (or
  // writes past them), which check mode reports; plain mode reduces the block's.
  template <typename Op> T Reduce(T input, Op op) {
    const fl_emu_dim3& d = ::fl::emu::tls().block_dim;
    ::fl::emu::block_state& b = ::fl::emu::current_block();
    if (b.check && d.x * d.y * d.z != static_cast<unsigned>(BLOCK_THREADS)) {
      ::fl::emu::fail(b, "kernel '%s': cub::BlockReduce of %d threads in a block of %u: a full Reduce or Sum needs the block to "
                         "run the threads the template names (a GPU combines warp totals no thread wrote): size it to the block, "
                         "or pass the count of valid items",
                      b.launch->desc->kernel, BLOCK_THREADS, d.x * d.y * d.z);
      ::fl::emu::abandon_block(b);
    }
    return Reduce(input, op, BLOCK_THREADS);
  }
  template <typename Op> T Reduce(T input, Op op, int num_valid) {
    unsigned thread = detail::linear_thread();
    unsigned warp_size = ::fl::emu::tls().warp_size;
    unsigned warp = thread / warp_size, lane = thread % warp_size, base = warp * warp_size;
    // A block may run fewer threads than BLOCK_THREADS (vLLM's BlockReduce<float, 1024> in blocks of min(hidden, 1024)).
    const fl_emu_dim3& d = ::fl::emu::tls().block_dim;
    const unsigned threads = d.x * d.y * d.z < BLOCK_THREADS ? d.x * d.y * d.z : BLOCK_THREADS;
    unsigned valid_total = num_valid < static_cast<int>(threads) ? static_cast<unsigned>(num_valid) : threads;
    unsigned in_warp = threads - base < warp_size ? threads - base : warp_size;
    unsigned valid = valid_total <= base ? 0 : valid_total - base < in_warp ? valid_total - base : in_warp;
    T total = detail::warp_reduce(input, op, lane, warp_size, valid, detail::segment_lanes(0, in_warp));
    if (lane == 0 && valid > 0) storage_.warp_totals[warp] = total;
    ::fl::emu::syncthreads(__LINE__);
    if (thread == 0) {
      unsigned warps = (valid_total + warp_size - 1) / warp_size;
      for (unsigned w = 1; w < warps; w++) total = op(total, storage_.warp_totals[w]);
    }
    return total;
  }
  T Sum(T input) { return Reduce(input, cub::Sum()); }
  T Sum(T input, int num_valid) { return Reduce(input, cub::Sum(), num_valid); }
  template <int N, typename Op> T Reduce(T (&inputs)[N], Op op) {
    T partial = inputs[0];
    for (int i = 1; i < N; i++) partial = op(partial, inputs[i]);
    return Reduce(partial, op);
  }
  template <int N> T Sum(T (&inputs)[N]) { return Reduce(inputs, cub::Sum()); }

 private:
  TempStorage& storage_;
};

template <typename T, int BLOCK_DIM_X, BlockScanAlgorithm ALGORITHM = BLOCK_SCAN_RAKING, int BLOCK_DIM_Y = 1,
          int BLOCK_DIM_Z = 1, int LEGACY_PTX_ARCH = 0>
class BlockScan {
  static constexpr int BLOCK_THREADS = BLOCK_DIM_X * BLOCK_DIM_Y * BLOCK_DIM_Z;

 public:
  struct TempStorage {
    detail::raw_array<T, BLOCK_THREADS> warp_totals;
    detail::raw_array<T, 1> block_prefix;
  };

  explicit BlockScan(TempStorage& storage) : storage_(storage) {}

  template <typename Op> void InclusiveScan(T input, T& output, Op op) {
    T aggregate;
    InclusiveScan(input, output, op, aggregate);
  }
  // block_aggregate: the scan of the whole block, in every thread.
  template <typename Op> void InclusiveScan(T input, T& output, Op op, T& block_aggregate) {
    T before;
    bool has_before;
    scan(input, op, output, before, has_before, block_aggregate);
  }
  void InclusiveSum(T input, T& output) { InclusiveScan(input, output, cub::Sum()); }
  void InclusiveSum(T input, T& output, T& block_aggregate) { InclusiveScan(input, output, cub::Sum(), block_aggregate); }

  // Thread i gets op(initial, x0 ... x(i-1)); thread 0 gets initial.
  template <typename Op> void ExclusiveScan(T input, T& output, T initial, Op op) {
    T aggregate;
    ExclusiveScan(input, output, initial, op, aggregate);
  }
  template <typename Op> void ExclusiveScan(T input, T& output, T initial, Op op, T& block_aggregate) {
    T inclusive, before;
    bool has_before;
    scan(input, op, inclusive, before, has_before, block_aggregate);
    output = has_before ? op(initial, before) : initial;
  }
  void ExclusiveSum(T input, T& output) { ExclusiveScan(input, output, T(), cub::Sum()); }
  void ExclusiveSum(T input, T& output, T& block_aggregate) {
    ExclusiveScan(input, output, T(), cub::Sum(), block_aggregate);
  }

  // With a prefix callback: the first warp calls prefix_op(block aggregate), and
  // what it returns to lane 0 is the prefix of the whole block (a scan over
  // tiles, one block's pass a tile).
  template <typename Op, typename PrefixOp> void InclusiveScan(T input, T& output, Op op, PrefixOp& prefix_op) {
    T before, aggregate;
    bool has_before;
    scan(input, op, output, before, has_before, aggregate);
    output = op(block_prefix(aggregate, prefix_op), output);
  }
  template <typename Op, typename PrefixOp> void ExclusiveScan(T input, T& output, Op op, PrefixOp& prefix_op) {
    T inclusive, before, aggregate;
    bool has_before;
    scan(input, op, inclusive, before, has_before, aggregate);
    const T prefix = block_prefix(aggregate, prefix_op);
    output = has_before ? op(prefix, before) : prefix;
  }
  template <typename PrefixOp> void InclusiveSum(T input, T& output, PrefixOp& prefix_op) {
    InclusiveScan(input, output, cub::Sum(), prefix_op);
  }
  template <typename PrefixOp> void ExclusiveSum(T input, T& output, PrefixOp& prefix_op) {
    ExclusiveScan(input, output, cub::Sum(), prefix_op);
  }

  // A thread's N consecutive items (a blocked arrangement): each thread scans
  // its own, the block scans the threads' totals, and each adds what came before.
  template <int N, typename Op> void InclusiveScan(T (&input)[N], T (&output)[N], Op op) {
    T aggregate;
    InclusiveScan(input, output, op, aggregate);
  }
  template <int N, typename Op> void InclusiveScan(T (&input)[N], T (&output)[N], Op op, T& block_aggregate) {
    T before;
    const bool has_before = threads_before(input, op, before, block_aggregate);
    scan_items(input, output, op, has_before, before);
  }
  template <int N, typename Op> void ExclusiveScan(T (&input)[N], T (&output)[N], T initial, Op op) {
    T aggregate;
    ExclusiveScan(input, output, initial, op, aggregate);
  }
  template <int N, typename Op> void ExclusiveScan(T (&input)[N], T (&output)[N], T initial, Op op, T& block_aggregate) {
    T before;
    const bool has_before = threads_before(input, op, before, block_aggregate);
    exclusive_items(input, output, op, has_before ? op(initial, before) : initial);
  }
  template <int N> void InclusiveSum(T (&input)[N], T (&output)[N]) { InclusiveScan(input, output, cub::Sum()); }
  template <int N> void InclusiveSum(T (&input)[N], T (&output)[N], T& block_aggregate) {
    InclusiveScan(input, output, cub::Sum(), block_aggregate);
  }
  template <int N> void ExclusiveSum(T (&input)[N], T (&output)[N]) { ExclusiveScan(input, output, T(), cub::Sum()); }
  template <int N> void ExclusiveSum(T (&input)[N], T (&output)[N], T& block_aggregate) {
    ExclusiveScan(input, output, T(), cub::Sum(), block_aggregate);
  }
  template <int N, typename Op, typename PrefixOp> void ExclusiveScan(T (&input)[N], T (&output)[N], Op op, PrefixOp& prefix_op) {
    T before, aggregate;
    const bool has_before = threads_before(input, op, before, aggregate);
    const T prefix = block_prefix(aggregate, prefix_op);
    exclusive_items(input, output, op, has_before ? op(prefix, before) : prefix);
  }
  template <int N, typename Op, typename PrefixOp> void InclusiveScan(T (&input)[N], T (&output)[N], Op op, PrefixOp& prefix_op) {
    T before, aggregate;
    const bool has_before = threads_before(input, op, before, aggregate);
    const T prefix = block_prefix(aggregate, prefix_op);
    scan_items(input, output, op, true, has_before ? op(prefix, before) : prefix);
  }
  template <int N, typename PrefixOp> void ExclusiveSum(T (&input)[N], T (&output)[N], PrefixOp& prefix_op) {
    ExclusiveScan(input, output, cub::Sum(), prefix_op);
  }
  template <int N, typename PrefixOp> void InclusiveSum(T (&input)[N], T (&output)[N], PrefixOp& prefix_op) {
    InclusiveScan(input, output, cub::Sum(), prefix_op);
  }

 private:
  // The block's prefix from the caller's functor, called by the first warp; lane 0's answer counts.
  template <typename PrefixOp> T block_prefix(T aggregate, PrefixOp& prefix_op) {
    const unsigned thread = detail::linear_thread();
    if (thread < ::fl::emu::tls().warp_size) {
      const T prefix = prefix_op(aggregate);
      if (thread == 0) storage_.block_prefix[0] = prefix;
    }
    ::fl::emu::syncthreads(__LINE__);
    const T prefix = storage_.block_prefix[0];
    ::fl::emu::syncthreads(__LINE__);
    return prefix;
  }
  // The scan of the items of the threads before this one (false for thread 0), and the block's total.
  template <int N, typename Op> bool threads_before(T (&input)[N], Op op, T& before, T& aggregate) {
    T total = input[0];
    for (int i = 1; i < N; i++) total = op(total, input[i]);
    T inclusive;
    bool has_before;
    scan(total, op, inclusive, before, has_before, aggregate);
    return has_before;
  }
  template <int N, typename Op> static void scan_items(T (&input)[N], T (&output)[N], Op op, bool has_before, T before) {
    T running = has_before ? op(before, input[0]) : input[0];
    output[0] = running;
    for (int i = 1; i < N; i++) output[i] = running = op(running, input[i]);
  }
  template <int N, typename Op> static void exclusive_items(T (&input)[N], T (&output)[N], Op op, T first) {
    T running = first;
    for (int i = 0; i < N; i++) {
      const T item = input[i];  // input and output may be the same array
      output[i] = running;
      running = op(running, item);
    }
  }

  // Scans each warp with shuffles, then adds the totals of the warps before.
  // before: the scan of the threads before this one (has_before: there are some).
  template <typename Op> void scan(T input, Op op, T& inclusive, T& before, bool& has_before, T& aggregate) {
    unsigned thread = detail::linear_thread();
    unsigned warp_size = ::fl::emu::tls().warp_size;
    unsigned warp = thread / warp_size, lane = thread % warp_size, base = warp * warp_size;
    unsigned in_warp = BLOCK_THREADS - base < warp_size ? BLOCK_THREADS - base : warp_size;
    unsigned long long lanes = detail::segment_lanes(0, in_warp);
    T in_warp_scan = detail::warp_inclusive_scan(input, op, lane, warp_size, lanes);
    if (lane == in_warp - 1) storage_.warp_totals[warp] = in_warp_scan;
    T previous = ::fl::emu::shfl_up_sync(__LINE__, lanes, in_warp_scan, 1, static_cast<int>(warp_size));
    ::fl::emu::syncthreads(__LINE__);
    T prefix = storage_.warp_totals[0];
    for (unsigned w = 1; w < warp; w++) prefix = op(prefix, storage_.warp_totals[w]);
    inclusive = warp > 0 ? op(prefix, in_warp_scan) : in_warp_scan;
    has_before = thread > 0;
    if (lane > 0) before = warp > 0 ? op(prefix, previous) : previous;
    else before = prefix;
    unsigned warps = (BLOCK_THREADS + warp_size - 1) / warp_size;
    aggregate = storage_.warp_totals[0];
    for (unsigned w = 1; w < warps; w++) aggregate = op(aggregate, storage_.warp_totals[w]);
    ::fl::emu::syncthreads(__LINE__);  // the storage may be reused once every thread has read it
  }

  TempStorage& storage_;
};

enum BlockLoadAlgorithm {
  BLOCK_LOAD_DIRECT, BLOCK_LOAD_STRIPED, BLOCK_LOAD_VECTORIZE, BLOCK_LOAD_TRANSPOSE, BLOCK_LOAD_WARP_TRANSPOSE,
  BLOCK_LOAD_WARP_TRANSPOSE_TIMESLICED
};
enum BlockStoreAlgorithm {
  BLOCK_STORE_DIRECT, BLOCK_STORE_STRIPED, BLOCK_STORE_VECTORIZE, BLOCK_STORE_TRANSPOSE, BLOCK_STORE_WARP_TRANSPOSE,
  BLOCK_STORE_WARP_TRANSPOSE_TIMESLICED
};

// A thread's items: blocked (thread t holds t * N ... t * N + N - 1) or striped
// (thread t holds t, t + threads ...), `valid` of the block's items present.
template <typename T, int N, typename It>
inline void LoadDirectBlocked(int thread, It block, T (&items)[N], int valid = 1 << 30) {
  for (int k = 0; k < N; k++) if (thread * N + k < valid) items[k] = block[thread * N + k];
}
template <typename T, int N, typename It, typename Default>
inline void LoadDirectBlocked(int thread, It block, T (&items)[N], int valid, Default fill) {
  for (int k = 0; k < N; k++) items[k] = thread * N + k < valid ? T(block[thread * N + k]) : T(fill);
}
template <int kThreadCount, typename T, int N, typename It>
inline void LoadDirectStriped(int thread, It block, T (&items)[N], int valid = 1 << 30) {
  for (int k = 0; k < N; k++) if (k * kThreadCount + thread < valid) items[k] = block[k * kThreadCount + thread];
}
template <int kThreadCount, typename T, int N, typename It, typename Default>
inline void LoadDirectStriped(int thread, It block, T (&items)[N], int valid, Default fill) {
  for (int k = 0; k < N; k++) items[k] = k * kThreadCount + thread < valid ? T(block[k * kThreadCount + thread]) : T(fill);
}
template <typename T, int N, typename It>
inline void StoreDirectBlocked(int thread, It block, T (&items)[N], int valid = 1 << 30) {
  for (int k = 0; k < N; k++) if (thread * N + k < valid) block[thread * N + k] = items[k];
}
template <int kThreadCount, typename T, int N, typename It>
inline void StoreDirectStriped(int thread, It block, T (&items)[N], int valid = 1 << 30) {
  for (int k = 0; k < N; k++) if (k * kThreadCount + thread < valid) block[k * kThreadCount + thread] = items[k];
}

namespace detail {
// The bytes cub's TempStorage holds for a block load or store: none (one byte)
// for the direct algorithms, a BlockExchange of the items for the transposing
// ones (a warp's worth at a time when time-sliced; a word of padding every 32
// items for 8, 16 ... items a thread), 16-byte aligned, and for a store the count
// of valid items, as CUDA 13's cub lays them out. The CPU does not use them; sources add
// them up to carve their dynamic shared memory (causal-conv1d's
// `smem_ + sizeof(BlockLoadT::TempStorage)`), which then lies as on the GPU.
template <typename T, int kThreadCount, int kItemCount, bool TRANSPOSED, bool TIME_SLICED> constexpr int exchange_bytes() {
  if (!TRANSPOSED) return 1;
  const int sliced = (TIME_SLICED && kThreadCount > 32 ? 32 : kThreadCount) * kItemCount;
  const bool padded = kItemCount > 4 && (kItemCount & (kItemCount - 1)) == 0;
  return static_cast<int>(sizeof(T)) * (sliced + (padded ? sliced >> 5 : 0));
}
template <int BYTES> struct alignas(BYTES == 1 ? 1 : 16) exchange_storage {
  unsigned char bytes[BYTES];
};
// A transposing store keeps the count of valid items beside the exchange.
template <int BYTES> struct store_storage {
  exchange_storage<BYTES> exchange;
  int valid_items;
};
}  // namespace detail

// Every algorithm but the striped one gives each thread its items blocked; cub
// goes through shared memory to coalesce, which the CPU has no use for. Items past
// `valid` are left as they were, or set to the default given.
template <typename T, int BLOCK_DIM_X, int ITEMS_PER_THREAD, BlockLoadAlgorithm ALGORITHM = BLOCK_LOAD_DIRECT,
          int BLOCK_DIM_Y = 1, int BLOCK_DIM_Z = 1, int LEGACY_PTX_ARCH = 0>
class BlockLoad {
  static constexpr int kThreadCount = BLOCK_DIM_X * BLOCK_DIM_Y * BLOCK_DIM_Z;

 public:
  using TempStorage = detail::exchange_storage<detail::exchange_bytes<T, kThreadCount, ITEMS_PER_THREAD, (ALGORITHM >= BLOCK_LOAD_TRANSPOSE),
                                                                      ALGORITHM == BLOCK_LOAD_WARP_TRANSPOSE_TIMESLICED>()>;
  BlockLoad() = default;
  explicit BlockLoad(TempStorage&) {}

  template <typename It> void Load(It block, T (&items)[ITEMS_PER_THREAD]) { Load(block, items, kThreadCount * ITEMS_PER_THREAD); }
  template <typename It> void Load(It block, T (&items)[ITEMS_PER_THREAD], int valid) {
    const int thread = static_cast<int>(detail::linear_thread());
    if (ALGORITHM == BLOCK_LOAD_STRIPED) LoadDirectStriped<kThreadCount>(thread, block, items, valid);
    else LoadDirectBlocked(thread, block, items, valid);
  }
  template <typename It, typename Default> void Load(It block, T (&items)[ITEMS_PER_THREAD], int valid, Default fill) {
    const int thread = static_cast<int>(detail::linear_thread());
    if (ALGORITHM == BLOCK_LOAD_STRIPED) LoadDirectStriped<kThreadCount>(thread, block, items, valid, fill);
    else LoadDirectBlocked(thread, block, items, valid, fill);
  }
};

template <typename T, int BLOCK_DIM_X, int ITEMS_PER_THREAD, BlockStoreAlgorithm ALGORITHM = BLOCK_STORE_DIRECT,
          int BLOCK_DIM_Y = 1, int BLOCK_DIM_Z = 1, int LEGACY_PTX_ARCH = 0>
class BlockStore {
  static constexpr int kThreadCount = BLOCK_DIM_X * BLOCK_DIM_Y * BLOCK_DIM_Z;
  static constexpr int EXCHANGE_BYTES = detail::exchange_bytes<T, kThreadCount, ITEMS_PER_THREAD, (ALGORITHM >= BLOCK_STORE_TRANSPOSE),
                                                              ALGORITHM == BLOCK_STORE_WARP_TRANSPOSE_TIMESLICED>();

 public:
  using TempStorage = std::conditional_t<ALGORITHM >= BLOCK_STORE_TRANSPOSE, detail::store_storage<EXCHANGE_BYTES>, detail::exchange_storage<1>>;
  BlockStore() = default;
  explicit BlockStore(TempStorage&) {}

  template <typename It> void Store(It block, T (&items)[ITEMS_PER_THREAD]) { Store(block, items, kThreadCount * ITEMS_PER_THREAD); }
  template <typename It> void Store(It block, T (&items)[ITEMS_PER_THREAD], int valid) {
    const int thread = static_cast<int>(detail::linear_thread());
    if (ALGORITHM == BLOCK_STORE_STRIPED) StoreDirectStriped<kThreadCount>(thread, block, items, valid);
    else StoreDirectBlocked(thread, block, items, valid);
  }
};

}  // namespace cub

#endif
