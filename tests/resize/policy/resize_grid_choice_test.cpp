// SPDX-License-Identifier: BSD-3-Clause
#include <gtest/gtest.h>

#include "malleable/gridmap/error.hpp"
#include "policy/grid_choice.hpp"

using namespace resize;

TEST(GridChoice, TopologyIsNearSquare) {
  EXPECT_EQ(choose_topology(9).shape(), "3x3");
  EXPECT_EQ(choose_topology(6).shape(), "2x3");
  EXPECT_EQ(choose_topology(7).shape(), "1x7");
  EXPECT_THROW(choose_topology(0), Error);
}

TEST(GridChoice, LocalTopologyKeepsOldRowsAndColumns) {
  EXPECT_EQ(choose_local_topology(Grid{2, 2, {}}, 9).shape(), "3x3");
  EXPECT_EQ(choose_local_topology(Grid{2, 2, {}}, 8).shape(), "2x4");
  EXPECT_EQ(choose_local_topology(Grid{3, 2, {}}, 7).shape(), "3x2");
}

TEST(GridChoice, Local2IntersperseAtDivisionCentresAsInSeed002Figure43) {
  // p = 4, r = 2: "0 4 1 2 5 3" -> new lines at positions 1 and 4.
  EXPECT_EQ(inserted_positions(4, 2, Placement::Local2), (std::vector<int>{1, 4}));
  EXPECT_EQ(inserted_positions(4, 2, Placement::Local1), (std::vector<int>{4, 5}));
  EXPECT_EQ(inserted_positions(2, 1, Placement::Local2), (std::vector<int>{1}));
}

// gridmap's refusal reaches the session's caller as gridmap raised it (one form: a
// resize::Error), with where the session met it before its message.
TEST(GridChoice, GridmapsErrorReachesTheCallerAsRaised) {
  try {
    inserted_positions(0, 2, Placement::Local1);
    ADD_FAILURE() << "positions in a grid of no line were planned";
  } catch (const Error& e) {
    EXPECT_NE(dynamic_cast<const gridmap::Error*>(&e), nullptr) << "re-wrapped: " << e.what();
    EXPECT_EQ(e.part(), malleable::Part::Gridmap);
    EXPECT_EQ(e.errc(), malleable::Errc::InvalidArgument);
    EXPECT_STREQ(e.what(), "inserted_positions: placement: old grid dimension must be >= 1, got 0");
  }
}

TEST(GridChoice, Local1ExpansionMatchesSeed002Figure42) {
  // 0 1 / 2 3 -> 0 1 4 / 2 3 5 / 6 7 8
  const Grid g = plan_expansion(Grid{2, 2, {}}, 4, 3, 3, Placement::Local1);
  EXPECT_EQ(g.ranks, (std::vector<int>{0, 1, 4, 2, 3, 5, 6, 7, 8}));
}

TEST(GridChoice, Local2ExpansionPutsNewLinesInTheMiddle) {
  // 2x2 -> 3x3 with the new row and column in the middle.
  const Grid g = plan_expansion(Grid{2, 2, {}}, 4, 3, 3, Placement::Local2);
  EXPECT_EQ(g.ranks, (std::vector<int>{0, 4, 1, 5, 6, 7, 2, 8, 3}));
  const Grid gl = plan_expansion(Grid{2, 2, {}}, 4, 3, 3, Placement::Global);
  EXPECT_EQ(gl.ranks, (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7, 8}));
  EXPECT_THROW(plan_expansion(Grid{2, 2, {}}, 4, 1, 6, Placement::Local2), Error);
}

TEST(GridChoice, ShrinkReversesALocalExpansion) {
  const Grid big = plan_expansion(Grid{2, 2, {}}, 4, 3, 3, Placement::Local2);
  const Grid g = plan_shrink(big, 4, 2, 2);
  EXPECT_EQ(g.ranks, (std::vector<int>{0, 1, 2, 3}));
  const Grid odd = plan_shrink(Grid{3, 3, {}}, 4, 2, 2);  // row-major 3x3: not whole lines
  EXPECT_EQ(odd.ranks, (std::vector<int>{0, 1, 2, 3}));
  EXPECT_THROW(plan_shrink(big, 4, 1, 3), Error);
}

