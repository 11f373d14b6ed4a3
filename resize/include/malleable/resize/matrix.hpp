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
#include <string>
#include <type_traits>
#include <vector>

namespace resize {

class Session;

template <class T>
inline constexpr bool is_matrix_element_v =
    std::is_same_v<T, float> || std::is_same_v<T, double> || std::is_same_v<T, std::complex<float>> ||
    std::is_same_v<T, std::complex<double>>;

// Where one process sits and what it holds of an M x N matrix: the pure index maps
// behind Matrix<T> (no MPI). Block-cyclic with MB x NB blocks (rows_start empty), or one
// block per process row/column with any sizes (the extended descriptor: rows_start[p] is
// the first global row of process row p, rows_start[nprow] == M; the same for columns).
struct IndexMap {
  int m = 0, n = 0, mb = 1, nb = 1;
  int nprow = 1, npcol = 1, myrow = -1, mycol = -1;  // myrow < 0: not on the grid
  std::vector<std::int64_t> rows_start, cols_start;  // extended descriptor only

  bool extended() const { return !rows_start.empty(); }
  bool in_grid() const { return myrow >= 0 && mycol >= 0; }
  int row_owner(int i) const;  // process row holding global row i
  int col_owner(int j) const;
  int local_row(int i) const;  // index of global row i on its owner
  int local_col(int j) const;
  int global_row(int il) const;  // global row of local row il on this process
  int global_col(int jl) const;
  int local_rows() const;  // rows / columns this process holds (0 off the grid)
  int local_cols() const;
  bool owns(int i, int j) const {
    return in_grid() && i >= 0 && i < m && j >= 0 && j < n && row_owner(i) == myrow && col_owner(j) == mycol;
  }
};

namespace detail {
// What the session keeps for a matrix registered through a handle, shared by the handle
// and the session's record (which writes desc, lld and data at start, join and resizes).
struct MatrixState {
  std::string name;
  int m = 0, n = 0;
  bool extended = false;                     // per-process block sizes: no ScaLAPACK desc
  std::array<int, 9> desc{};                 // block-cyclic: the current descriptor
  int lld = 1;                               // extended: the local buffer's leading dimension
  void* data = nullptr;                      // the local buffer (owned by the session)
  std::size_t elements = 0;                  // its length
  std::vector<std::int64_t> row_blocks, col_blocks;  // extended: block sizes on the grid
  const Session* session = nullptr;          // null once the session is gone
  // The index maps on the session's current grid (throws if the session is gone).
  IndexMap map() const;
  [[noreturn]] void not_owner(int i, int j) const;
  [[noreturn]] void no_desc() const;
  void check_alive() const;
};
}  // namespace detail

template <class T>
class Matrix {
  static_assert(is_matrix_element_v<T>, "resize::Matrix<T>: T is float, double, std::complex<float> or "
                                        "std::complex<double>");

 public:
  using value_type = T;
  Matrix() = default;  // no matrix; assign from Session::register_matrix<T>

  const std::string& name() const { return st_->name; }
  int rows() const { return st_->m; }  // global M
  int cols() const { return st_->n; }  // global N
  // Per-process block sizes (registered with BlockSizes): no ScaLAPACK descriptor.
  bool extended() const { return st_->extended; }

  // The ScaLAPACK descriptor on the current grid (DESC[CTXT] = -1 off the grid), for
  // PBLAS/ScaLAPACK calls. An extended-descriptor matrix has none (throws resize::Error).
  const int* desc() const {
    if (st_->extended) st_->no_desc();
    return st_->desc.data();
  }
  const std::array<int, 9>& descriptor() const {
    if (st_->extended) st_->no_desc();
    return st_->desc;
  }
  // The local buffer, column-major with leading dimension lld(); valid until the next
  // remap point (the session owns and reallocates it).
  T* data() { return static_cast<T*>(st_->data); }
  const T* data() const { return static_cast<const T*>(st_->data); }
  int lld() const { return st_->extended ? st_->lld : st_->desc[8]; }
  std::size_t size() const { return st_->elements; }  // buffer length (>= lld x local_cols)
  int local_rows() const { return st_->map().local_rows(); }
  int local_cols() const { return st_->map().local_cols(); }
  // Block sizes: MB x NB (block-cyclic) or, for an extended descriptor, the size of the
  // row block of every process row and the column block of every process column.
  int mb() const { return st_->extended ? 0 : st_->desc[4]; }
  int nb() const { return st_->extended ? 0 : st_->desc[5]; }
  const std::vector<std::int64_t>& row_blocks() const { return st_->row_blocks; }
  const std::vector<std::int64_t>& col_blocks() const { return st_->col_blocks; }

  // The index maps on the current grid (local <-> global, owners).
  IndexMap map() const { return st_->map(); }
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
    const IndexMap mp = map();
    const int ml = mp.local_rows(), nl = mp.local_cols();
    for (int jl = 0; jl < nl; ++jl) {
      const int j = mp.global_col(jl);
      for (int il = 0; il < ml; ++il) f(mp.global_row(il), j, local(il, jl));
    }
  }
  template <class F>
  void for_each_local(F&& f) const {
    const IndexMap mp = map();
    const int ml = mp.local_rows(), nl = mp.local_cols();
    for (int jl = 0; jl < nl; ++jl) {
      const int j = mp.global_col(jl);
      for (int il = 0; il < ml; ++il) f(mp.global_row(il), j, local(il, jl));
    }
  }

  explicit operator bool() const { return static_cast<bool>(st_); }

 private:
  friend class Session;
  explicit Matrix(std::shared_ptr<detail::MatrixState> st) : st_(std::move(st)) {}
  std::size_t offset(int i, int j) const {
    const IndexMap mp = map();
    if (!mp.owns(i, j)) st_->not_owner(i, j);
    return static_cast<std::size_t>(mp.local_row(i)) +
           static_cast<std::size_t>(mp.local_col(j)) * static_cast<std::size_t>(lld());
  }
  std::shared_ptr<detail::MatrixState> st_;
};

}  // namespace resize
