// SPDX-License-Identifier: BSD-3-Clause
// resize::Matrix<T>: the handle Session::register_matrix<T> returns for a distributed
// matrix the session owns (its descriptor, its local buffer and leading dimension, the
// local <-> global index maps and element access by global index on the owner). The
// session rewrites all of it at every resize; the handle always shows the current state,
// so nothing has to be re-read by hand after a remap point (only raw pointers taken from
// data() or desc() belong to one grid).
//
//   auto A = s.register_matrix<double>("A", n, n, nb, nb);   // before start()/join()
//   ... s.start(g) ...
//   A.for_each_local([&](int i, int j, double& a) { a = f(i, j); });   // global i, j
//   pdgemv_(..., A.data(), &one, &one, A.desc(), ...);
//   if (A.owns(i, j)) A(i, j) = 0.0;        // A.at(i, j) throws on a non-owner
//
// Indices are 0-based (global i in [0, M), local il in [0, local_rows())); T is float,
// double, std::complex<float> or std::complex<double> (ScaLAPACK's s, d, c, z).
#pragma once

#include <array>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "malleable/redist/layout.hpp"
#include "malleable/redist/matrix.hpp"
#include "malleable/resize/types.hpp"

namespace resize {

class Session;

template <class T>
inline constexpr bool is_matrix_element_v =
    std::is_same_v<T, float> || std::is_same_v<T, double> || std::is_same_v<T, std::complex<float>> ||
    std::is_same_v<T, std::complex<double>>;

// Where one process sits in a redist::Layout and what it holds there: the index maps
// behind Matrix<T> (pure, no MPI), one implementation with redist's (redist::Axis).
// Block-cyclic layouts use ScaLAPACK's closed forms; per-block sizes (the extended
// descriptor) prefix sums, O(log blocks) per owner query. Building one is O(blocks)
// (O(1) for block-cyclic); the queries do not allocate. Indices are 0-based; an index
// outside the matrix (or a local index outside this process's part) throws redist::Error,
// except in owns(), which answers false.
class IndexMap {
 public:
  IndexMap() = default;  // a 0 x 0 matrix on a 1 x 1 grid, this process off it
  // myrow/mycol < 0: this process is not on the grid (it holds nothing).
  IndexMap(redist::Layout layout, int myrow, int mycol);

  const redist::Layout& layout() const { return layout_; }
  int rows() const { return static_cast<int>(layout_.m); }  // global M
  int cols() const { return static_cast<int>(layout_.n); }  // global N
  int nprow() const { return layout_.nprow; }
  int npcol() const { return layout_.npcol; }
  int myrow() const { return myrow_; }
  int mycol() const { return mycol_; }
  bool in_grid() const { return myrow_ >= 0 && mycol_ >= 0; }

  int row_owner(int i) const { return rows_.owner(i); }  // process row holding global row i
  int col_owner(int j) const { return cols_.owner(j); }
  int local_row(int i) const { return static_cast<int>(rows_.to_local(i)); }  // on its owner
  int local_col(int j) const { return static_cast<int>(cols_.to_local(j)); }
  int global_row(int il) const { return static_cast<int>(rows_.to_global(myrow_, il)); }  // on this process
  int global_col(int jl) const { return static_cast<int>(cols_.to_global(mycol_, jl)); }
  int local_rows() const { return in_grid() ? static_cast<int>(rows_.local_count(myrow_)) : 0; }
  int local_cols() const { return in_grid() ? static_cast<int>(cols_.local_count(mycol_)) : 0; }
  bool owns(int i, int j) const {
    return in_grid() && i >= 0 && i < rows() && j >= 0 && j < cols() && place(rows_, i).owner == myrow_ &&
           place(cols_, j).owner == mycol_;
  }
  // owns(i, j), and then the local indices of (i, j): one block look-up per dimension.
  bool find(int i, int j, int& il, int& jl) const {
    if (!in_grid() || i < 0 || i >= rows() || j < 0 || j >= cols()) return false;
    const Place r = place(rows_, i), c = place(cols_, j);
    if (r.owner != myrow_ || c.owner != mycol_) return false;
    il = r.local;
    jl = c.local;
    return true;
  }

  // f(il, jl, i, j) for every element this process holds, column by column (the local
  // buffer's order), walking the blocks: O(1) per element, no division, no allocation.
  template <class F>
  void for_each_local(F&& f) const {
    if (!in_grid()) return;
    walk(cols_, mycol_, [&](int jl, int j) { walk(rows_, myrow_, [&](int il, int i) { f(il, jl, i, j); }); });
  }

