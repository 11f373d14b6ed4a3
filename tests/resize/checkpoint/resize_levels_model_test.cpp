// SPDX-License-Identifier: BSD-3-Clause
// The multi-level checkpoint overhead model (resize/src/checkpoint/levels/model.hpp):
// Daly's exact single-level slowdown, its optimum against Young's and Daly's interval
// formulas, the composition of levels, refusals.
#include <gtest/gtest.h>

#include <cmath>

#include "checkpoint/levels/model.hpp"
#include "malleable/resize/types.hpp"

namespace lv = resize::levels;

TEST(LevelsModel, DalySlowdownMatchesFirstOrderForRareFailures) {
  const double M = 1e7, C = 10, DR = 30, tau = 3000;
  const double s = lv::daly_slowdown(tau, C, DR, 1 / M);
  const double first = 1 + C / tau + (tau / 2 + DR) / M;
  EXPECT_NEAR(s, first, 1e-5);  // the terms are ~3.5e-3; the second-order ones ~1e-6
  // Without failures only the checkpoints cost; more often costs more.
  EXPECT_DOUBLE_EQ(lv::daly_slowdown(tau, C, DR, 0), (tau + C) / tau);
  EXPECT_GT(lv::daly_slowdown(tau / 10, C, DR, 1 / M), s);
  EXPECT_TRUE(std::isinf(lv::daly_slowdown(0, C, DR, 1 / M)));
}

TEST(LevelsModel, BestIntervalIsYoungAndDalys) {
  for (double ratio : {1e-5, 1e-4, 1e-3, 1e-2}) {  // C / M
    const double M = 3600, C = ratio * M;
    const double tau = lv::best_interval(C, 5, 1 / M);
    const double young = std::sqrt(2 * C * M);
    // Daly 2006, eq. 37: sqrt(2CM) [1 + sqrt(C/2M)/3 + C/(18M)] - C for C < 2M (optimum of
    // the compute time between checkpoints).
    const double daly = young * (1 + std::sqrt(C / (2 * M)) / 3 + C / (18 * M)) - C;
    EXPECT_NEAR(tau / daly, 1, 2e-3) << "C/M " << ratio;
    EXPECT_NEAR(tau / young, 1, 2 * std::sqrt(ratio) + 1e-3) << "C/M " << ratio;
    // It is the minimum: 10% either side is worse.
    const double s = lv::daly_slowdown(tau, C, 5, 1 / M);
    EXPECT_LT(s, lv::daly_slowdown(tau * 1.1, C, 5, 1 / M));
    EXPECT_LT(s, lv::daly_slowdown(tau / 1.1, C, 5, 1 / M));
  }
  EXPECT_EQ(lv::best_interval(10, 5, 0), 0) << "a level no failure needs is never written";
}

TEST(LevelsModel, LevelsComposeAndCheapLevelsPay) {
  const double M = 3600, D = 4;
  const std::vector<lv::ModelLevel> global_only{{"global", 60, 60, 1.0}};
  const std::vector<lv::ModelLevel> multi{{"local", 0.5, 0.5, 0.0}, {"partner", 2, 3, 0.9}, {"global", 60, 60, 0.1}};
  const auto g = lv::expected_overhead(global_only, M, D);
  const auto m = lv::expected_overhead(multi, M, D);
  ASSERT_EQ(g.levels.size(), 1u);
  ASSERT_EQ(m.levels.size(), 3u);
  // One level: exactly Daly's slowdown at its interval.
  EXPECT_DOUBLE_EQ(g.slowdown, lv::daly_slowdown(g.levels[0].interval, 60, D + 60, 1 / M));
  EXPECT_NEAR(g.overhead, 1 - 1 / g.slowdown, 1e-15);
  // Levels: the product; the local level (no failure of its class) is never written.
  EXPECT_EQ(m.levels[0].interval, 0);
  EXPECT_EQ(m.levels[0].slowdown, 1);
  EXPECT_NEAR(m.slowdown, m.levels[1].slowdown * m.levels[2].slowdown, 1e-12);
  EXPECT_NEAR(m.levels[1].rate, 0.9 / M, 1e-15);
  // To first order: sum sqrt(2 C l) + l (D + R), within the second-order terms.
  EXPECT_NEAR(m.overhead, m.first_order, 0.15 * m.first_order);
  EXPECT_NEAR(g.overhead, g.first_order, 0.15 * g.first_order);
  // The cheap partner level takes 90% of the failures: far less overhead than global only.
  EXPECT_LT(m.overhead, 0.5 * g.overhead);
  // More failures (shorter MTBF) cost more; a costlier global level costs more.
  EXPECT_GT(lv::expected_overhead(multi, M / 4, D).overhead, m.overhead);
  auto dear = multi;
  dear[2].cost = 600;
  EXPECT_GT(lv::expected_overhead(dear, M, D).overhead, m.overhead);
}

