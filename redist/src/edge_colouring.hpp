// SPDX-License-Identifier: BSD-3-Clause
// Proper edge colouring of a bipartite graph with exactly max-degree colours (König's
// edge-colouring theorem), the core of the contention-free minimal-step schedule
// (Desprez et al. extract matchings; one colour class is one
// matching, i.e. one communication step). Pure C++.
#pragma once

#include <utility>
#include <vector>

namespace redist {

struct EdgeColouring {
  std::vector<int> colour;  // per edge, in [0, colours)
  int colours = 0;          // == maximum degree
};

// edges[e] = (left vertex in [0,nleft), right vertex in [0,nright)); parallel edges are
// allowed. O(E * (V + Δ)) by alternating-path recolouring, so for the P <= a few hundred
// ranks of a resize it takes microseconds to milliseconds, far below the transfer time
// (the O((|P|+|Q|)^4) cost the thesis warns about in §3.4.2 is avoided).
EdgeColouring colour_bipartite_edges(int nleft, int nright,
                                     const std::vector<std::pair<int, int>>& edges);

}  // namespace redist
