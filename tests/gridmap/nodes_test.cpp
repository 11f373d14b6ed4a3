// SPDX-License-Identifier: BSD-3-Clause
// Node-aware placement: fewer bytes cross nodes, and nothing changes when all
// processes share one node.
#include <gtest/gtest.h>

#include <random>

#include "malleable/gridmap/error.hpp"
#include "malleable/gridmap/nodes.hpp"
#include "malleable/gridmap/placement.hpp"
#include "malleable/redist/layout.hpp"
#include "malleable/redist/traffic.hpp"

using namespace gridmap;

namespace {
std::int64_t inter_node(const Placement& from, const Placement& to, const redist::MatrixSpec& shape, const NodeMap& nodes) {
  return redist::node_traffic(layout_for(from, shape), layout_for(to, shape), redist::Region{shape.m, shape.n, 0, 0, 0, 0},
                              static_cast<int>(nodes.node_of_id.size()), nodes.node_of_id)
      .elements_inter_node;
}
std::int64_t kept(const Placement& from, const Placement& to, const redist::MatrixSpec& shape) {
  return redist::plan_stats(layout_for(from, shape), layout_for(to, shape), std::max(from.max_id(), to.max_id()) + 1)
      .elements_local;
}
}  // namespace

TEST(gridmapNodes, NewcomersGoNextToTheirNodesData) {
  // 1x2 -> 1x4, block columns: id 0 (node A) holds columns 0-3, id 1 (node B) 4-7. The rule
  // put newcomer 3 (node B) at slot 1, which needs columns 2-3 from node A, and newcomer 2
  // (node A) at slot 3, which needs columns 6-7 from node B: swapping them keeps every
  // byte on its node.
  const redist::MatrixSpec shape = redist::MatrixSpec::block(8, 8);
  const Placement before{Topology{1, 2}, {0, 1}};
  const Placement rule{Topology{1, 4}, {0, 3, 1, 2}};
  NodeMap nodes{{0, 1, 0, 1}, 8};
  EXPECT_EQ(inter_node(before, rule, shape, nodes), 32);
  const auto p = assign_new_ids_by_node(rule, layout_for(before, shape), shape, {2, 3}, nodes);
  EXPECT_EQ(p.slots, (std::vector<int>{0, 2, 1, 3}));
  EXPECT_EQ(inter_node(before, p, shape, nodes), 0);
  // All newcomers on one node: the rule stands.
  NodeMap one_node{{0, 1, 1, 1}, 8};
  EXPECT_EQ(assign_new_ids_by_node(rule, layout_for(before, shape), shape, {2, 3}, one_node).slots, rule.slots);
}

TEST(gridmapNodes, OptimalOnNodesNeverCostsMoreThanNodeBlindChoices) {
  std::mt19937 rng(10);
  for (int trial = 0; trial < 40; ++trial) {
    const int p = 1 + static_cast<int>(rng() % 3), q = 1 + static_cast<int>(rng() % 3);
    const int ar = static_cast<int>(rng() % 2), ac = 1 + static_cast<int>(rng() % 2);
    const std::int64_t m = 60 + static_cast<std::int64_t>(rng() % 40), n = 50 + static_cast<std::int64_t>(rng() % 40);
    redist::MatrixSpec shape = redist::MatrixSpec::block_cyclic(m, n, 7, 5);  // drawn in this order
    if (rng() % 2 == 0) shape.dist = redist::Distribution::Block;
    const Placement old = Placement::row_major(Topology{p, q}, 0);
    const Topology t{p + ar, q + ac};
    const int added = t.size() - old.grid.size();
    NodeMap nodes;
    nodes.inter_node_weight = 1 + static_cast<int>(rng() % 10);
    for (int id = 0; id < t.size(); ++id) nodes.node_of_id.push_back(static_cast<int>(rng() % 3));
    std::vector<int> candidates = old.slots;
    for (int k = 0; k < added; ++k) candidates.push_back(old.max_id() + 1 + k);
    const auto before = layout_for(old, shape);
    const auto after = layout_for(Placement::row_major(t, 0), shape);
    const auto on_nodes = place_optimal_nodes(before, after, candidates, nodes);
    const auto cost = [&](const Placement& x) { return node_weighted_cost(before, layout_for(x, shape), nodes); };
    const auto blind = place_optimal(before, after, candidates);
    const auto local2 = place_local(old, ar, ac, PlacementStrategy::Local2);
    EXPECT_LE(cost(on_nodes), cost(blind)) << "trial " << trial;
    EXPECT_LE(cost(on_nodes), cost(local2)) << "trial " << trial;
    std::vector<int> fresh;
    for (int k = 0; k < added; ++k) fresh.push_back(old.max_id() + 1 + k);
    EXPECT_LE(cost(assign_new_ids_by_node(local2, before, shape, fresh, nodes)), cost(local2)) << "trial " << trial;
    // One node: as much stays in place as with the node-blind optimum.
    NodeMap single{std::vector<int>(static_cast<std::size_t>(t.size()), 0), nodes.inter_node_weight};
    EXPECT_EQ(kept(old, place_optimal_nodes(before, after, candidates, single), shape), kept(old, blind, shape))
        << "trial " << trial;
  }
}

TEST(gridmapNodes, BadNodeMapsAreRefused) {
  const redist::MatrixSpec shape = redist::MatrixSpec::block_cyclic(8, 8, 2, 2);
  const Placement old = Placement::row_major(Topology{2, 2}, 0);
  const auto before = layout_for(old, shape);
  const auto after = layout_for(Placement::row_major(Topology{2, 3}, 0), shape);
  EXPECT_THROW(place_optimal_nodes(before, after, {0, 1, 2, 3, 4, 5}, NodeMap{{0, 0, 0}, 8}), Error);
  EXPECT_THROW(place_optimal_nodes(before, after, {0, 1, 2, 3, 4, 5}, NodeMap{{0, 0, 0, 0, -1, 0}, 8}), Error);
  EXPECT_THROW(place_optimal_nodes(before, after, {0, 1, 2, 3, 4, 5}, NodeMap{{0, 0, 0, 0, 0, 0}, 0}), Error);
}
