// SPDX-License-Identifier: BSD-3-Clause
// Linear assignment (Hungarian algorithm, Kuhn-Munkres with potentials, O(n^2 m)).
// Boost.Graph's maximum_weighted_matching (Boost 1.74 in Debian 12) is a general-graph
// blossom code with open correctness bugs (boostorg/graph #199, #223, #306, #399), and
// LEMON would be a new dependency, so the bipartite case is solved here directly.
#pragma once

#include <cstdint>
#include <vector>

namespace gridmap {

// weight is rows x cols with rows <= cols (ragged input throws gridmap::Error). Returns,
// for each row, the distinct column assigned to it so that the summed weight is maximal.
std::vector<int> max_weight_assignment(const std::vector<std::vector<std::int64_t>>& weight);

}  // namespace gridmap
