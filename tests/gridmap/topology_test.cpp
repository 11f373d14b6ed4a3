// SPDX-License-Identifier: BSD-3-Clause
// Topology selection (thesis §5.1.1) and the local expansion optimiser (§5.2.1.2).
#include <gtest/gtest.h>

#include "malleable/gridmap/error.hpp"
#include "malleable/gridmap/topology.hpp"

using namespace gridmap;

TEST(TopologyChoice, SquareConstraintTakesTheLargestSquare) {
  EXPECT_EQ(choose_topology(14, AspectRatio::square()).grid, (Topology{3, 3}));
  EXPECT_EQ(choose_topology(36, AspectRatio::square()).grid, (Topology{6, 6}));
  EXPECT_EQ(choose_topology(1, AspectRatio::square()).grid, (Topology{1, 1}));
}

TEST(TopologyChoice, NearSquareUsesMoreProcessesAndPrefersMoreColumns) {
  // Table 5.1's 12-process grids: 3x4 and 4x3 tie; horizontally dominant wins (§5.1.2).
  EXPECT_EQ(choose_topology(12, AspectRatio::near_square(1.5)).grid, (Topology{3, 4}));
  EXPECT_EQ(choose_topology(14, AspectRatio::near_square(1.5)).grid, (Topology{3, 4}));
  // Threshold 4 admits 2x7 for 14 processes.
  EXPECT_EQ(choose_topology(14, AspectRatio::near_square(4)).grid, (Topology{2, 7}));
}

TEST(TopologyChoice, OneToTGridHasTRowsPerColumn) {
  // p = 1/t, q = t forces r = t*c.
  EXPECT_EQ(choose_topology(20, AspectRatio::one_to(2)).grid, (Topology{6, 3}));
  EXPECT_EQ(choose_topology(8, AspectRatio::one_to(2)).grid, (Topology{4, 2}));
}

TEST(TopologyChoice, UnconstrainedUsesAllProcesses) {
  EXPECT_EQ(choose_topology(28).grid, (Topology{4, 7}));
  EXPECT_EQ(choose_topology(13).grid, (Topology{1, 13}));
}

TEST(TopologyChoice, HistoryPicksTheFastestMeasuredAdmissibleGrid) {
  // Table 5.1, N = 9000, PDGETRF: 2x7 (74 s) beats 3x4 (77 s) and 3x3 (88 s).
  const TopologyHistory h{{{3, 3}, 88}, {{4, 3}, 88}, {{3, 4}, 77}, {{6, 2}, 152}, {{2, 6}, 80},
                          {{12, 1}, 369}, {{1, 12}, 105}, {{7, 2}, 156}, {{2, 7}, 74}};
  const auto c = choose_topology(14, AspectRatio::any(), &h);
  EXPECT_TRUE(c.from_history);
  EXPECT_EQ(c.grid, (Topology{2, 7}));
  // With a near-square constraint 2x7 is out and 3x4 is the fastest admissible.
  EXPECT_EQ(choose_topology(14, AspectRatio::near_square(1.5), &h).grid, (Topology{3, 4}));
  // N = 36000 row: 2x7 (2486) beats 4x3 (2494).
  const TopologyHistory big{{{3, 3}, 3281}, {{4, 3}, 2494}, {{2, 7}, 2486}, {{7, 2}, 3906}};
  EXPECT_EQ(choose_topology(14, AspectRatio::any(), &big).grid, (Topology{2, 7}));
  // Without measured admissible grids it falls back to the size rule.
  const TopologyHistory none{{{7, 2}, 1.0}};
  const auto f = choose_topology(9, AspectRatio::square(), &none);
  EXPECT_FALSE(f.from_history);
  EXPECT_EQ(f.grid, (Topology{3, 3}));
}

TEST(TopologyChoice, RejectsBadInputNamingTheValue) {
  try {
    choose_topology(0);
    FAIL() << "P = 0 accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("P = 0"), std::string::npos) << e.what();
  }
  EXPECT_THROW(choose_topology(-3), Error);
  EXPECT_THROW(choose_topology(10, AspectRatio{0.5, 1.0}), Error);   // p*q < 1
  EXPECT_THROW(choose_topology(10, AspectRatio{-1.0, 2.0}), Error);  // p <= 0
  EXPECT_THROW(choose_topology(1, AspectRatio::one_to(2)), Error);   // 1x1 is not 2:1
  const TopologyHistory bad{{{2, 2}, -1.0}};
  EXPECT_THROW(choose_topology(4, AspectRatio::any(), &bad), Error);
}

TEST(TopologyParse, AcceptsRowsByColumnsAndRejectsGarbage) {
  EXPECT_EQ(parse_topology("4x7"), (Topology{4, 7}));
  EXPECT_EQ(parse_topology("3,2"), (Topology{3, 2}));
  EXPECT_THROW(parse_topology("4"), Error);
  EXPECT_THROW(parse_topology("0x3"), Error);
  EXPECT_THROW(parse_topology("ax3"), Error);
  EXPECT_EQ(to_string(Topology{5, 6}), "5x6");
}

