// SPDX-License-Identifier: BSD-3-Clause
// Node traffic: every moved element is counted once, as intra- or inter-node, and the
// busiest link matches a hand count.
#include <gtest/gtest.h>

#include <numeric>
#include <random>
#include <string>

#include "malleable/redist/traffic.hpp"

using redist::Layout;
using redist::Region;

TEST(redistTraffic, SplitsMovedElementsByNodeAndAddsUpToThePlan) {
  std::mt19937 rng(20);
  for (int trial = 0; trial < 40; ++trial) {
    const int pa = 1 + static_cast<int>(rng() % 3), qa = 1 + static_cast<int>(rng() % 3);
    const int pb = 1 + static_cast<int>(rng() % 4), qb = 1 + static_cast<int>(rng() % 4);
    const int comm = std::max(pa * qa, pb * qb);
    const std::int64_t n = 30 + static_cast<std::int64_t>(rng() % 50);
    const auto a = Layout::block_cyclic(n, n + 3, 1 + rng() % 7, 1 + rng() % 7, pa, qa);
    const auto b = Layout::block_cyclic(n, n + 3, 1 + rng() % 7, 1 + rng() % 7, pb, qb);
    std::vector<int> node(static_cast<std::size_t>(comm));
    for (auto& x : node) x = static_cast<int>(rng() % 3);
    const auto t = redist::node_traffic(a, b, Region::whole(a), comm, node);
    const auto s = redist::plan_stats(a, b, comm);
    EXPECT_EQ(t.elements_local, s.elements_local);
    EXPECT_EQ(t.elements_intra_node + t.elements_inter_node, s.elements_moved);
    EXPECT_EQ(t.messages_intra_node + t.messages_inter_node, s.messages);
    EXPECT_EQ(std::accumulate(t.out_by_node.begin(), t.out_by_node.end(), std::int64_t{0}), t.elements_inter_node);
    EXPECT_EQ(std::accumulate(t.in_by_node.begin(), t.in_by_node.end(), std::int64_t{0}), t.elements_inter_node);
    // One node: nothing crosses.
    std::vector<int> one(static_cast<std::size_t>(comm), 0);
    EXPECT_EQ(redist::node_traffic(a, b, Region::whole(a), comm, one).elements_inter_node, 0);
  }
}

TEST(redistTraffic, BusiestLinkByHand) {
  // 4 x 4 matrix, one block per process: 1x2 grid (ranks 0, 1 on node 0) -> 1x4 grid
  // (ranks 0, 1, 2, 3; 2 and 3 on node 1). Columns 0-1 on rank 0, 2-3 on rank 1 before;
  // one column each after: rank 0 keeps column 0 and sends column 1 to rank 1 (same
  // node); rank 1 sends column 2 and 3 to ranks 2 and 3 (node 1): 8 elements out of node 0.
  const auto a = Layout::block_cyclic(4, 4, 4, 2, 1, 2);
  const auto b = Layout::block_cyclic(4, 4, 4, 1, 1, 4);
  const int node[] = {0, 0, 1, 1};
  const auto t = redist::node_traffic(a, b, Region::whole(a), 4, node);
  EXPECT_EQ(t.elements_local, 4);
  EXPECT_EQ(t.elements_intra_node, 4);
  EXPECT_EQ(t.elements_inter_node, 8);
  EXPECT_EQ(t.out_by_node, (std::vector<std::int64_t>{8, 0}));
  EXPECT_EQ(t.in_by_node, (std::vector<std::int64_t>{0, 8}));
  EXPECT_EQ(t.max_link_elements(), 8);
}

TEST(redistTraffic, RejectsAShortOrNegativeNodeMap) {
  const auto a = Layout::block_cyclic(8, 8, 2, 2, 2, 2);
  const int short_map[] = {0, 0, 1};
  EXPECT_THROW(redist::node_traffic(a, a, Region::whole(a), 4, short_map), redist::Error);
  const int negative[] = {0, -1, 0, 0};
  EXPECT_THROW(redist::node_traffic(a, a, Region::whole(a), 4, negative), redist::Error);
}

TEST(redistTraffic, NodeIdsNumberNamesInOrderOfAppearance) {
  const std::string hosts[] = {"node2", "node1", "node2", "node3", "node1"};
  EXPECT_EQ(redist::node_ids(hosts), (std::vector<int>{0, 1, 0, 2, 1}));
}
