// SPDX-License-Identifier: BSD-3-Clause
// König edge colouring by alternating (Kempe) paths: colour edges one by one; if the
// colour free at the left end is busy at the right end, swap the two colours along the
// alternating path from the right end. In a bipartite graph that path cannot return to
// the left end, so Δ colours always suffice.
#include "edge_colouring.hpp"

#include <algorithm>

#include "malleable/redist/layout.hpp"

namespace redist {

namespace {

using Edges = std::vector<std::pair<int, int>>;

// Δ, the maximum degree: the colours needed (König). Every edge's ends are checked.
int max_degree(int nleft, int nright, const Edges& edges) {
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
  return delta;
}

// The edge of each colour at each vertex: L(u, c) at left vertex u, R(v, c) at right
// vertex v, or -1.
struct ColourSlots {
  int delta;
  std::size_t D = static_cast<std::size_t>(delta);
  std::vector<int> at_l, at_r;
  ColourSlots(int nleft, int nright, int colours)
      : delta(colours), at_l(static_cast<std::size_t>(nleft) * D, -1), at_r(static_cast<std::size_t>(nright) * D, -1) {}
  int& L(int u, int c) { return at_l[static_cast<std::size_t>(u) * D + static_cast<std::size_t>(c)]; }
  int& R(int v, int c) { return at_r[static_cast<std::size_t>(v) * D + static_cast<std::size_t>(c)]; }
  // The first colour free at vertex x of one side (at_l or at_r); -1 is impossible: a
  // vertex with an uncoloured edge has < Δ coloured edges.
  int first_free(const std::vector<int>& side, int x) const {
    for (int c = 0; c < delta; ++c)
      if (side[static_cast<std::size_t>(x) * D + static_cast<std::size_t>(c)] < 0) return c;
    return -1;
  }
};

// Walk v -a- x -b- y -a- ... from right vertex v and swap a/b on that alternating path;
// afterwards a is free at v. `path`: scratch space, reused from edge to edge.
void swap_alternating_path(ColourSlots& at, const Edges& edges, std::vector<int>& colour, int v, int a, int b,
                           std::vector<int>& path) {
  path.clear();
  int cur = v, col = a;
  bool right = true;
  for (;;) {
    const int f = right ? at.R(cur, col) : at.L(cur, col);
    if (f < 0) break;
    path.push_back(f);
    cur = right ? edges[static_cast<std::size_t>(f)].first : edges[static_cast<std::size_t>(f)].second;
    right = !right;
    col = col == a ? b : a;
  }
  for (int f : path) {
    const auto [fu, fv] = edges[static_cast<std::size_t>(f)];
    const int c = colour[static_cast<std::size_t>(f)];
    at.L(fu, c) = -1;
    at.R(fv, c) = -1;
  }
  for (int f : path) {
    const auto [fu, fv] = edges[static_cast<std::size_t>(f)];
    int& c = colour[static_cast<std::size_t>(f)];
    c = c == a ? b : a;
    at.L(fu, c) = f;
    at.R(fv, c) = f;
  }
}

}  // namespace

EdgeColouring colour_bipartite_edges(int nleft, int nright, const Edges& edges) {
  EdgeColouring out;
  if (nleft < 0 || nright < 0) throw Error(ErrorCode::Internal, "negative vertex count");
  const int delta = max_degree(nleft, nright, edges);
  out.colours = delta;
  out.colour.assign(edges.size(), -1);
  if (delta == 0) return out;

  ColourSlots at(nleft, nright, delta);
  std::vector<int> path;
  for (std::size_t e = 0; e < edges.size(); ++e) {
    const auto [u, v] = edges[e];
    const int a = at.first_free(at.at_l, u);
    const int b = at.first_free(at.at_r, v);
    if (a < 0 || b < 0) throw Error(ErrorCode::Internal, "edge colouring ran out of colours");
    if (at.R(v, a) >= 0) swap_alternating_path(at, edges, out.colour, v, a, b, path);
    out.colour[e] = a;
    at.L(u, a) = static_cast<int>(e);
    at.R(v, a) = static_cast<int>(e);
  }
  return out;
}

}  // namespace redist