TEST(GridChoice, ShrinkToAnySetOfRanksKeepsWholeLinesInPlace) {
  // 3x3 row-major; ranks 2, 5, 8 (the last column) leave: a local shrink to 3x2.
  const Grid old{3, 3, {}};
  const std::vector<int> keep = {0, 1, 3, 4, 6, 7};
  const Grid g = plan_shrink(old, keep, 3, 2);
  EXPECT_EQ(g.rank_map(), (std::vector<int>{0, 1, 3, 4, 6, 7}));
  EXPECT_EQ(renumber(g, keep).rank_map(), (std::vector<int>{0, 1, 2, 3, 4, 5}));
  // Not whole lines: the kept ranks fill the grid in keep order.
  const std::vector<int> scattered = {0, 4, 8, 2};
  EXPECT_EQ(plan_shrink(old, scattered, 2, 2).rank_map(), scattered);
  EXPECT_EQ(renumber(plan_shrink(old, scattered, 2, 2), scattered).rank_map(), (std::vector<int>{0, 1, 2, 3}));
  EXPECT_THROW(plan_shrink(old, keep, 2, 2), Error);
  EXPECT_THROW(renumber(Grid{1, 2, {0, 5}}, keep), Error);
}

TEST(GridChoice, NodeAwarePlacementPutsNewcomersNextToTheirNodesData) {
  // 1x2 on node1 (rank 0) and node2 (rank 1) grows to 1x4 with rank 2 on node2 and rank 3
  // on node1 (block columns): each newcomer should sit next to its own node's old process.
  const Grid old{1, 2, {}};
  const redist::MatrixSpec m = redist::MatrixSpec::block(64, 64);
  const std::vector<std::string> hosts = {"node1", "node2", "node2", "node1"};
  const Grid planned = plan_expansion(old, 2, 1, 4, Placement::Local1, &m);  // appends 2, 3
  const Grid on_nodes = place_on_nodes(planned, old, 2, Placement::Local1, &m, hosts);
  // The rule's old processes keep their slots (gridmap's tests pin which newcomer goes
  // where); Optimal uses every rank once.
  EXPECT_EQ(on_nodes.rank_at(0, 0), 0);
  EXPECT_EQ(on_nodes.rank_at(0, 1), 1);
  const auto opt = place_on_nodes(plan_expansion(old, 2, 1, 4, Placement::Optimal, &m), old, 2, Placement::Optimal, &m, hosts);
  std::vector<int> sorted = opt.rank_map();
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(sorted, (std::vector<int>{0, 1, 2, 3}));
  // One node (or no matrix): unchanged.
  const std::vector<std::string> one = {"a", "a", "a", "a"};
  EXPECT_EQ(place_on_nodes(planned, old, 2, Placement::Local1, &m, one), planned);
  EXPECT_EQ(place_on_nodes(planned, old, 2, Placement::Local1, nullptr, hosts), planned);
}

TEST(GridChoice, HostCountsAddUpToTheNewProcesses) {
  using V = std::vector<std::pair<std::string, int>>;
  EXPECT_EQ(resolve_host_counts({{"n2", 0}}, 5), (V{{"n2", 5}}));
  EXPECT_EQ(resolve_host_counts({{"n2", 0}, {"n3", 0}}, 5), (V{{"n2", 3}, {"n3", 2}}));
  EXPECT_EQ(resolve_host_counts({{"n2", 4}, {"n3", 0}}, 5), (V{{"n2", 4}, {"n3", 1}}));
  EXPECT_EQ(resolve_host_counts({{"n2", 5}, {"n3", 0}}, 5), (V{{"n2", 5}}));
  EXPECT_THROW(resolve_host_counts({{"n2", 6}}, 5), Error);
  EXPECT_THROW(resolve_host_counts({{"n2", 2}, {"n3", 2}}, 5), Error);
}