 private:
  // Owner and local index of global index i (inside the axis) from redist's block
  // accessors; uniform blocks find their block by one division, others by bisection.
  struct Place {
    int owner, local;
  };
  static Place place(const redist::Axis& a, int i) {
    const std::int64_t b = a.uniform_block();
    const std::size_t k = b > 0 ? static_cast<std::size_t>(i / b) : a.block_of(i);
    return {a.block_owner(k), static_cast<int>(a.block_local_start(k) + (i - a.block_start(k)))};
  }
  // g(local, global) for every index process p holds of axis a, in local order.
  template <class G>
  static void walk(const redist::Axis& a, int p, G&& g) {
    const std::size_t np = static_cast<std::size_t>(a.nprocs()), nblocks = a.nblocks();
    const std::size_t first = static_cast<std::size_t>((p - a.block_owner(0) + a.nprocs()) % a.nprocs());
    for (std::size_t k = first; k < nblocks; k += np) {
      const auto g0 = static_cast<int>(a.block_start(k)), l0 = static_cast<int>(a.block_local_start(k));
      const auto size = static_cast<int>(a.block_size(k));
      for (int t = 0; t < size; ++t) g(l0 + t, g0 + t);
    }
  }
  redist::Layout layout_;
  redist::Axis rows_, cols_;
  int myrow_ = -1, mycol_ = -1;
};

namespace detail {
// What an index map depends on besides M and N: the grid, this process's place on it and
// the version of the matrix's layout (bumped at each placement, Registered::place).
struct MapKey {
  int nprow = -1, npcol = -1, myrow = -1, mycol = -1;
  std::uint64_t blocks = ~std::uint64_t{0};
  bool operator==(const MapKey&) const = default;
};

class CachedMap;  // the index maps' cache (the library's resize/src/session/cached_map.hpp)

// A registered matrix's state in the session's registry entry, shared with its handle
// where it has one: its record (`mat`, redist::MatrixSpec: name, element type, shape,
// distribution and blocks) and its form on the current grid, {layout, context, lld}, from
// which the session derives what the application reads (the ScaLAPACK descriptor) besides
// the local buffer. The session writes it at start, join and resizes.
struct MatrixState {
  redist::MatrixSpec mat;                    // name, type, shape, distribution, blocks
  // The layout on the current grid (none before the first placement), the source of the
  // next move: kept because a regrid may change the powers an extended matrix's block
  // sizes follow (not its rule again); that handle reads its block sizes from it.
  std::optional<redist::Layout> layout;
  int context = -1;                          // the grid's BLACS context here (-1: no place on it)
  int lld = 1;                               // the local buffer's leading dimension
  // Block-cyclic: the handle's ScaLAPACK descriptor, the application's copy (its edge):
  // written from the form at each placement, never read by the library.
  std::array<int, 9> desc{};
  void* data = nullptr;                      // the local buffer (owned by the session)
  std::size_t elements = 0;                  // its length
  std::uint64_t blocks_version = 0;          // bumped when the session rewrites layout
  const Session* session = nullptr;          // null once the session is gone (or no handle)
  // A block-cyclic matrix's blocks on the current grid (the record's before the first
  // placement): MB and NB of its descriptor.
  int row_block() const;
  int col_block() const;
  // An extended-descriptor matrix's block sizes on the current grid (empty before its
  // first layout and for a block-cyclic matrix).
  std::vector<std::int64_t> row_blocks() const {
    return mat.extended() && layout ? layout->row_blocks.to_vector() : std::vector<std::int64_t>{};
  }
  std::vector<std::int64_t> col_blocks() const {
    return mat.extended() && layout ? layout->col_blocks.to_vector() : std::vector<std::int64_t>{};
  }
  // The index maps on the session's current grid (throws if the session is gone): built
  // once per grid and block sizes, then reused (a key of a few integers compared per
  // call). Not for concurrent first calls after a remap point from several threads.
  const IndexMap& map() const;
  // The same, built afresh without the cache.
  IndexMap build_map() const;
  MapKey key() const;  // throws if the session is gone
  [[noreturn]] void not_owner(int i, int j) const;
  [[noreturn]] void no_desc() const;
  void check_alive() const;
  mutable std::shared_ptr<CachedMap> cache;  // made by the first map()
};
}  // namespace detail

template <class T>
class Matrix {
  static_assert(is_matrix_element_v<T>, "resize::Matrix<T>: T is float, double, std::complex<float> or "
                                        "std::complex<double>");

