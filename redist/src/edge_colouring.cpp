// SPDX-License-Identifier: BSD-3-Clause
// König edge colouring by alternating (Kempe) paths: colour edges one by one; if the
// colour free at the left end is busy at the right end, swap the two colours along the
// alternating path from the right end. In a bipartite graph that path cannot return to
// the left end, so Δ colours always suffice.
#include "edge_colouring.hpp"

#include <algorithm>

#include "malleable/redist/layout.hpp"

namespace redist {

EdgeColouring colour_bipartite_edges(int nleft, int nright,
                                     const std::vector<std::pair<int, int>>& edges) {
  EdgeColouring out;
  if (nleft < 0 || nright < 0) throw Error(ErrorCode::Internal, "negative vertex count");
  std::vector<int> degl(static_cast<std::size_t>(nleft), 0), degr(static_cast<std::size_t>(nright), 0);
  for (std::size_t e = 0; e < edges.size(); ++e) {
    const auto [u, v] = edges[e];
    if (u < 0 || u >= nleft || v < 0 || v >= nright)
      throw Error(ErrorCode::Internal, "edge " + std::to_string(e) + " has a vertex out of range");
    ++degl[static_cast<std::size_t>(u)];
    ++degr[static_cast<std::size_t>(v)];
  }
  int delta = 0;
  for (int d : degl) delta = std::max(delta, d);
  for (int d : degr) delta = std::max(delta, d);
  out.colours = delta;
  out.colour.assign(edges.size(), -1);
  if (delta == 0) return out;

  const auto D = static_cast<std::size_t>(delta);
  // at_l[u*D + c] = edge of colour c at left vertex u, or -1; likewise at_r.
  std::vector<int> at_l(static_cast<std::size_t>(nleft) * D, -1), at_r(static_cast<std::size_t>(nright) * D, -1);
  auto L = [&](int u, int c) -> int& { return at_l[static_cast<std::size_t>(u) * D + static_cast<std::size_t>(c)]; };
  auto R = [&](int v, int c) -> int& { return at_r[static_cast<std::size_t>(v) * D + static_cast<std::size_t>(c)]; };
  auto first_free = [&](auto& slot, int x) {
    for (int c = 0; c < delta; ++c)
      if (slot(x, c) < 0) return c;
    return -1;  // impossible: a vertex with an uncoloured edge has < Δ coloured edges
  };
  std::vector<int> path;
  for (std::size_t e = 0; e < edges.size(); ++e) {
    const auto [u, v] = edges[e];
    const int a = first_free(L, u);
    const int b = first_free(R, v);
    if (a < 0 || b < 0) throw Error(ErrorCode::Internal, "edge colouring ran out of colours");
    if (R(v, a) >= 0) {
      // Walk v -a- x -b- y -a- ... and swap a/b on it; afterwards a is free at v.
      path.clear();
      int cur = v, col = a;
      bool right = true;
      for (;;) {
        const int f = right ? R(cur, col) : L(cur, col);
        if (f < 0) break;
        path.push_back(f);
        cur = right ? edges[static_cast<std::size_t>(f)].first : edges[static_cast<std::size_t>(f)].second;
        right = !right;
        col = col == a ? b : a;
      }
      for (int f : path) {
        const auto [fu, fv] = edges[static_cast<std::size_t>(f)];
        const int c = out.colour[static_cast<std::size_t>(f)];
        L(fu, c) = -1;
        R(fv, c) = -1;
      }
      for (int f : path) {
        const auto [fu, fv] = edges[static_cast<std::size_t>(f)];
        int& c = out.colour[static_cast<std::size_t>(f)];
        c = c == a ? b : a;
        L(fu, c) = f;
        R(fv, c) = f;
      }
    }
    out.colour[e] = a;
    L(u, a) = static_cast<int>(e);
    R(v, a) = static_cast<int>(e);
  }
  return out;
}

}  // namespace redist