TEST(LocalExpansion, SquareGridsGrowByOneRowAndOneColumn) {
  // §5.4: 5x5 -> 6x6 -> 7x7 -> 8x8 adding 11, 13, 15 processes.
  const auto a = plan_local_expansion({5, 5}, 11);
  ASSERT_TRUE(a.possible);
  EXPECT_EQ(a.grid, (Topology{6, 6}));
  EXPECT_EQ(a.used, 11);
  EXPECT_EQ(plan_local_expansion({6, 6}, 13).grid, (Topology{7, 7}));
  EXPECT_EQ(plan_local_expansion({7, 7}, 15).grid, (Topology{8, 8}));
  // 30 offered to a 5x5: x = y = 2 needs 24, x = y = 3 needs 39.
  const auto b = plan_local_expansion({5, 5}, 30);
  EXPECT_EQ(b.add_rows, 2);
  EXPECT_EQ(b.add_cols, 2);
  EXPECT_EQ(b.used, 24);
}

TEST(LocalExpansion, MaximisesUseUnderTheIncrementConstraints) {
  // p = q = 2: y <= 2x, x <= 2y. 4x4 + 20: (x,y) = (1,2) uses 4+8+2 = 14, (2,2) uses 20.
  const auto e = plan_local_expansion({4, 4}, 20, AspectRatio::near_square(2));
  EXPECT_EQ(e.used, 20);
  EXPECT_EQ(e.grid, (Topology{6, 6}));
  // 4x4 + 14 under the same constraints: (1,2) uses exactly 14, more columns preferred.
  const auto f = plan_local_expansion({4, 4}, 14, AspectRatio::near_square(2));
  EXPECT_EQ(f.used, 14);
  EXPECT_EQ(f.grid, (Topology{5, 6}));
  // Brute-force check of optimality over every admissible (x, y).
  for (int n = 0; n <= 60; ++n) {
    const auto g = plan_local_expansion({3, 5}, n, AspectRatio::near_square(2));
    int best = 0;
    for (int x = 0; x <= n; ++x)
      for (int y = 0; y <= n; ++y)
        if ((x || y) && y <= 2 * x && x <= 2 * y && (3 + x) * (5 + y) - 15 <= n)
          best = std::max(best, (3 + x) * (5 + y) - 15);
    EXPECT_EQ(g.used, best) << "n = " << n;
    EXPECT_EQ(g.possible, best > 0);
  }
}

TEST(LocalExpansion, FiveByFivePlusThreeIsImpossibleAndGlobalGivesFourBySeven) {
  const auto e = plan_local_expansion({5, 5}, 3);
  EXPECT_FALSE(e.possible);
  EXPECT_EQ(e.smallest_step, 11);
  EXPECT_EQ(e.global_grid, (Topology{4, 7}));          // §5.4's "4 x 7"
  EXPECT_EQ(e.global_constrained, (Topology{5, 5}));   // square: nothing to gain
  EXPECT_NE(e.reason.find("4x7"), std::string::npos) << e.reason;
  // §4.4: 10x10 + 8 -> Global 108 = 9x12 (the thesis writes 12 x 9).
  EXPECT_EQ(plan_local_expansion({10, 10}, 8).global_grid, (Topology{9, 12}));
}

TEST(LocalExpansion, CountsTheProcessesOfNonSquareGrids) {
  // A 1x5 grid gains 5 processes per new row and 1 per new column: 10 offered make 3x5
  // (two rows), never 11x5. The grid always holds the old processes plus `used`.
  const auto e = plan_local_expansion({1, 5}, 10, AspectRatio::near_square(3), AspectScope::FinalGrid);
  ASSERT_TRUE(e.possible);
  EXPECT_EQ(e.grid, (Topology{3, 5}));
  for (int r = 1; r <= 5; ++r)
    for (int c = 1; c <= 5; ++c)
      for (int n = 0; n < 30; ++n) {
        const auto g = plan_local_expansion({r, c}, n, AspectRatio::near_square(3), AspectScope::FinalGrid);
        if (!g.possible) continue;
        EXPECT_EQ(g.grid.size(), r * c + g.used);
        EXPECT_LE(g.used, n);
      }
}

TEST(LocalExpansion, FinalGridScopeAllowsASingleColumn) {
  // The literal increment constraints force x = y for a square aspect; constraining the
  // final grid instead lets 4x4 + 4 add one column (4x5 is within threshold 2).
  EXPECT_FALSE(plan_local_expansion({4, 4}, 4, AspectRatio::square()).possible);
  const auto e = plan_local_expansion({4, 4}, 4, AspectRatio::near_square(2), AspectScope::FinalGrid);
  ASSERT_TRUE(e.possible);
  EXPECT_EQ(e.grid, (Topology{4, 5}));
}

TEST(LocalExpansion, UnboundedRatiosAdmitRowsOrColumnsAlone) {
  // inf * 0 must not turn y <= p*x into a NaN comparison.
  const auto e = plan_local_expansion({4, 4}, 4, AspectRatio::any(), AspectScope::Increment);
  ASSERT_TRUE(e.possible);
  EXPECT_EQ(e.used, 4);
  EXPECT_EQ(e.grid, (Topology{4, 5}));
}

TEST(LocalExpansion, RejectsBadInput) {
  EXPECT_THROW(plan_local_expansion({0, 3}, 4), Error);
  EXPECT_THROW(plan_local_expansion({3, 3}, -1), Error);
  EXPECT_THROW(plan_local_expansion({3, 3}, 4, AspectRatio{0.1, 0.1}), Error);
}
