// SPDX-License-Identifier: BSD-3-Clause
// The extended descriptor as a plain value: ScaLAPACK's DESC with per-row/column block
// sizes. Pure C++: no MPI, no BLACS.
//
// Row block k (0-based) has row_blocks[k] rows and lives on process row
// (rsrc + k) mod nprow; likewise columns from csrc. Uniform sizes are exactly ScaLAPACK's
// block-cyclic DESC; one block per process row/column with sizes proportional to power is
// the thesis's heterogeneous block distribution; several unequal blocks per process is
// heterogeneous block-cyclic.
//
// `ranks` places the grid inside an enclosing communicator: rank_at(pr, pc) is the rank (in
// the communicator that the redistribution runs on) of the process at grid coordinate
// (pr, pc). Two layouts on different grids of one communicator (old grid and new grid
// after an expansion) are therefore directly comparable. A grid in BLACS row (or column)
// order from a base rank is a closed form (RankMap, two numbers); only arbitrary rank
// lists are held as a list, shared between copies of the layout, never copied.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <iterator>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "malleable/error.hpp"

namespace redist {

// Why an operation failed; the C API returns these values (redist.h REDIST_ERR_*).
enum class ErrorCode : int {
  Ok = 0,
  InvalidLayout = 1,     // a descriptor field is out of range
  SizeMismatch = 2,      // A and B (or their regions) disagree on global sizes
  RegionOutOfRange = 3,  // submatrix does not fit in the matrix
  LeadingDimension = 4,  // LLD smaller than the local rows
  NullBuffer = 5,        // a participating process passed no buffer
  NotInGrid = 6,         // process claims data of a grid it is not part of
  Inconsistent = 7,      // processes passed different layouts/regions
  Mpi = 8,               // an MPI call failed
  Internal = 9,
  InvalidArgument = 10   // a handle or enumeration that is not valid (communicator, schedule, dim)
};

// ErrorCode and the common code (malleable/error.hpp), one to one.
inline constexpr malleable::CodeTable<ErrorCode, 11> kErrorCodes{{
    {ErrorCode::Ok, malleable::Errc::Ok},
    {ErrorCode::InvalidLayout, malleable::Errc::Layout},
    {ErrorCode::SizeMismatch, malleable::Errc::SizeMismatch},
    {ErrorCode::RegionOutOfRange, malleable::Errc::Region},
    {ErrorCode::LeadingDimension, malleable::Errc::LeadingDimension},
    {ErrorCode::NullBuffer, malleable::Errc::NullBuffer},
    {ErrorCode::NotInGrid, malleable::Errc::NotInGrid},
    {ErrorCode::Inconsistent, malleable::Errc::Inconsistent},
    {ErrorCode::Mpi, malleable::Errc::Mpi},
    {ErrorCode::Internal, malleable::Errc::Internal},
    {ErrorCode::InvalidArgument, malleable::Errc::InvalidArgument},
}};
// A code no redist call raises is Internal.
constexpr malleable::Errc errc_of(ErrorCode c) noexcept { return kErrorCodes.errc_of(c, malleable::Errc::Internal); }
constexpr ErrorCode code_of(malleable::Errc c) noexcept { return kErrorCodes.code_of(c, ErrorCode::Internal); }

// Thrown by validation, planning and execution: the one form (malleable::Error, part
// Redist); the message names the argument and value at fault. code() is the C API's value
// (a message alone: InvalidLayout).
class Error : public malleable::Error {
 public:
  explicit Error(const std::string& what) : Error(ErrorCode::InvalidLayout, what) {}
  Error(ErrorCode code, const std::string& what)
      : malleable::Error(malleable::Part::Redist, errc_of(code), what) {}
  ErrorCode code() const noexcept { return code_of(errc()); }
};

// Most blocks one dimension of a layout may have (2^26): block lists, prefix sums and
// owners are materialised, so a larger count is refused with a message naming it instead
// of exhausting memory (m = 10^12 in blocks of 1 would need terabytes).
inline constexpr std::int64_t kMaxBlocks = std::int64_t{1} << 26;

// Sizes of the blocks of one dimension, read like a std::vector<std::int64_t>. Either an
// explicit list (heterogeneous blocks) or, for ScaLAPACK's uniform blocks, just the block
// size and the extent: a 4,194,304 x 1 vector in blocks of 1 is two numbers, not 32 MB
// allocated and copied with every Layout (per-block costs must not dominate).
// Equality compares the sizes, whichever form holds them.
class BlockSizes {
 public:
  using value_type = std::int64_t;
  class const_iterator {
   public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = std::int64_t;
    using difference_type = std::ptrdiff_t;
    using pointer = const std::int64_t*;
    using reference = std::int64_t;
    const_iterator() = default;
    const_iterator(const BlockSizes* b, std::size_t k) : b_(b), k_(k) {}
    std::int64_t operator*() const { return (*b_)[k_]; }
    const_iterator& operator++() { ++k_; return *this; }
    const_iterator operator++(int) { const_iterator t = *this; ++k_; return t; }
    bool operator==(const const_iterator& o) const { return k_ == o.k_; }
    bool operator!=(const const_iterator& o) const { return k_ != o.k_; }
   private:
    const BlockSizes* b_ = nullptr;
    std::size_t k_ = 0;
  };
  using iterator = const_iterator;

