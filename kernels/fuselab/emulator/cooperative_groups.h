// CUDA's cooperative groups on the CPU emulator: the thread block, tiles of a
// warp (thread_block_tile<N>, N a power of two up to warpSize) with their
// shuffles and votes, tiles of several warps (N up to 1024, with or without
// block_tile_memory) with sync and cg::reduce, thread_group for either,
// cg::reduce and the scans, coalesced groups (coalesced_threads(),
// labeled_partition, binary_partition). A grid-wide sync needs a cooperative launch, which
// fuselab does not make: it stops the kernel with that reason.
#ifndef FUSELAB_EMULATOR_COOPERATIVE_GROUPS_H
#define FUSELAB_EMULATOR_COOPERATIVE_GROUPS_H

#include "intrinsics.h"

namespace cooperative_groups {

namespace details {
using ::fl::emu::linear_thread;
inline unsigned block_threads() {
  const fl_emu_dim3& d = ::fl::emu::tls().block_dim;
  return d.x * d.y * d.z;
}
}  // namespace details

class thread_block {
 public:
  void sync(int line = __builtin_LINE()) const { ::fl::emu::syncthreads(line); }
  unsigned int thread_rank() const { return details::linear_thread(); }
  unsigned long long size() const { return details::block_threads(); }
  unsigned long long num_threads() const { return details::block_threads(); }
  dim3 group_index() const { return blockIdx; }
  dim3 thread_index() const { return threadIdx; }
  dim3 group_dim() const { return blockDim; }
  dim3 dim_threads() const { return blockDim; }
};

inline thread_block this_thread_block() { return {}; }

// The scratch CUDA's tiles of more than a warp keep their collectives in (CUDA
// 11.1 named it experimental::); the emulator needs none, and takes it.
template <unsigned MaxBlockSize = 1024> struct block_tile_memory {};
template <unsigned MaxBlockSize> inline thread_block this_thread_block(block_tile_memory<MaxBlockSize>&) { return {}; }
namespace experimental {
using ::cooperative_groups::block_tile_memory;
using ::cooperative_groups::this_thread_block;
}  // namespace experimental

class grid_group {
 public:
  void sync(int line = __builtin_LINE()) const { ::fl::emu::grid_sync(line); }
  unsigned long long thread_rank() const {
    const fl_emu_dim3& b = ::fl::emu::tls().where.block;
    const fl_emu_dim3& g = ::fl::emu::tls().grid_dim;
    return (b.x + g.x * (b.y + g.y * static_cast<unsigned long long>(b.z))) * details::block_threads() +
           details::linear_thread();
  }
  unsigned long long size() const {
    const fl_emu_dim3& g = ::fl::emu::tls().grid_dim;
    return static_cast<unsigned long long>(g.x) * g.y * g.z * details::block_threads();
  }
  unsigned long long num_threads() const { return size(); }
  // Launched with every block at once: fuselab does so for a kernel whose source syncs its grid.
  bool is_valid() const { return ::fl::emu::current_block().launch->desc->cooperative != 0; }
  unsigned long long num_blocks() const {
    const fl_emu_dim3& g = ::fl::emu::tls().grid_dim;
    return static_cast<unsigned long long>(g.x) * g.y * g.z;
  }
  unsigned long long block_rank() const {
    const fl_emu_dim3& b = ::fl::emu::tls().where.block;
    const fl_emu_dim3& g = ::fl::emu::tls().grid_dim;
    return b.x + g.x * (b.y + g.y * static_cast<unsigned long long>(b.z));
  }
  dim3 dim_blocks() const { return gridDim; }
  dim3 block_index() const { return blockIdx; }
  dim3 group_dim() const { return dim3(gridDim.x * blockDim.x, gridDim.y * blockDim.y, gridDim.z * blockDim.z); }
};

inline grid_group this_grid() { return {}; }

// Size lanes of a warp, aligned to Size; or, past a warp, Size threads of the
// block (ranks aligned to Size), which synchronize as the block does: every
// tile of the block syncs together (each reduce of such tiles in turn).
template <unsigned Size, typename Parent = void>
class thread_block_tile {
  static_assert(Size >= 1 && Size <= 1024 && (Size & (Size - 1)) == 0, "tiles are a power of two from 1 to 1024 threads");
  static bool spans_warps() { return Size > ::fl::emu::tls().warp_size; }