TEST(LevelsModel, CheckpointsLongerThanTheMtbfNeverFinish) {
  const auto r = lv::expected_overhead({{"global", 1e6, 1e6, 1.0}}, 3600, 4);
  EXPECT_GT(r.overhead, 0.999) << "a 1e6 s checkpoint under a 1 h MTBF";
}

TEST(LevelsModel, SharedFileSystem) {
  EXPECT_DOUBLE_EQ(lv::shared_fs_seconds(1e9, 1000, 1e11, 0.5), 10.0);
  EXPECT_DOUBLE_EQ(lv::shared_fs_seconds(1e6, 10, 1e11, 0.5), 0.5) << "never below the cost measured alone";
  EXPECT_THROW(lv::shared_fs_seconds(1e9, 1000, 0, 0.5), resize::Error);
  EXPECT_THROW(lv::shared_fs_seconds(1e9, 0, 1e11, 0.5), resize::Error);
}

TEST(LevelsModel, BadInputIsRefused) {
  EXPECT_THROW(lv::expected_overhead({{"global", 1, 1, 0.5}}, 3600, 4), resize::Error) << "shares sum to 0.5";
  EXPECT_THROW(lv::expected_overhead({{"global", -1, 1, 1.0}}, 3600, 4), resize::Error);
  EXPECT_THROW(lv::expected_overhead({{"global", 1, 1, 1.0}}, 0, 4), resize::Error);
  EXPECT_THROW(lv::expected_overhead({{"global", 1, 1, 1.0}}, 3600, -1), resize::Error);
}

TEST(LevelsModel, FileSystemAtScaleHasNoFloorAndANodeCap) {
  // 16 GB per node: 10,000 nodes through 1 TB/s take 160 s, 1,000 nodes 16 s: the node
  // count matters.
  EXPECT_DOUBLE_EQ(lv::fs_seconds(16e9, 10000, 1e12, 5e9), 160.0);
  EXPECT_DOUBLE_EQ(lv::fs_seconds(16e9, 1000, 1e12, 5e9), 16.0);
  // 1,000 nodes through 10 TB/s would get 10 GB/s each; a node's client writes 5 GB/s.
  EXPECT_DOUBLE_EQ(lv::fs_seconds(16e9, 1000, 1e13, 5e9), 3.2);
  EXPECT_DOUBLE_EQ(lv::fs_seconds(1e6, 1, 1e12, 5e9), 2e-4) << "no floor from a measured time";
  EXPECT_THROW(lv::fs_seconds(16e9, 1000, 1e12, 0), resize::Error);
  EXPECT_THROW(lv::fs_seconds(16e9, 0, 1e12, 5e9), resize::Error);
}