  BlockSizes() = default;
  BlockSizes(std::vector<std::int64_t> sizes) : list_(std::move(sizes)) {}  // NOLINT: a list is block sizes
  BlockSizes(std::initializer_list<std::int64_t> sizes) : list_(sizes) {}
  // ceil(extent / b) blocks of b, the last one possibly shorter; not validated here (b <= 0
  // or a negative extent are reported by Layout's validation, naming the field).
  static BlockSizes uniform(std::int64_t extent, std::int64_t b);

  std::size_t size() const { return compact_ ? static_cast<std::size_t>(count_) : list_.size(); }
  bool empty() const { return size() == 0; }
  std::int64_t operator[](std::size_t k) const {
    if (!compact_) return list_[k];
    const auto s = static_cast<std::int64_t>(k) * b_;
    return extent_ - s < b_ ? extent_ - s : b_;
  }
  std::int64_t front() const { return (*this)[0]; }
  std::int64_t back() const { return (*this)[size() - 1]; }
  const_iterator begin() const { return {this, 0}; }
  const_iterator end() const { return {this, size()}; }
  std::vector<std::int64_t> to_vector() const;
  // Held as (block size, extent) rather than a list.
  bool compact() const { return compact_; }
  // Every block but the last has the first one's size and the last is not larger: the
  // form ScaLAPACK's DESC describes. O(1) when compact(), O(blocks) for a list.
  bool is_uniform() const;

  friend bool operator==(const BlockSizes& x, const BlockSizes& y);
  friend bool operator!=(const BlockSizes& x, const BlockSizes& y) { return !(x == y); }

 private:
  std::vector<std::int64_t> list_;
  bool compact_ = false;
  std::int64_t b_ = 0, extent_ = 0, count_ = 0;
};

// One dimension of a layout with its block prefix sums, for O(log blocks) index maps.
// Built from a Layout with Layout::row_axis()/col_axis(); keep it while the layout lives.
// Uniform blocks (is_uniform()) use ScaLAPACK's closed forms and hold no per-block arrays,
// so building one is O(1) for compact sizes whatever the number of blocks.
class Axis {
 public:
  Axis() = default;
  Axis(const BlockSizes& blocks, int nprocs, int src);

  std::int64_t extent() const { return nb_ > 0 ? extent_ : start_.empty() ? 0 : start_.back(); }
  std::size_t nblocks() const { return nb_ > 0 ? count_ : sizes_.size(); }
  int nprocs() const { return np_; }
  std::int64_t block_start(std::size_t k) const {
    return nb_ > 0 ? static_cast<std::int64_t>(k) * nb_ : start_[k];
  }
  std::int64_t block_size(std::size_t k) const {
    if (nb_ == 0) return sizes_[k];
    const std::int64_t s = static_cast<std::int64_t>(k) * nb_;
    return extent_ - s < nb_ ? extent_ - s : nb_;
  }
  int block_owner(std::size_t k) const {
    return static_cast<int>((static_cast<std::int64_t>(src_) + static_cast<std::int64_t>(k)) % np_);
  }
  std::int64_t block_local_start(std::size_t k) const {
    return nb_ > 0 ? static_cast<std::int64_t>(k / static_cast<std::size_t>(np_)) * nb_ : local_start_[k];
  }
  // Uniform block size, or 0 when the sizes differ (prefix sums in use).
  std::int64_t uniform_block() const { return nb_; }