  static unsigned lane() { return ::fl::emu::lane_in_warp(); }
  static unsigned long long lanes() {
    unsigned long long ones = Size >= 64 ? ~0ull : (1ull << (Size % 64)) - 1;
    return ones << (lane() & ~(Size - 1));
  }

 public:
  thread_block_tile() = default;
  // A tile of one parent type stands for a tile of any (thread_block_tile<32> t = tiled_partition<32>(block)).
  template <typename OtherParent> thread_block_tile(const thread_block_tile<Size, OtherParent>&) {}

  static constexpr unsigned int size() { return Size; }
  static constexpr unsigned int num_threads() { return Size; }
  unsigned int thread_rank() const { return details::linear_thread() & (Size - 1); }
  unsigned int meta_group_rank() const { return details::linear_thread() / Size; }
  unsigned int meta_group_size() const { return (details::block_threads() + Size - 1) / Size; }
  void sync(int line = __builtin_LINE()) const {
    if (spans_warps()) ::fl::emu::syncthreads(line);
    else ::fl::emu::syncwarp(line, lanes());
  }

  template <typename T> T shfl(T v, int source, int line = __builtin_LINE()) const { return ::fl::emu::shfl_sync(line, lanes(), v, source, Size); }
  template <typename T> T shfl_down(T v, unsigned delta, int line = __builtin_LINE()) const {
    return ::fl::emu::shfl_down_sync(line, lanes(), v, delta, Size);
  }
  template <typename T> T shfl_up(T v, unsigned delta, int line = __builtin_LINE()) const { return ::fl::emu::shfl_up_sync(line, lanes(), v, delta, Size); }
  template <typename T> T shfl_xor(T v, unsigned mask, int line = __builtin_LINE()) const {
    return ::fl::emu::shfl_xor_sync(line, lanes(), v, static_cast<int>(mask), Size);
  }
  int any(int p, int line = __builtin_LINE()) const { return static_cast<int>(::fl::emu::vote_sync(::fl::emu::warp_op::any, line, lanes(), p != 0)); }
  int all(int p, int line = __builtin_LINE()) const { return static_cast<int>(::fl::emu::vote_sync(::fl::emu::warp_op::all, line, lanes(), p != 0)); }
  // The tile's lanes' votes, bit 0 for its rank 0.
  unsigned int ballot(int p, int line = __builtin_LINE()) const {
    unsigned long long votes = ::fl::emu::vote_sync(::fl::emu::warp_op::ballot, line, lanes(), p != 0);
    return static_cast<unsigned int>(votes >> (lane() & ~(Size - 1)));
  }
};

template <unsigned Size, typename Parent>
inline thread_block_tile<Size, Parent> tiled_partition(const Parent&) {
  return {};
}

// The lanes of a warp that reach a point together (coalesced_threads(), as
// __activemask() finds them), or those of a parent that share a label
// (labeled_partition, __match_any_sync) or a predicate (binary_partition,
// __ballot_sync). Ranks count the group's lanes from the lowest; shuffles name
// a rank, and a shfl_down or shfl_up past the group's ends gives the lane its
// own value, as CUDA's implementation does.
class coalesced_group {
 public:
  explicit coalesced_group(unsigned long long lanes) : lanes_(lanes) {}

  unsigned long long size() const { return __builtin_popcountll(lanes_); }
  unsigned long long num_threads() const { return size(); }
  unsigned int thread_rank() const { return __builtin_popcountll(lanes_ & ((1ull << lane()) - 1)); }
  unsigned int meta_group_rank() const { return 0; }
  unsigned int meta_group_size() const { return 1; }
  void sync(int line = __builtin_LINE()) const { ::fl::emu::syncwarp(line, lanes_); }

