// SPDX-License-Identifier: BSD-3-Clause
// Placement when the processes sit on several nodes: a byte that crosses
// nodes costs more than one that moves between processes of a node, which costs more
// than one that stays. Local remapping pays because it keeps data near; on a cluster "near" means "on the same node", and these placements minimise the
// bytes that cross nodes first. Pure.
#pragma once

#include <vector>

#include "malleable/gridmap/placement.hpp"

namespace redist {
struct Layout;
}

namespace gridmap {

struct NodeMap {
  // node_of_id[p]: node (>= 0) of process id p, for every id a placement may use.
  std::vector<int> node_of_id;
  // Cost of an element moved between nodes relative to one moved within a node (>= 1).
  // On this repository's emulated cluster a node's 1 Gbit/s link carries ~65 MB/s where a
  // memory copy between processes ~400 MB/s (docs/measurements/results.md), about 6; the default 8
  // stands for a ratio of that order.
  int inter_node_weight = 8;
  int node_of(int id) const;
  void validate() const;
};

// The weighted cost of moving `before` to `after` (elements within a node count 1,
// between nodes inter_node_weight; kept elements 0). Ranks are process ids.
std::int64_t node_weighted_cost(const redist::Layout& before, const redist::Layout& after,
                                const NodeMap& nodes);

// Optimal placement under that cost: assigns candidates (old and new ids) to after's
// slots by linear assignment on benefit(s, k) = overlap(s, k) + (W - 1) * overlap(s,
// node(k)) (the data slot s needs that k already holds, plus what k's node holds, worth
// W - 1 more each), which is the weighted cost with its sign turned. With every process
// on one node it keeps as much in place as place_optimal does.
Placement place_optimal_nodes(const redist::Layout& before, const redist::Layout& after,
                              const std::vector<int>& candidates, const NodeMap& nodes);

// A rule's placement (Local1, Local2, Global) keeps its slots; only which of `new_ids`
// takes which of the slots they occupy changes, so that the bytes crossing nodes are
// fewest (the rule fixes where new rows and columns go, not which node's newcomer fills
// them). Identity when all new ids are on one node.
Placement assign_new_ids_by_node(const Placement& rule, const redist::Layout& before,
                                 const redist::MatrixSpec& shape, const std::vector<int>& new_ids,
                                 const NodeMap& nodes);

}  // namespace gridmap