  std::size_t block_of(std::int64_t i) const;  // block holding global index i
  int owner(std::int64_t i) const { return block_owner(block_of(i)); }
  std::int64_t to_local(std::int64_t i) const;
  std::int64_t local_count(int p) const;
  std::int64_t to_global(int p, std::int64_t il) const;

 private:
  std::vector<std::int64_t> sizes_, start_, local_start_, local_count_;
  std::int64_t nb_ = 0, extent_ = 0;  // nb_ > 0: uniform blocks, closed forms, no arrays
  std::size_t count_ = 0;
  int np_ = 1, src_ = 0;
};

// Which communicator rank sits at each grid coordinate. Implicit (the default): row-major
// from a base rank, rank_at(pr, pc) = base + pr * npcol + pc (BLACS "Row" order; base 0 is
// the grid of ranks 0..P-1), or column-major, base + pc * nprow + pr (BLACS "Column"
// order): O(1) memory, rank look-ups and validation whatever P. Explicit: an arbitrary
// list, list[pr * npcol + pc], e.g. the session's spawned and merged worlds. The list is
// immutable and shared by every copy (a plan copies its layouts in O(1)); the facts
// validation, look-ups and fingerprints need (smallest and largest rank, a duplicate, the
// inverse map, a hash) are computed once when the list is given, O(P log P), not per use.
class RankMap {
 public:
  enum class Order { Row, Column };
  RankMap() = default;  // row-major from rank 0
  // An explicit list; an empty one is the default (row-major from 0).
  RankMap(std::vector<int> list);  // NOLINT: a list is a rank map
  RankMap(std::initializer_list<int> list) : RankMap(std::vector<int>(list)) {}
  static RankMap row_major(int base = 0) { return RankMap(Order::Row, base); }
  static RankMap column_major(int base = 0) { return RankMap(Order::Column, base); }
  // An explicit list in which a rank may hold several grid coordinates (a process that
  // holds the local arrays of several processes of an old grid: level recovery). Only for
  // the A side of a plan made whole or for one rank (make_plan plans it whole), executed
  // by an Exchange whose item names each held coordinate's array (ExchangeItem::held).
  static RankMap holding_several(std::vector<int> list);
  bool holds_several() const;  // made by holding_several (whether or not a rank repeats)

  bool is_explicit() const { return list_ != nullptr; }
  // The explicit list (empty when implicit); read ranks through at() / Layout::rank_at.
  const std::vector<int>& list() const;
  Order order() const { return order_; }
  int base() const { return base_; }

  int at(int pr, int pc, int nprow, int npcol) const {
    if (list_) return list_at(static_cast<std::size_t>(pr) * static_cast<std::size_t>(npcol) + static_cast<std::size_t>(pc));
    return order_ == Order::Row ? base_ + pr * npcol + pc : base_ + pc * nprow + pr;
  }
  // Grid coordinate of `rank`, or false: O(1) implicit, O(log P) explicit (the first, in
  // row-major order, of a rank holding several).
  bool find(int rank, int nprow, int npcol, int& pr, int& pc) const;
  // Every rank, row-major (O(P)): for tools and output, not for planning.
  std::vector<int> to_vector(int nprow, int npcol) const;
  // Throws redist::Error naming the fault unless the map places an nprow x npcol grid on
  // distinct non-negative ranks (as Layout::validate). O(1) for both forms.
  void validate(int nprow, int npcol) const;
  // Largest rank of an nprow x npcol grid (validated), O(1).
  int max_rank(int nprow, int npcol) const;
  // The same placement in canonical form for an nprow x npcol grid: an explicit list that
  // is row-major or column-major from its first rank becomes implicit, as does a
  // column-major single row or column (row-major then). O(1); equal placements of one
  // grid have equal canonical forms (compared by equal(), hashed by hash()).
  RankMap canonical(int nprow, int npcol) const;
  bool equal(const RankMap& o, int nprow, int npcol) const;
  std::uint64_t hash(int nprow, int npcol) const;  // of the canonical form, O(1)

 private:
  struct List;
  RankMap(Order o, int base) : order_(o), base_(base) {}
  int list_at(std::size_t k) const;
  std::shared_ptr<const List> list_;
  Order order_ = Order::Row;
  int base_ = 0;
};

struct Layout {
  std::int64_t m = 0, n = 0;            // global rows, columns
  BlockSizes row_blocks;                // sizes of the row blocks, sum == m
  BlockSizes col_blocks;                // sizes of the column blocks, sum == n
  int nprow = 1, npcol = 1;             // process grid
  int rsrc = 0, csrc = 0;               // process row/column owning block 0
  RankMap ranks;                        // grid coordinate -> communicator rank (rank_at)

