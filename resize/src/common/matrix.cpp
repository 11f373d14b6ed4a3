// SPDX-License-Identifier: BSD-3-Clause
// The index maps behind resize::Matrix<T> (matrix.hpp): owners, local <-> global rows and
// columns for block-cyclic matrices (ScaLAPACK's numroc/indxg2p/indxg2l/indxl2g with the
// first block on process row/column 0) and for extended descriptors (one block per process
// row/column, seed 002 §3.4.4). Pure: unit-tested without MPI.
#include "malleable/resize/matrix.hpp"

#include <algorithm>

namespace resize {

namespace {
// Block-cyclic, one dimension: blocks of b over p processes, the first on process 0.
int bc_owner(int i, int b, int p) { return static_cast<int>((static_cast<std::int64_t>(i) / b) % p); }
int bc_local(int i, int b, int p) {
  return static_cast<int>(static_cast<std::int64_t>(i) / (static_cast<std::int64_t>(b) * p) * b + i % b);
}
int bc_global(int l, int b, int me, int p) {
  return static_cast<int>((static_cast<std::int64_t>(l) / b * p + me) * b + l % b);
}
int bc_count(int n, int b, int me, int p) {
  if (me < 0) return 0;
  const int blocks = n / b, extra = blocks % p;
  int count = blocks / p * b;
  if (me < extra) count += b;
  else if (me == extra) count += n % b;
  return count;
}
// Extended descriptor, one dimension: start[q] is the first index of process q's block.
int ex_owner(const std::vector<std::int64_t>& start, int i) {
  const auto it = std::upper_bound(start.begin(), start.end(), static_cast<std::int64_t>(i));
  return static_cast<int>(std::max<std::ptrdiff_t>(0, it - start.begin() - 1));
}
int ex_count(const std::vector<std::int64_t>& start, int me) {
  if (me < 0 || me + 1 >= static_cast<int>(start.size())) return 0;
  return static_cast<int>(start[static_cast<std::size_t>(me) + 1] - start[static_cast<std::size_t>(me)]);
}
}  // namespace

int IndexMap::row_owner(int i) const { return extended() ? ex_owner(rows_start, i) : bc_owner(i, mb, nprow); }
int IndexMap::col_owner(int j) const { return extended() ? ex_owner(cols_start, j) : bc_owner(j, nb, npcol); }
int IndexMap::local_row(int i) const {
  return extended() ? static_cast<int>(i - rows_start[static_cast<std::size_t>(row_owner(i))]) : bc_local(i, mb, nprow);
}
int IndexMap::local_col(int j) const {
  return extended() ? static_cast<int>(j - cols_start[static_cast<std::size_t>(col_owner(j))]) : bc_local(j, nb, npcol);
}
int IndexMap::global_row(int il) const {
  return extended() ? static_cast<int>(rows_start[static_cast<std::size_t>(myrow)] + il)
                    : bc_global(il, mb, myrow, nprow);
}
int IndexMap::global_col(int jl) const {
  return extended() ? static_cast<int>(cols_start[static_cast<std::size_t>(mycol)] + jl)
                    : bc_global(jl, nb, mycol, npcol);
}
int IndexMap::local_rows() const {
  if (!in_grid()) return 0;
  return extended() ? ex_count(rows_start, myrow) : bc_count(m, mb, myrow, nprow);
}
int IndexMap::local_cols() const {
  if (!in_grid()) return 0;
  return extended() ? ex_count(cols_start, mycol) : bc_count(n, nb, mycol, npcol);
}

}  // namespace resize
