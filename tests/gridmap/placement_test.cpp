// SPDX-License-Identifier: BSD-3-Clause
// Placement of processes on expansion and shrink (thesis §4.2-4.5) and the optimal
// placement by linear assignment.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <set>

#include "malleable/gridmap/assignment.hpp"
#include "malleable/gridmap/error.hpp"
#include "malleable/gridmap/movement.hpp"
#include "malleable/gridmap/placement.hpp"
#include "malleable/redist/layout.hpp"

using namespace gridmap;

namespace {

bool is_permutation_of_range(const Placement& p, int count) {
  std::vector<int> s = p.slots;
  std::sort(s.begin(), s.end());
  std::vector<int> want(static_cast<std::size_t>(count));
  std::iota(want.begin(), want.end(), 0);
  return s == want;
}

}  // namespace

TEST(Local2Positions, FollowTheThesisFormula) {
  // Figure 4.3 / §4.5: p = 4, r = 2 -> row "0 4 1 2 5 3": new columns at indices 1 and 4.
  EXPECT_EQ(local2_positions(4, 2), (std::vector<int>{1, 4}));
  // (n-1) p/r + p/2r old lines precede the n-th new one: p = 8, r = 2 -> after 2 and 6.
  EXPECT_EQ(local2_positions(8, 2), (std::vector<int>{2, 7}));
  EXPECT_EQ(local2_positions(8, 4), (std::vector<int>{1, 4, 7, 10}));
  EXPECT_EQ(local2_positions(5, 1), (std::vector<int>{2}));
  EXPECT_EQ(local1_positions(4, 2), (std::vector<int>{4, 5}));
  EXPECT_TRUE(local2_positions(3, 0).empty());
  EXPECT_THROW(local2_positions(0, 1), Error);
}

TEST(Placement, GlobalOrdersByIdFigure41) {
  const Placement g = place_global({3, 3});
  EXPECT_EQ(g.slots, (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7, 8}));
}

TEST(Placement, LocalKeepsOldRowsAndColumnsFigure42) {
  // Figure 4.2: 2x2 -> 3x3 Local1 gives 0 1 4 / 2 3 5 / 6 7 8.
  const Placement l1 = place_local(Placement::row_major({2, 2}), 1, 1, PlacementStrategy::Local1);
  EXPECT_EQ(l1.slots, (std::vector<int>{0, 1, 4, 2, 3, 5, 6, 7, 8}));
  // Figure 4.3b row: 0 4 1 2 5 3.
  const Placement l2 = place_local(Placement::row_major({1, 4}), 0, 2, PlacementStrategy::Local2);
  EXPECT_EQ(l2.slots, (std::vector<int>{0, 4, 1, 2, 5, 3}));
}

TEST(Placement, EveryStrategyIsAPermutationAndLocalKeepsRelativeOrder) {
  std::mt19937 gen(7);
  for (int trial = 0; trial < 40; ++trial) {
    const Topology old{1 + static_cast<int>(gen() % 6), 1 + static_cast<int>(gen() % 6)};
    const int x = static_cast<int>(gen() % 4), y = static_cast<int>(gen() % 4);
    const Placement from = Placement::row_major(old);
    for (auto rule : {PlacementStrategy::Local1, PlacementStrategy::Local2}) {
      const Placement to = place_local(from, x, y, rule);
      ASSERT_EQ(to.grid, (Topology{old.rows + x, old.cols + y}));
      EXPECT_TRUE(is_permutation_of_range(to, to.grid.size()));
      // Processes sharing an old row still share a row, in the same order (§4.3).
      for (int i = 0; i < to.grid.rows; ++i) {
        std::vector<int> olds;
        for (int j = 0; j < to.grid.cols; ++j)
          if (to.at(i, j) < old.size()) olds.push_back(to.at(i, j));
        EXPECT_TRUE(std::is_sorted(olds.begin(), olds.end()));
        if (!olds.empty()) {
          EXPECT_EQ(olds.size(), static_cast<std::size_t>(old.cols));
        }
        for (int id : olds) EXPECT_EQ(id / old.cols, olds.front() / old.cols);
      }
    }
    const redist::MatrixSpec shape = redist::MatrixSpec::block_cyclic(240, 180, 8, 8);
    const Placement opt = place_optimal(from, {old.rows + x, old.cols + y}, x * old.cols + y * old.rows + x * y, shape);
    EXPECT_TRUE(is_permutation_of_range(opt, opt.grid.size()));
  }
}

TEST(Placement, ValidationRejectsDuplicatesAndWrongSizes) {
  EXPECT_THROW((Placement{{2, 2}, {0, 1, 1, 3}}.validate()), Error);
  EXPECT_THROW((Placement{{2, 2}, {0, 1, 2}}.validate()), Error);
  EXPECT_THROW((Placement{{2, 2}, {0, 1, 2, -4}}.validate()), Error);
  EXPECT_THROW(place_local(Placement::row_major({2, 2}), 1, 0, PlacementStrategy::Local2, 2), Error);
  EXPECT_THROW(parse_placement_strategy("local3"), Error);
}

