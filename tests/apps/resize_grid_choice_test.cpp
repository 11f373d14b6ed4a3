#include <gtest/gtest.h>

#include "malleable/resize/grid_choice.hpp"

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