 public:
  using value_type = T;
  Matrix() = default;  // no matrix; assign from Session::register_matrix<T>

  const std::string& name() const { return st_->mat.name; }
  int rows() const { return static_cast<int>(st_->mat.m); }  // global M
  int cols() const { return static_cast<int>(st_->mat.n); }  // global N
  // Per-process block sizes (registered with BlockSizes): no ScaLAPACK descriptor.
  bool extended() const { return st_->mat.extended(); }

  // The ScaLAPACK descriptor on the current grid (DESC[CTXT] = -1 off the grid), for
  // PBLAS/ScaLAPACK calls. An extended-descriptor matrix has none (throws resize::Error).
  const int* desc() const {
    if (extended()) st_->no_desc();
    return st_->desc.data();
  }
  const std::array<int, 9>& descriptor() const {
    if (extended()) st_->no_desc();
    return st_->desc;
  }
  // The local buffer, column-major with leading dimension lld(); valid until the next
  // remap point (the session owns and reallocates it).
  T* data() { return static_cast<T*>(st_->data); }
  const T* data() const { return static_cast<const T*>(st_->data); }
  int lld() const { return st_->lld; }
  std::size_t size() const { return st_->elements; }  // buffer length (>= lld x local_cols)
  int local_rows() const { return map().local_rows(); }
  int local_cols() const { return map().local_cols(); }
  // Block sizes: MB x NB (block-cyclic) or, for an extended descriptor, the size of the
  // row block of every process row and the column block of every process column (a copy,
  // read from the matrix's layout on the current grid: empty for a block-cyclic matrix).
  int mb() const { return extended() ? 0 : st_->row_block(); }
  int nb() const { return extended() ? 0 : st_->col_block(); }
  std::vector<std::int64_t> row_blocks() const { return st_->row_blocks(); }
  std::vector<std::int64_t> col_blocks() const { return st_->col_blocks(); }

  // The index maps on the current grid (local <-> global, owners), kept by the handle
  // until the session remaps the matrix (the reference is valid until the next remap
  // point); map().layout() is the matrix's redist::Layout (grid coordinates, ranks
  // row-major).
  const IndexMap& map() const { return st_->map(); }
  int global_row(int il) const { return map().global_row(il); }
  int global_col(int jl) const { return map().global_col(jl); }
  int local_row(int i) const { return map().local_row(i); }
  int local_col(int j) const { return map().local_col(j); }

  // Element by local index (no check).
  T& local(int il, int jl) { return data()[il + static_cast<std::size_t>(jl) * static_cast<std::size_t>(lld())]; }
  const T& local(int il, int jl) const {
    return data()[il + static_cast<std::size_t>(jl) * static_cast<std::size_t>(lld())];
  }
  // Element by global index, on the process that holds it.
  bool owns(int i, int j) const { return map().owns(i, j); }
  T& at(int i, int j) { return data()[offset(i, j)]; }
  const T& at(int i, int j) const { return data()[offset(i, j)]; }
  T& operator()(int i, int j) { return at(i, j); }
  const T& operator()(int i, int j) const { return at(i, j); }

  // f(i, j, element) for every element this process holds (global i, j); nothing off
  // the grid. Column by column, the buffer's order.
  template <class F>
  void for_each_local(F&& f) {
    T* p = data();
    const std::size_t ld = static_cast<std::size_t>(lld());
    map().for_each_local([&](int il, int jl, int i, int j) { f(i, j, p[il + static_cast<std::size_t>(jl) * ld]); });
  }
  template <class F>
  void for_each_local(F&& f) const {
    const T* p = data();
    const std::size_t ld = static_cast<std::size_t>(lld());
    map().for_each_local([&](int il, int jl, int i, int j) { f(i, j, p[il + static_cast<std::size_t>(jl) * ld]); });
  }

  explicit operator bool() const { return static_cast<bool>(st_); }

 private:
  friend class Session;
  explicit Matrix(std::shared_ptr<detail::MatrixState> st) : st_(std::move(st)) {}
  std::size_t offset(int i, int j) const {
    int il = 0, jl = 0;
    if (!map().find(i, j, il, jl)) st_->not_owner(i, j);
    return static_cast<std::size_t>(il) + static_cast<std::size_t>(jl) * static_cast<std::size_t>(lld());
  }
  std::shared_ptr<detail::MatrixState> st_;
};

}  // namespace resize
