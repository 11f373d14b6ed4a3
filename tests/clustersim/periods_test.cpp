// SPDX-License-Identifier: BSD-3-Clause
// A site's prime-time rule (sim/src/periods.hpp): the cuts of a week, prime time, which
// estimates may start when, daylight saving through the offset, and the backfilling
// passing over a job the rule holds.
#include <gtest/gtest.h>

#include <limits>

#include "cluster.hpp"
#include "periods.hpp"

using namespace clustersim;

namespace {

constexpr double kH = 3600;
// Monday 1 January 2024, 00:00 UTC.
constexpr double kMonday = 1704067200;

PeriodPolicy rule(double origin = kMonday) {
  PeriodPolicy p;
  p.on = true;
  p.origin = origin;
  return p;
}

}  // namespace

TEST(ClusterSimPeriods, CutsOfAWeek) {
  const PeriodPolicy p = rule();
  EXPECT_DOUBLE_EQ(p.next_cut(0), 8 * kH);             // Monday 00:00 -> 08:00
  EXPECT_DOUBLE_EQ(p.next_cut(8 * kH), 17 * kH);       // at a cut: the next one
  EXPECT_DOUBLE_EQ(p.next_cut(20 * kH), 32 * kH);      // Monday evening -> Tuesday 08:00
  const double friday_evening = 4 * 24 * kH + 18 * kH;
  EXPECT_DOUBLE_EQ(p.next_cut(friday_evening), 7 * 24 * kH + 8 * kH);  // -> Monday 08:00
  EXPECT_TRUE(p.prime(9 * kH));
  EXPECT_FALSE(p.prime(17 * kH));
  EXPECT_FALSE(p.prime(7.5 * kH));
  EXPECT_FALSE(p.prime(5 * 24 * kH + 10 * kH));  // Saturday 10:00
}

TEST(ClusterSimPeriods, WhichEstimatesMayStart) {
  const PeriodPolicy p = rule();
  EXPECT_TRUE(p.may_start(9 * kH, 4 * kH));       // prime time, 4 h, ends 13:00
  EXPECT_FALSE(p.may_start(9 * kH, 4.5 * kH));    // longer than prime time allows
  EXPECT_FALSE(p.may_start(14 * kH, 3.5 * kH));   // would run past 17:00
  EXPECT_TRUE(p.may_start(17 * kH, 15 * kH));     // the night: until Tuesday 08:00
  EXPECT_FALSE(p.may_start(18 * kH, 15 * kH));
  EXPECT_FALSE(p.may_start(6 * kH, 3 * kH));      // would run into Monday's prime time
  const double friday_evening = 4 * 24 * kH + 17 * kH;
  EXPECT_TRUE(p.may_start(friday_evening, 60 * kH));  // the weekend night: 63 h
  EXPECT_TRUE(p.may_start(friday_evening + kH, 80 * kH));  // longer than any night: outside prime time
  EXPECT_FALSE(p.may_start(10 * kH, 80 * kH));
  PeriodPolicy off = p;
  off.on = false;
  EXPECT_TRUE(off.may_start(14 * kH, 100 * kH));
  // Local time: two hours east of UTC, prime time 08:00-17:00 local is 06:00-15:00 UTC.
  PeriodPolicy east = p;
  east.offset = [](double) { return 2 * 3600L; };
  EXPECT_TRUE(east.prime(6.5 * kH));
  EXPECT_DOUBLE_EQ(east.next_cut(0), 6 * kH);
}

// The stretch of a period in which a job may start: up to the next cut less its estimate;
// a job longer than any night the whole night; none where it may not start; no end when off.
TEST(ClusterSimPeriods, UntilWhenAJobMayStart) {
  const PeriodPolicy p = rule();
  EXPECT_DOUBLE_EQ(p.may_start_until(9 * kH, 3 * kH), 14 * kH);    // 3 h in prime time: until 14:00
  EXPECT_DOUBLE_EQ(p.may_start_until(14.5 * kH, 3 * kH), 14.5 * kH);  // would cross 17:00: not now
  EXPECT_DOUBLE_EQ(p.may_start_until(17 * kH, 10 * kH), 22 * kH);   // the night until Tuesday 08:00
  const double friday_evening = 4 * 24 * kH + 17 * kH;
  EXPECT_DOUBLE_EQ(p.may_start_until(friday_evening + kH, 80 * kH), 7 * 24 * kH + 8 * kH);  // to Monday 08:00
  PeriodPolicy off = p;
  off.on = false;
  EXPECT_EQ(off.may_start_until(9 * kH, 80 * kH), std::numeric_limits<double>::infinity());
}

TEST(ClusterSimPeriods, BackfillingPassesOverAHeldJob) {
  Job longer;  // 10 h requested: may not start in prime time
  longer.id = "long";
  longer.nodes = longer.min_nodes = longer.max_nodes = 2;
  longer.work_node_s = 2 * 10 * kH;
  longer.limit_s = 10 * kH;
  Job shorter = longer;  // 1 h
  shorter.id = "short";
  shorter.work_node_s = 2 * kH;
  shorter.limit_s = kH;
  Cluster c(Workload{"", 0, 4, 0, 1, {longer, shorter}});
  c.set_periods(rule());
  c.submit(0, 9 * kH);
  c.submit(1, 9 * kH);
  EXPECT_FALSE(c.eligible(0, 9 * kH));
  EXPECT_EQ(c.head(9 * kH), 1u);  // the head is the oldest job the rule lets start
  const auto started = c.schedule(9 * kH);
  ASSERT_EQ(started.size(), 1u);
  EXPECT_EQ(started[0], 1u);
  EXPECT_TRUE(c.schedule(10 * kH).empty());  // still prime time
  const auto evening = c.schedule(17 * kH);
  ASSERT_EQ(evening.size(), 1u);
  EXPECT_EQ(evening[0], 0u);
}
