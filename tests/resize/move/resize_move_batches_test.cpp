// SPDX-License-Identifier: BSD-3-Clause
// A resize's matrix move under a memory budget (move_batches.hpp): the batches the
// planner makes from the per-matrix maxima, the bytes a process holds at the peak, and
// the budget's parsing (parse_move_budget).
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "malleable/resize/session_options.hpp"
#include "move/move_batches.hpp"

using resize::detail::held_peak;
using resize::detail::MoveBatch;
using resize::detail::plan_move_batches;

namespace {
using Bytes = std::vector<std::int64_t>;
}

TEST(MoveBatches, NoLimitIsOneBatchOfEveryMatrix) {
  const Bytes b{100, 200, 300};
  EXPECT_EQ(plan_move_batches(b, 0), (std::vector<MoveBatch>{{0, 3, 600}}));
  EXPECT_EQ(plan_move_batches(b, -1), (std::vector<MoveBatch>{{0, 3, 600}}));
  EXPECT_TRUE(plan_move_batches(Bytes{}, 0).empty());
  EXPECT_TRUE(plan_move_batches(Bytes{}, 64).empty());
}

TEST(MoveBatches, ABudgetThatFitsEverythingIsOneBatch) {
  const Bytes b{100, 200, 300};
  EXPECT_EQ(plan_move_batches(b, 600), (std::vector<MoveBatch>{{0, 3, 600}}));  // exactly
  EXPECT_EQ(plan_move_batches(b, 599), (std::vector<MoveBatch>{{0, 2, 300}, {2, 3, 300}}));
}

TEST(MoveBatches, ConsecutiveBatchesEachWithinTheBudget) {
  const Bytes b{40, 40, 40, 10, 70, 30, 30};
  const auto batches = plan_move_batches(b, 100);
  EXPECT_EQ(batches, (std::vector<MoveBatch>{{0, 2, 80}, {2, 4, 50}, {4, 6, 100}, {6, 7, 30}}));
  // Consecutive, covering every matrix once, each within the budget.
  std::size_t next = 0;
  for (const auto& x : batches) {
    EXPECT_EQ(x.begin, next);
    EXPECT_LT(x.begin, x.end);
    EXPECT_LE(x.bytes, 100);
    next = x.end;
  }
  EXPECT_EQ(next, b.size());
}

TEST(MoveBatches, AMatrixLargerThanTheBudgetGoesAlone) {
  EXPECT_EQ(plan_move_batches(Bytes{10, 500, 10, 10}, 100),
            (std::vector<MoveBatch>{{0, 1, 10}, {1, 2, 500}, {2, 4, 20}}));
  EXPECT_EQ(plan_move_batches(Bytes{500, 600}, 100), (std::vector<MoveBatch>{{0, 1, 500}, {1, 2, 600}}));
  // Empty matrices (no new buffer anywhere) join any batch.
  EXPECT_EQ(plan_move_batches(Bytes{0, 100, 0, 100}, 100), (std::vector<MoveBatch>{{0, 3, 100}, {3, 4, 100}}));
}

TEST(MoveBatches, ThreeEqualMatricesAndABudgetOfOneAreThreeBatches) {
  // The MPI test's case (session_move_budget.cpp): each batch one matrix.
  EXPECT_EQ(plan_move_batches(Bytes{800, 800, 800}, 1000).size(), 3u);
  EXPECT_EQ(plan_move_batches(Bytes{800, 800, 800}, 1600).size(), 2u);
}

TEST(HeldPeak, OneBatchHoldsEveryOldAndEveryNewBuffer) {
  // A shrink from 4 to 2 processes: each keeps 1/4, then holds 1/2 more.
  const Bytes old_b{250, 250, 250}, new_b{500, 500, 500};
  const std::vector<MoveBatch> one{{0, 3, 1500}};
  EXPECT_EQ(held_peak(old_b, new_b, one), 750 + 1500);
}

TEST(HeldPeak, BatchesFreeOldBuffersBeforeTheNextBatch) {
  const Bytes old_b{250, 250, 250}, new_b{500, 500, 500};
  const std::vector<MoveBatch> three{{0, 1, 500}, {1, 2, 500}, {2, 3, 500}};
  // batch 0: 750 old + 500; batch 1: 500 old + 1000 new; batch 2: 250 old + 1500 new.
  EXPECT_EQ(held_peak(old_b, new_b, three), 1750);
  // An expansion (new smaller than old): the first batch is the peak.
  EXPECT_EQ(held_peak(new_b, old_b, three), 1500 + 250);
  const std::vector<MoveBatch> two{{0, 2, 1000}, {2, 3, 500}};
  // batch 0: 750 old + 1000 new; batch 1: 250 old + 1500 new.
  EXPECT_EQ(held_peak(old_b, new_b, two), 1750);
  EXPECT_EQ(held_peak(Bytes{100, 100, 100}, Bytes{10, 10, 10}, two), 300 + 20);
  EXPECT_EQ(held_peak(Bytes{}, Bytes{}, std::vector<MoveBatch>{}), 0);
}

TEST(MoveBudget, ParsesBytesWithBinarySuffixes) {
  EXPECT_EQ(resize::parse_move_budget(""), 0);
  EXPECT_EQ(resize::parse_move_budget("0"), 0);
  EXPECT_EQ(resize::parse_move_budget("unlimited"), 0);
  EXPECT_EQ(resize::parse_move_budget("4096"), 4096);
  EXPECT_EQ(resize::parse_move_budget("64K"), 64 << 10);
  EXPECT_EQ(resize::parse_move_budget("512M"), std::int64_t{512} << 20);
  EXPECT_EQ(resize::parse_move_budget("2G"), std::int64_t{2} << 30);
  EXPECT_EQ(resize::parse_move_budget("3g"), std::int64_t{3} << 30);
  for (const char* bad : {"-1", "12X", "M", "1.5G", "99999999999999999999", "1 G", "9000000000G"})
    EXPECT_THROW(resize::parse_move_budget(bad), resize::Error) << bad;
}
