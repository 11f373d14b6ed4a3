// SPDX-License-Identifier: BSD-3-Clause
// A matrix's placement on its grid and the ScaLAPACK descriptor derived from its form (descriptor.hpp).
#include "parts/descriptor.hpp"

#include <algorithm>
#include <limits>
#include <string>

#include "malleable/resize/types.hpp"

namespace resize::detail {

std::pair<std::int64_t, std::int64_t> local_extent(const redist::Layout& l, int rank) {
  int pr = -1, pc = -1;
  if (!l.coords_of(rank, pr, pc)) return {0, 0};
  return {l.local_rows(pr), l.local_cols(pc)};
}

std::int64_t leading_dimension(const redist::Layout& l, int rank) {
  return std::max<std::int64_t>(1, local_extent(l, rank).first);
}

namespace {
int narrow(std::int64_t v, const redist::MatrixSpec& mat, const char* what) {
  if (v < 0 || v > std::numeric_limits<int>::max())
    throw Error("matrix '" + mat.name + "': its " + what + " (" + std::to_string(v) +
                ") does not fit a ScaLAPACK descriptor's int");
  return static_cast<int>(v);
}
}  // namespace

Placement placement(const redist::MatrixSpec& mat, const redist::Layout& l, int context, int rank) {
  int pr = -1, pc = -1;
  if (!l.coords_of(rank, pr, pc)) return {};
  const std::int64_t ld = leading_dimension(l, rank);
  if (mat.extended()) return {context, static_cast<int>(ld)};
  narrow(mat.m, mat, "row count");  // the descriptor's first complaint where both are too large
  return {context, narrow(ld, mat, "local row count")};
}

std::array<int, 9> descriptor(const redist::MatrixSpec& mat, const redist::Layout* on, Placement p) {
  if (mat.extended())
    throw Error("matrix '" + mat.name + "' has per-process block sizes (an extended descriptor): no ScaLAPACK "
                "descriptor describes it");
  const int m = narrow(mat.m, mat, "row count"), n = narrow(mat.n, mat, "column count");
  if (!on) return {1, -1, m, n, narrow(mat.mb, mat, "row block"), narrow(mat.nb, mat, "column block"), 0, 0, 1};
  const int mb = narrow(mat.row_block_on(on->nprow), mat, "row block");
  const int nb = narrow(mat.col_block_on(on->npcol), mat, "column block");
  return {1, p.context, m, n, mb, nb, on->rsrc, on->csrc, p.lld};
}

std::array<int, 9> descriptor(const redist::MatrixSpec& mat, const redist::Layout* on, int context, int rank) {
  if (!on || mat.extended()) return descriptor(mat, on, Placement{});
  return descriptor(mat, on, placement(mat, *on, context, rank));
}

std::size_t descriptor_elements(const redist::Layout& on, int rank) {
  int pr = -1, pc = -1;
  if (!on.coords_of(rank, pr, pc)) return 0;
  return static_cast<std::size_t>(leading_dimension(on, rank) * std::max<std::int64_t>(1, on.local_cols(pc)));
}

}  // namespace resize::detail
