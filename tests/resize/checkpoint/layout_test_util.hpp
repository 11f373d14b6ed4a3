// SPDX-License-Identifier: BSD-3-Clause
// Helpers shared by the checkpoint test programs (session_checkpoint.cpp,
// session_levels.cpp): a layout's local elements, a descriptor's layout on a session grid,
// and the unequal block lists of the extended-descriptor matrices.
#pragma once

#include <cstdint>
#include <vector>

#include "malleable/redist/layout.hpp"
#include "malleable/resize/session.hpp"

namespace test_util {

// Calls f(local index, global i, global j) over a layout's local part for world rank `me`.
template <class F>
void each(const redist::Layout& l, std::int64_t lld, int me, F&& f) {
  int pr = -1, pc = -1;
  if (!l.coords_of(me, pr, pc)) return;
  for (std::int64_t jl = 0; jl < l.local_cols(pc); ++jl)
    for (std::int64_t il = 0; il < l.local_rows(pr); ++il) f(il + jl * lld, l.local_to_row(pr, il), l.local_to_col(pc, jl));
}

inline redist::Layout from_desc(const int* d, const resize::Grid& g) {
  return redist::Layout::block_cyclic(d[2], d[3], d[4], d[5], g.nprow, g.npcol, 0, 0, g.rank_map());
}

// Unequal, one block per process row/column (heterogeneous layout) of a 41 x 26 matrix:
// row weights 1, 2, 3, ..., column weights Q, Q-1, ..., 1.
inline void sizes(const resize::Grid& g, std::vector<long long>& r, std::vector<long long>& c) {
  std::vector<double> wr, wc;
  for (int k = 0; k < g.nprow; ++k) wr.push_back(k + 1);
  for (int k = 0; k < g.npcol; ++k) wc.push_back(g.npcol - k);
  for (auto x : redist::proportional_blocks(41, wr)) r.push_back(x);
  for (auto x : redist::proportional_blocks(26, wc)) c.push_back(x);
}

}  // namespace test_util