  // ScaLAPACK block-cyclic: blocks of mb x nb (the last ones possibly shorter).
  // `ranks` default (or an empty list) means row-major 0..nprow*npcol-1 (BLACS "Row"
  // order); a list that is row- or column-major from its first rank is stored implicitly.
  static Layout block_cyclic(std::int64_t m, std::int64_t n, std::int64_t mb, std::int64_t nb,
                             int nprow, int npcol, int rsrc = 0, int csrc = 0,
                             RankMap ranks = {});
  // General form; validates. Throws redist::Error naming the bad field.
  static Layout from_blocks(BlockSizes row_blocks, BlockSizes col_blocks, int nprow, int npcol,
                            int rsrc = 0, int csrc = 0, RankMap ranks = {});
  // From a ScaLAPACK 9-integer DESC (DTYPE_=1, CTXT_, M_, N_, MB_, NB_, RSRC_, CSRC_, LLD_);
  // the context is not interpreted here, so the grid shape and ranks come from the caller.
  static Layout from_desc(const int desc[9], int nprow, int npcol, RankMap ranks = {});
  // Back to a DESC (context and lld supplied by the caller); throws if not uniform().
  std::array<int, 9> to_desc(int ctxt, int lld) const;

  void validate() const;  // throws redist::Error

  // Generalised numroc: local rows held by process row pr / local columns by pc.
  std::int64_t local_rows(int pr) const;
  std::int64_t local_cols(int pc) const;
  // Owner and local index of global row i (0-based): process row, local row.
  int row_owner(std::int64_t i) const;
  std::int64_t row_to_local(std::int64_t i) const;
  int col_owner(std::int64_t j) const;
  std::int64_t col_to_local(std::int64_t j) const;
  // Inverse map: local row il on process row pr -> global row.
  std::int64_t local_to_row(int pr, std::int64_t il) const;
  std::int64_t local_to_col(int pc, std::int64_t jl) const;
  // Grid coordinate of a communicator rank, or false if the rank is not in the grid
  // (O(1) for an implicit rank map, O(log P) for a list).
  bool coords_of(int rank, int& pr, int& pc) const { return ranks.find(rank, nprow, npcol, pr, pc); }
  int rank_at(int pr, int pc) const { return ranks.at(pr, pc, nprow, npcol); }
  // Every process's rank, row-major: O(P), for tools and output (planning uses rank_at).
  std::vector<int> rank_list() const { return ranks.to_vector(nprow, npcol); }
  bool uniform() const;  // every block but the last of each dimension has one size

  // Index maps with prefix sums: O(blocks) to build, O(log blocks) per query. The scalar
  // members above use a closed form when uniform() and build an Axis otherwise.
  Axis row_axis() const { return Axis(row_blocks, nprow, rsrc); }
  Axis col_axis() const { return Axis(col_blocks, npcol, csrc); }

  // Minimal LLD for the process at (pr, pc): max(1, local_rows(pr)), as ScaLAPACK asks.
  std::int64_t min_lld(int pr) const;
};

bool operator==(const Layout& x, const Layout& y);

// ScaLAPACK's rule for a 9-integer DESC handed to PxGEMR2D (REDIST/SRC/p?gemr.c): a
// process outside the DESC's grid passes DESC(CTXT_) = -1, and then no other entry is
// read (CP2K's ELPA path passes all nine entries -1 there). True for such a DESC, whatever
// its other eight entries hold. Otherwise DESC(DTYPE_) must be 1 (else Error, InvalidLayout:
// "DESC(DTYPE_) = <v> is not 1") and false is returned; the context itself, and the rest,
// are for the caller to check (a context is the BLACS' to resolve).
bool desc_outside_grid(const int desc[9]);

// Splits `total` into `parts` block sizes proportional to `weights` (largest remainder),
// each at least 1 when total >= parts: the thesis's heterogeneous block distribution
// as row_blocks/col_blocks input.
std::vector<std::int64_t> proportional_blocks(std::int64_t total, const std::vector<double>& weights);

}  // namespace redist
