// SPDX-License-Identifier: BSD-3-Clause
// The remap point's arrival check (issue 42 §5), its pure part: the deadline and the
// messages that name the processes that did not arrive (resize/src/session/arrival.hpp).
#include <gtest/gtest.h>

#include "session/arrival.hpp"

using resize::detail::arrival_deadline;
using resize::detail::arrival_verdict;
using resize::detail::rank_list;
using resize::detail::root_missing;

TEST(Arrival, DeadlineIsTheFloorOrThreeTimesTheLongestGap) {
  EXPECT_EQ(arrival_deadline(600, 0), 600);
  EXPECT_EQ(arrival_deadline(600, 150), 600);
  EXPECT_EQ(arrival_deadline(600, 250), 750);   // iterations of 250 s: a rank off the grid waits one
  EXPECT_EQ(arrival_deadline(3, 0.002), 3);
  EXPECT_EQ(arrival_deadline(3, -1), 3);        // no gap measured yet
}

TEST(Arrival, EveryoneThereIsNoVerdict) { EXPECT_EQ(arrival_verdict(7, 600, {}, {}), ""); }

TEST(Arrival, TheMissingRanksAreNamed) {
  EXPECT_EQ(rank_list({3}), "3");
  EXPECT_EQ(rank_list({1, 3, 5}), "1, 3, 5");
  const std::string one = arrival_verdict(2, 3, {3}, {});
  EXPECT_EQ(one.rfind("remap point after iteration 2: world rank 3 did not arrive within 3 s (", 0), 0u) << one;
  const std::string two = arrival_verdict(9, 600, {1, 3}, {});
  EXPECT_EQ(two.rfind("remap point after iteration 9: world ranks 1, 3 did not arrive within 600 s", 0), 0u) << two;
  EXPECT_NE(two.find("every process must call remap_point() after the same iterations"), std::string::npos);
}

TEST(Arrival, ARankAtAnotherRemapPointIsNamedWithItsIteration) {
  const std::string v = arrival_verdict(2, 3, {}, {{3, 3}, {5, 4}});
  EXPECT_EQ(v.rfind("remap point after iteration 2: world rank 3 did not arrive: it came to the remap point after "
                    "iteration 3; world rank 5 did not arrive: it came to the remap point after iteration 4 (",
                    0),
            0u)
      << v;
}

TEST(Arrival, RankZeroMissingIsNamedByTheOthers) {
  EXPECT_EQ(root_missing(4, 600).rfind("remap point after iteration 4: world rank 0 did not arrive within 600 s (", 0),
            0u);
}
