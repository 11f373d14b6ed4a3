// SPDX-License-Identifier: BSD-3-Clause
// Non-template parts of the local-copy kernels (local_copy.hpp).
#include "local_copy.hpp"

namespace redist::exec {

std::vector<LocalRun> local_runs(const std::vector<Run>& runs, const Axis& ax, std::int64_t shift, bool is_b) {
  std::vector<LocalRun> out;
  out.reserve(runs.size());
  for (const auto& r : runs)
    out.push_back({ax.to_local(r.start + shift), r.len, r.count, is_b ? r.b_stride : r.a_stride});
  return out;
}

bool same_columns(const Walk& x, const Walk& y) {
  if (x.ncols != y.ncols) return false;
  ColCursor cx(x), cy(y);
  for (std::int64_t o = 0; o < x.ncols;) {
    const auto px = cx.pieces(), py = cy.pieces();
    if (px.left > 1 && py.left > 1 && px.first == py.first && px.len == py.len && px.stride == py.stride) {
      const std::int64_t k = std::min({px.left, py.left, (x.ncols - o) / px.len});
      if (k > 1) {
        cx.skip_pieces(k);
        cy.skip_pieces(k);
        o += k * px.len;
        continue;
      }
    }
    const auto [a, na] = cx.at();
    const auto [b, nb] = cy.at();
    if (a != b) return false;
    const std::int64_t w = std::min({na, nb, x.ncols - o});
    cx.next(w);
    cy.next(w);
    o += w;
  }
  return true;
}

bool whole_columns(const std::vector<LocalRun>& runs, std::int64_t ld) {
  if (runs.size() != 1) return false;
  const LocalRun& r = runs[0];
  return r.start == 0 && (r.count == 1 || r.stride == r.len) && r.len * r.count == ld;
}

std::vector<LocalRun> packed_runs(const std::vector<LocalRun>& runs) {
  std::vector<LocalRun> out;
  out.reserve(runs.size());
  std::int64_t at = 0;
  for (const auto& r : runs) {
    out.push_back({at, r.len, r.count, r.len});
    at += r.len * r.count;
  }
  return out;
}

}  // namespace redist::exec