TEST(Assignment, HungarianMatchesBruteForce) {
  std::mt19937 gen(11);
  for (int trial = 0; trial < 60; ++trial) {
    const std::size_t n = 1 + gen() % 6, m = n + gen() % 3;
    std::vector<std::vector<std::int64_t>> w(n, std::vector<std::int64_t>(m));
    for (auto& row : w)
      for (auto& v : row) v = static_cast<std::int64_t>(gen() % 50);
    const auto a = max_weight_assignment(w);
    ASSERT_EQ(a.size(), n);
    EXPECT_EQ(std::set<int>(a.begin(), a.end()).size(), n);
    std::int64_t got = 0;
    for (std::size_t i = 0; i < n; ++i) got += w[i][static_cast<std::size_t>(a[i])];
    std::vector<int> cols(m);
    std::iota(cols.begin(), cols.end(), 0);
    std::int64_t best = 0;
    do {
      std::int64_t s = 0;
      for (std::size_t i = 0; i < n; ++i) s += w[i][static_cast<std::size_t>(cols[i])];
      best = std::max(best, s);
    } while (std::next_permutation(cols.begin(), cols.end()));
    EXPECT_EQ(got, best);
  }
  EXPECT_THROW(max_weight_assignment({{1, 2}, {3, 4}, {5, 6}}), Error);
  EXPECT_THROW(max_weight_assignment({{1, 2}, {3}}), Error);
}

TEST(OverlapMatrix, RowSumsAreWhatEachSlotOwns) {
  const redist::MatrixSpec shape = redist::MatrixSpec::block_cyclic(97, 61, 5, 7);
  const Placement from = Placement::row_major({3, 2});
  const Placement to = place_local(from, 1, 2, PlacementStrategy::Local2);
  const auto a = layout_for(from, shape), b = layout_for(to, shape);
  std::vector<int> cand(static_cast<std::size_t>(to.grid.size()));
  std::iota(cand.begin(), cand.end(), 0);
  const auto w = overlap_matrix(a, b, cand);
  std::int64_t total = 0;
  for (const auto& row : w)
    for (auto v : row) total += v;
  EXPECT_EQ(total, 97 * 61);
  // Data that stays = sum over slots of w[slot][id at slot]; equals redist's local count.
  std::int64_t kept = 0;
  for (std::size_t s = 0; s < w.size(); ++s) kept += w[s][static_cast<std::size_t>(to.slots[s])];
  EXPECT_EQ(kept, account(from, to, shape).elements_kept);
}

TEST(Shrink, GiveBackUndoesALocal2Expansion) {
  const redist::MatrixSpec shape = redist::MatrixSpec::block(600, 600);
  const Placement five = Placement::row_major({5, 5});
  const Placement six = place_local(five, 1, 1, PlacementStrategy::Local2);
  const ShrinkPlan s = plan_shrink(six, 11, AspectRatio::square(), AspectScope::FinalGrid);
  EXPECT_EQ(s.to.grid, (Topology{5, 5}));
  EXPECT_EQ(s.to.slots, five.slots);
  std::vector<int> leaving(11);
  std::iota(leaving.begin(), leaving.end(), 25);
  EXPECT_EQ(s.leaving, leaving);
  // Moving back costs what growing cost.
  EXPECT_EQ(account(six, s.to, shape).elements_moved, account(five, six, shape).elements_moved);
}

TEST(Shrink, ReleasesAsFewExtraAsPossibleAndInverseLocal2BeatsInverseLocal1) {
  const redist::MatrixSpec shape = redist::MatrixSpec::block(480, 480);
  const Placement g = Placement::row_major({6, 6});
  const ShrinkPlan two = plan_shrink(g, 5);  // one row or column (6) is the least >= 5
  EXPECT_EQ(two.leaving.size(), 6u);
  EXPECT_EQ(two.to.grid.size(), 30);
  const ShrinkPlan sq = plan_shrink(g, 5, AspectRatio::square(), AspectScope::FinalGrid);
  EXPECT_EQ(sq.to.grid, (Topology{5, 5}));  // square forces 11
  const ShrinkPlan l1 = plan_shrink(g, 12, AspectRatio::any(), AspectScope::FinalGrid, ShrinkRule::InverseLocal1);
  const ShrinkPlan l2 = plan_shrink(g, 12, AspectRatio::any(), AspectScope::FinalGrid, ShrinkRule::InverseLocal2);
  const ShrinkPlan op = plan_shrink(g, 12, AspectRatio::any(), AspectScope::FinalGrid, ShrinkRule::Optimal, &shape);
  EXPECT_EQ(l1.to.grid, l2.to.grid);
  const auto m1 = account(g, l1.to, shape).elements_moved, m2 = account(g, l2.to, shape).elements_moved;
  const auto mo = account(g, op.to, shape).elements_moved;
  EXPECT_LT(m2, m1);
  EXPECT_LE(mo, m2);
  EXPECT_EQ(op.leaving.size(), 12u);
}

TEST(Shrink, ToStackLevelReturnsTheOldArrangement) {
  const Placement start = Placement::row_major({2, 2});
  const auto stack = expansion_stack(start, {{3, 3}, {4, 4}, {5, 5}}, PlacementStrategy::Local2);
  ASSERT_EQ(stack.size(), 4u);
  const ShrinkPlan s = plan_shrink_to_level(stack, 1);
  EXPECT_EQ(s.to.slots, stack[1].slots);
  EXPECT_EQ(s.leaving.size(), 16u);
  EXPECT_EQ(s.leaving.front(), 9);
  EXPECT_THROW(plan_shrink_to_level(stack, 3), Error);
  EXPECT_THROW(plan_shrink_to_level({}, 0), Error);
  EXPECT_THROW(expansion_stack(start, {{1, 5}}, PlacementStrategy::Local2), Error);
}

TEST(Shrink, RejectsBadRequests) {
  const Placement g = Placement::row_major({3, 3});
  EXPECT_THROW(plan_shrink(g, 0), Error);
  EXPECT_THROW(plan_shrink(g, 9), Error);
  EXPECT_THROW(plan_shrink(g, 2, AspectRatio::any(), AspectScope::FinalGrid, ShrinkRule::Optimal), Error);
  // Square under the increment scope can only remove x = y lines: 3x3 -> 2x2 or 1x1.
  EXPECT_EQ(plan_shrink(g, 1, AspectRatio::square(), AspectScope::Increment).to.grid, (Topology{2, 2}));
}