  template <typename T> T shfl(T v, int rank, int line = __builtin_LINE()) const {
    return ::fl::emu::shfl_sync(line, lanes_, v, static_cast<int>(lane_of(static_cast<unsigned>(rank) % size())));
  }
  template <typename T> T shfl_down(T v, unsigned delta, int line = __builtin_LINE()) const {
    const unsigned long long to = thread_rank() + delta;
    return ::fl::emu::shfl_sync(line, lanes_, v, static_cast<int>(to < size() ? lane_of(to) : lane()));
  }
  template <typename T> T shfl_up(T v, unsigned delta, int line = __builtin_LINE()) const {
    const unsigned rank = thread_rank();
    return ::fl::emu::shfl_sync(line, lanes_, v, static_cast<int>(delta <= rank ? lane_of(rank - delta) : lane()));
  }
  int any(int p, int line = __builtin_LINE()) const { return static_cast<int>(::fl::emu::vote_sync(::fl::emu::warp_op::any, line, lanes_, p != 0)); }
  int all(int p, int line = __builtin_LINE()) const { return static_cast<int>(::fl::emu::vote_sync(::fl::emu::warp_op::all, line, lanes_, p != 0)); }
  // The group's votes, bit r for its rank r.
  unsigned int ballot(int p, int line = __builtin_LINE()) const {
    const unsigned long long votes = ::fl::emu::vote_sync(::fl::emu::warp_op::ballot, line, lanes_, p != 0);
    unsigned int packed = 0, bit = 0;
    for (unsigned long long m = lanes_; m; m &= m - 1, bit++)
      if (votes & m & (~m + 1)) packed |= 1u << bit;
    return packed;
  }
  unsigned long long lanes() const { return lanes_; }

 private:
  static unsigned lane() { return ::fl::emu::lane_in_warp(); }
  unsigned lane_of(unsigned long long rank) const {
    unsigned long long m = lanes_;
    for (; rank > 0; rank--) m &= m - 1;
    return static_cast<unsigned>(__builtin_ctzll(m));
  }
  unsigned long long lanes_;
};

// Grouped by the call's line, as a GPU groups the lanes that reach one call: each arm of
// an if/else that calls it has its own group.
inline coalesced_group coalesced_threads(int line = __builtin_LINE()) {
  return coalesced_group(::fl::emu::warp_exchange(::fl::emu::warp_op::activemask, line, 0, 0, ::fl::emu::kWholeWarp));
}

// One thread of the group calls fn (its rank 0, as CUDA elects one); invoke_one_broadcast
// hands what it returned to the whole group (a tile or a coalesced group).
template <typename Group, typename Fn, typename... Args>
inline void invoke_one(const Group& group, Fn&& fn, Args&&... args) {
  if (group.thread_rank() == 0) fn(static_cast<Args&&>(args)...);
}
template <typename Group, typename Fn, typename... Args>
inline auto invoke_one_broadcast(const Group& group, Fn&& fn, Args&&... args) -> decltype(fn(static_cast<Args&&>(args)...)) {
  decltype(fn(static_cast<Args&&>(args)...)) result{};
  if (group.thread_rank() == 0) result = fn(static_cast<Args&&>(args)...);
  return group.shfl(result, 0);
}

namespace details {
template <unsigned Size, typename Parent> unsigned long long lanes_of(const thread_block_tile<Size, Parent>&) {
  static_assert(Size <= 64, "labeled_partition and binary_partition divide a tile of at most a warp");
  const unsigned lane = ::fl::emu::lane_in_warp();
  const unsigned long long ones = Size >= 64 ? ~0ull : (1ull << Size) - 1;
  return ones << (lane & ~(Size - 1));
}
inline unsigned long long lanes_of(const coalesced_group& g) { return g.lanes(); }
}  // namespace details

template <typename Group, typename Label>
inline coalesced_group labeled_partition(const Group& parent, Label label, int line = __builtin_LINE()) {
  const unsigned long long lanes = details::lanes_of(parent);
  return coalesced_group(::fl::emu::match_any_sync(line, lanes, label));
}
template <typename Group>
inline coalesced_group binary_partition(const Group& parent, bool predicate, int line = __builtin_LINE()) {
  const unsigned long long lanes = details::lanes_of(parent);
  const unsigned long long votes = ::fl::emu::vote_sync(::fl::emu::warp_op::ballot, line, lanes, predicate);
  return coalesced_group(predicate ? votes : lanes & ~votes);
}

// The largest tile a thread_group holds: a warp, of 64 lanes where HIP's headers
// are on AMD's platform, else of 32 as CUDA's (a module of a CUDA source serves
// both widths).
#if defined(FL_EMU_WARP_SIZE) && FL_EMU_WARP_SIZE == 64
constexpr unsigned kMostGroupTile = 64;
#else
constexpr unsigned kMostGroupTile = 32;
#endif

// Any group, its kind known at run time: the thread block, a tile of a warp
// (a thread_block_tile, or tiled_partition(parent, n) with n chosen at run time),
// or a coalesced group.
class thread_group {
 public:
  thread_group(const thread_block&) : tile_size_(0) {}
  // A tile of a warp at most: CUDA's headers convert no larger one (NVRTC refuses it too), and HIP's have none.
  template <unsigned Size, typename Parent> thread_group(const thread_block_tile<Size, Parent>&) : tile_size_(Size) {
    static_assert(Size <= kMostGroupTile,
                  "a thread_block_tile of more threads than a warp converts to no cooperative_groups::thread_group, as in "
                  "CUDA's headers: pass the tile as its own type (a template parameter, or thread_block_tile<Size>)");
  }
  thread_group(const coalesced_group& g) : tile_size_(0), coalesced_(g.lanes()) {}
  // A tile of `size` threads, a power of two from 1 to warpSize; 0 for the block.
  explicit thread_group(unsigned size) : tile_size_(size) {
    const unsigned warp = ::fl::emu::tls().warp_size;
    if (size == 0 || size > warp || (size & (size - 1)) != 0) {
      ::fl::emu::block_state& b = ::fl::emu::current_block();
      ::fl::emu::fail(b, "kernel '%s': tiled_partition(parent, %u): a tile is a power of two from 1 to warpSize (%u) threads",
                      b.launch->desc->kernel, size, warp);
      ::fl::emu::abandon_block(b);
    }
  }

