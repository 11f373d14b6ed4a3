// SPDX-License-Identifier: BSD-3-Clause
// Where a redistribution's bytes go when processes sit on nodes: within a process, between
// processes of one node (memory copies), between nodes (network), and the busiest node
// link. Pure, from the plan. On a cluster where each node has one link of rate R, no
// schedule can finish before max_link_elements() * sizeof(T) / R: the link bound the
// benchmarks print beside each time (where the network is the bottleneck, the link
// bound is what a schedule can approach).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "malleable/redist/plan.hpp"

namespace redist {

struct NodeTraffic {
  std::int64_t elements_local = 0;       // stay on their process
  std::int64_t elements_intra_node = 0;  // move between two processes of one node
  std::int64_t elements_inter_node = 0;  // cross nodes
  std::int64_t messages_intra_node = 0, messages_inter_node = 0;
  // Inter-node elements leaving and arriving at each node (indexed by node id).
  std::vector<std::int64_t> out_by_node, in_by_node;
  // The busiest link, max over nodes of max(out, in) (a full-duplex link per node).
  std::int64_t max_link_elements() const;
};

// node_of_rank[r] is the node id (>= 0) of communicator rank r; it must cover comm_size
// ranks. Throws redist::Error otherwise.
NodeTraffic node_traffic(const Layout& a, const Layout& b, const Region& region, int comm_size,
                         std::span<const int> node_of_rank);
NodeTraffic node_traffic(const RedistPlan& plan, std::span<const int> node_of_rank);

// Node ids from names: equal names, equal ids, numbered in order of first appearance.
std::vector<int> node_ids(std::span<const std::string> hosts);

}  // namespace redist
