// SPDX-License-Identifier: BSD-3-Clause
// Node traffic of a redistribution plan (pure).
#include "malleable/redist/traffic.hpp"

#include <algorithm>
#include <string>
#include <string_view>
#include <unordered_map>

#include "malleable/redist/layout.hpp"

namespace redist {

std::int64_t NodeTraffic::max_link_elements() const {
  std::int64_t m = 0;
  for (std::size_t i = 0; i < out_by_node.size(); ++i) m = std::max({m, out_by_node[i], in_by_node[i]});
  return m;
}

NodeTraffic node_traffic(const RedistPlan& plan, std::span<const int> node_of_rank) {
  int nodes = 0;
  for (std::size_t r = 0; r < node_of_rank.size(); ++r) {
    if (node_of_rank[r] < 0)
      throw Error("node_traffic: node_of_rank[" + std::to_string(r) + "] = " +
                  std::to_string(node_of_rank[r]) + " must be >= 0");
    nodes = std::max(nodes, node_of_rank[r] + 1);
  }
  NodeTraffic t;
  t.out_by_node.assign(static_cast<std::size_t>(nodes), 0);
  t.in_by_node.assign(static_cast<std::size_t>(nodes), 0);
  for (const Transfer& x : plan.transfers) {
    if (x.src < 0 || x.dst < 0 || static_cast<std::size_t>(std::max(x.src, x.dst)) >= node_of_rank.size())
      throw Error("node_traffic: the plan uses rank " + std::to_string(std::max(x.src, x.dst)) +
                  " but node_of_rank covers " + std::to_string(node_of_rank.size()) + " ranks");
    const std::int64_t e = x.elements();
    if (x.src == x.dst) {
      t.elements_local += e;
      continue;
    }
    const int ns = node_of_rank[static_cast<std::size_t>(x.src)];
    const int nd = node_of_rank[static_cast<std::size_t>(x.dst)];
    if (ns == nd) {
      t.elements_intra_node += e;
      ++t.messages_intra_node;
    } else {
      t.elements_inter_node += e;
      ++t.messages_inter_node;
      t.out_by_node[static_cast<std::size_t>(ns)] += e;
      t.in_by_node[static_cast<std::size_t>(nd)] += e;
    }
  }
  return t;
}

NodeTraffic node_traffic(const Layout& a, const Layout& b, const Region& region, int comm_size,
                         std::span<const int> node_of_rank) {
  if (static_cast<int>(node_of_rank.size()) < comm_size)
    throw Error("node_traffic: node_of_rank has " + std::to_string(node_of_rank.size()) +
                " entries for " + std::to_string(comm_size) + " ranks");
  return node_traffic(make_plan(a, b, region, comm_size, ScheduleKind::AllAtOnce), node_of_rank);
}

std::vector<int> node_ids(std::span<const std::string> hosts) {
  // O(P) with a hash of the names seen (a linear search was O(P x nodes) per resize).
  std::unordered_map<std::string_view, int> seen;
  std::vector<int> ids;
  ids.reserve(hosts.size());
  for (const auto& h : hosts) ids.push_back(seen.emplace(h, static_cast<int>(seen.size())).first->second);
  return ids;
}

}  // namespace redist