  void sync(int line = __builtin_LINE()) const {
    if (tile_size_ == 0 && coalesced_ == 0) ::fl::emu::syncthreads(line);
    else ::fl::emu::syncwarp(line, lanes());
  }
  unsigned long long size() const {
    return coalesced_ ? __builtin_popcountll(coalesced_) : tile_size_ ? tile_size_ : details::block_threads();
  }
  unsigned long long num_threads() const { return size(); }
  unsigned int thread_rank() const {
    if (coalesced_) return __builtin_popcountll(coalesced_ & ((1ull << lane()) - 1));
    return tile_size_ ? lane() & (tile_size_ - 1) : details::linear_thread();
  }
  unsigned int meta_group_rank() const { return tile_size_ ? details::linear_thread() / tile_size_ : 0; }
  unsigned int meta_group_size() const { return tile_size_ ? (details::block_threads() + tile_size_ - 1) / tile_size_ : 1; }

 private:
  static unsigned lane() { return ::fl::emu::lane_in_warp(); }
  unsigned long long lanes() const {
    if (coalesced_) return coalesced_;
    const unsigned long long ones = tile_size_ == 64 ? ~0ull : (1ull << tile_size_) - 1;
    return ones << (lane() & ~(tile_size_ - 1));
  }
  unsigned tile_size_;
  unsigned long long coalesced_ = 0;  // a coalesced group's lanes
};

// Tiles whose size is known only at run time (the parent's tiles of a block or of a larger tile).
inline thread_group tiled_partition(const thread_group&, unsigned size) { return thread_group(size); }
inline thread_group tiled_partition(const thread_block&, unsigned size) { return thread_group(size); }

template <typename Group> inline void sync(const Group& g, int line = __builtin_LINE()) { g.sync(line); }

template <typename T = void> struct plus {
  T operator()(const T& a, const T& b) const { return a + b; }
};
template <typename T = void> struct less {
  T operator()(const T& a, const T& b) const { return b < a ? b : a; }
};
template <typename T = void> struct greater {
  T operator()(const T& a, const T& b) const { return a < b ? b : a; }
};
template <typename T = void> struct bit_and {
  T operator()(const T& a, const T& b) const { return a & b; }
};
template <typename T = void> struct bit_or {
  T operator()(const T& a, const T& b) const { return a | b; }
};
template <typename T = void> struct bit_xor {
  T operator()(const T& a, const T& b) const { return a ^ b; }
};

namespace details {
// A block's slots for the values of tiles of several warps: a block's threads
// share the emulator's thread-local storage (as its __shared__ arrays do).
template <typename T> inline T* tile_slots() {
  static thread_local T slots[1024];
  return slots;
}
}  // namespace details

// Every thread of the tile gets op applied over the tile's values as CUDA's
// cooperative groups apply it: a butterfly of shuffles within a warp; past a
// warp, that butterfly in each warp, then one over the warps' results, whose
// rank 0 gives the tile's (so an operator that is not associative, or a NaN
// from combining two empty warps, comes out as on the GPU).
template <unsigned Size, typename Parent, typename T, typename Op>
inline T reduce(const thread_block_tile<Size, Parent>& tile, T value, Op op) {
  const unsigned warp = ::fl::emu::tls().warp_size;
  if (Size <= warp) {
    for (unsigned offset = Size / 2; offset > 0; offset /= 2) value = op(value, tile.shfl_xor(value, offset));
    return value;
  }
  const unsigned long long warp_lanes = warp == 64 ? ~0ull : (1ull << warp) - 1;
  for (unsigned offset = warp / 2; offset > 0; offset /= 2)
    value = op(value, ::fl::emu::shfl_xor_sync(__LINE__, warp_lanes, value, static_cast<int>(offset), static_cast<int>(warp)));
  T* slots = details::tile_slots<T>();
  const unsigned rank = details::linear_thread(), first_warp = (rank - tile.thread_rank()) / warp, warps = Size / warp;
  if (::fl::emu::lane_in_warp() == 0) slots[rank / warp] = value;
  tile.sync();
  // A tile the block ends inside (which CUDA leaves undefined) folds the warps it has in order.
  const unsigned present = (details::block_threads() - first_warp * warp + warp - 1) / warp;
  T results[Size / 32];
  for (unsigned w = 0; w < warps && w < present; w++) results[w] = slots[first_warp + w];
  tile.sync();
  if (present < warps) {
    for (unsigned w = 1; w < present; w++) results[0] = op(results[0], results[w]);
    return results[0];
  }
  // The butterfly over the warps' results: in step, each takes op(its own, its partner's).
  for (unsigned offset = warps / 2; offset > 0; offset /= 2) {
    T next[Size / 32];
    for (unsigned w = 0; w < warps; w++) next[w] = op(results[w], results[w ^ offset]);
    for (unsigned w = 0; w < warps; w++) results[w] = next[w];
  }
  return results[0];
}

// Over a coalesced group, every lane gets op applied over the values in rank order.
template <typename T, typename Op>
inline T reduce(const coalesced_group& group, T value, Op op) {
  T total = group.shfl(value, 0);
  for (unsigned rank = 1; rank < group.size(); rank++) total = op(total, group.shfl(value, static_cast<int>(rank)));
  return total;
}

// Scans over a tile of a warp or a coalesced group, in rank order.
template <typename Group, typename T, typename Op>
inline T inclusive_scan(const Group& group, T value, Op op) {
  for (unsigned offset = 1; offset < group.size(); offset *= 2) {
    T other = group.shfl_up(value, offset);
    if (group.thread_rank() >= offset) value = op(value, other);
  }
  return value;
}
template <typename Group, typename T>
inline T inclusive_scan(const Group& group, T value) {
  return inclusive_scan(group, value, plus<T>());
}
// Rank 0 gets T() (CUDA leaves it undefined for operators other than plus).
template <typename Group, typename T, typename Op>
inline T exclusive_scan(const Group& group, T value, Op op) {
  T inclusive = inclusive_scan(group, value, op);
  T shifted = group.shfl_up(inclusive, 1);
  return group.thread_rank() == 0 ? T() : shifted;
}
template <typename Group, typename T>
inline T exclusive_scan(const Group& group, T value) {
  return exclusive_scan(group, value, plus<T>());
}

}  // namespace cooperative_groups

#endif