TEST(LevelsModel, AtScaleCostsKeepTheMeasuredLinkEfficiency) {
  // Measured: 1e8 bytes, local 0.2 s, local+partner 1.2 s over a 1.25e8 B/s link: the
  // partner copy took 1.0 s against a 0.8 s bound, efficiency 0.8.
  const lv::MeasuredLevels m{1e8, 0.2, 1.2, 1.25e8};
  EXPECT_DOUBLE_EQ(lv::link_efficiency(1e8, 1.25e8, 1.0), 0.8);
  EXPECT_DOUBLE_EQ(lv::link_efficiency(1e8, 1.25e8, 0.5), 1.0) << "never above the link";
  // At the measured size and link the measured costs come back.
  const auto same = lv::at_scale_costs(m, {1e8, 1, 1e12, 5e9, 1.25e8, 0});
  EXPECT_NEAR(same.partner_efficiency, 0.8, 1e-12);
  EXPECT_NEAR(same.local, 0.2, 1e-12);
  EXPECT_NEAR(same.partner, 1.2, 1e-12);
  // 1e9 bytes per node, a 1e10 B/s interconnect: local 10x, the copy 1e9 / 8e9 s.
  const auto big = lv::at_scale_costs(m, {1e9, 10000, 1e12, 5e9, 1e10, 0});
  EXPECT_NEAR(big.local, 2.0, 1e-12);
  EXPECT_NEAR(big.partner, 2.0 + 0.125, 1e-12);
  EXPECT_NEAR(big.global, 10.0, 1e-12);  // 1e9 x 1e4 / 1e12
  // An assumed local rate replaces the measured one.
  const auto fast = lv::at_scale_costs(m, {1e9, 10000, 1e12, 5e9, 1e10, 1e10});
  EXPECT_NEAR(fast.local, 0.1, 1e-12);
  EXPECT_NEAR(fast.partner, 0.1 + 0.125, 1e-12);
  EXPECT_THROW(lv::at_scale_costs({1e8, 1.2, 1.2, 1.25e8}, {1e9, 1, 1e12, 5e9, 1e10, 0}), resize::Error)
      << "a partner level no dearer than the local one";
  EXPECT_THROW(lv::at_scale_costs(m, {1e9, 1, 1e12, 5e9, 0, 0}), resize::Error);
}

TEST(LevelsModel, AtScaleTheNodeCountMatters) {
  const lv::MeasuredLevels m{1e8, 0.01, 0.9, 1.25e8};
  auto ratio = [&](int nodes) {
    const auto c = lv::at_scale_costs(m, {16e9, nodes, 1e12, 5e9, 12.5e9, 0});
    const auto r = lv::compare(c.local, c.local, c.partner, c.partner, c.global, 0, 0.02, 3600, 5);
    EXPECT_DOUBLE_EQ(r.ratio, r.global_only.overhead / r.multi.overhead);
    EXPECT_NEAR(r.multi.levels[2].rate, 0.02 / 3600, 1e-15);
    return r.ratio;
  };
  // 10x the nodes: the global level 10x dearer, the node-local levels not.
  EXPECT_GT(ratio(10000), 1.5 * ratio(1000));
  EXPECT_GT(ratio(1000), 1.0);
}

TEST(LevelsModel, BreakEvenCostRatio) {
  // 2% of the failures global, target 5x: C_global / C_partner >= 0.98 / (0.2 - sqrt(0.02))^2.
  const double need = lv::break_even_cost_ratio(5, 0.02);
  EXPECT_NEAR(need, 0.98 / std::pow(0.2 - std::sqrt(0.02), 2), 1e-9);
  EXPECT_TRUE(std::isinf(lv::break_even_cost_ratio(5, 0.1))) << "sqrt(0.1) > 1/5: out of reach";
  EXPECT_NEAR(lv::break_even_cost_ratio(5, 0), 25, 1e-12);
  // At that cost ratio the first-order overheads are 5x apart.
  const double cg = 160, cp = cg / need, l = 1 / 3600.0;
  const double one = std::sqrt(2 * cg * l), multi = std::sqrt(2 * cp * 0.98 * l) + std::sqrt(2 * cg * 0.02 * l);
  EXPECT_NEAR(one / multi, 5, 1e-9);
  EXPECT_THROW(lv::break_even_cost_ratio(0, 0.02), resize::Error);
  EXPECT_THROW(lv::break_even_cost_ratio(5, 1.5), resize::Error);
}
