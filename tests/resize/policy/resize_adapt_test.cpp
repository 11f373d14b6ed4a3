// SPDX-License-Identifier: BSD-3-Clause
// plan_adaptation: which adaptation the measured speeds call for, and seed
// 004's rule that it must pay over the remaining iterations.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "malleable/gridmap/hetero.hpp"
#include "malleable/redist/cost_model.hpp"
#include "malleable/resize/adapt.hpp"

namespace {

using resize::AdaptInput;
using resize::Grid;

constexpr int kN = 960;

// The heterogeneous Life driver's layout: gridmap's sizes for the grid's arrangement.
void proportional(const Grid& g, const std::vector<double>& powers, std::vector<long long>& rows,
                  std::vector<long long>& cols) {
  gridmap::ProcessorPowers sub;
  std::vector<int> ids;
  for (int k = 0; k < g.size(); ++k) {
    sub.values.push_back(powers[static_cast<std::size_t>(g.rank_map()[static_cast<std::size_t>(k)])]);
    ids.push_back(k);
  }
  gridmap::HeteroOptions opt;
  opt.refine_arrangement = false;
  const auto map = gridmap::map_arranged(sub, gridmap::Topology{g.nprow, g.npcol}, ids, kN, kN, opt);
  rows.assign(map.rows.begin(), map.rows.end());
  cols.assign(map.cols.begin(), map.cols.end());
}

AdaptInput input(Grid g, std::vector<double> speeds, int remaining, double t_iter = 0.010) {
  AdaptInput in;
  in.grid = std::move(g);
  in.world_size = static_cast<int>(speeds.size());
  in.speeds = std::move(speeds);
  in.samples.assign(in.speeds.size(), 5);
  in.t_iteration = t_iter;
  in.remaining = remaining;
  in.m = in.n = kN;
  return in;
}

TEST(Adapt, EqualSpeedsOnABalancedGridStay) {
  const auto plan = resize::plan_adaptation(input(Grid{2, 2, {}}, {1e8, 1e8, 1e8, 1e8}, 100), proportional, nullptr, nullptr);
  EXPECT_FALSE(plan.chosen) << plan.why;
  EXPECT_FALSE(plan.considered.empty());
  EXPECT_NE(plan.why.find("stay"), std::string::npos);
}

TEST(Adapt, OneSlowProcessIsWorkedAroundWhenItPays) {
  // Rank 3 four times slower: its quarter of the board sets the iteration time.
  const auto plan = resize::plan_adaptation(input(Grid{2, 2, {}}, {1e8, 1e8, 1e8, 2.5e7}, 100), proportional, nullptr, nullptr);
  ASSERT_TRUE(plan.chosen) << plan.why;
  const auto& c = *plan.chosen;
  EXPECT_TRUE(c.prediction.pays);
  EXPECT_LT(c.prediction.t_iter_new, 0.010 * 0.6);  // from 4x the balanced time to well below
  EXPECT_GT(c.prediction.gain, c.prediction.t_resize);
  // The new mapping powers are the measured speeds relative to the fastest.
  ASSERT_EQ(c.powers.size(), 4u);
  EXPECT_DOUBLE_EQ(c.powers[0], 1.0);
  EXPECT_DOUBLE_EQ(c.powers[3], 0.25);
  // Every candidate that was considered was worse by net gain.
  for (const auto& o : plan.considered) {
    if (o.prediction.pays) {
      EXPECT_LE(o.prediction.gain - o.prediction.t_resize, c.prediction.gain - c.prediction.t_resize + 1e-12);
    }
  }
}

TEST(Adapt, Seed004RuleStaysWhenTooFewIterationsRemain) {
  // The same slow process, but one iteration left: no adaptation can repay its cost.
  const auto plan = resize::plan_adaptation(input(Grid{2, 2, {}}, {1e8, 1e8, 1e8, 2.5e7}, 1, 0.001), proportional, nullptr, nullptr);
  EXPECT_FALSE(plan.chosen) << plan.why;
  for (const auto& c : plan.considered) EXPECT_FALSE(c.prediction.gain > c.prediction.t_resize) << c.what;
}

TEST(Adapt, ExpensiveRedistributionPerTheCostModelStays) {
  redist::CostParams slow;
  slow.byte_intra_s = slow.byte_inter_s = 1e-3;  // a millisecond per byte: nothing pays
  const auto plan = resize::plan_adaptation(input(Grid{2, 2, {}}, {1e8, 1e8, 1e8, 2.5e7}, 100), proportional, &slow, nullptr);
  EXPECT_FALSE(plan.chosen) << plan.why;
  redist::CostParams fast;
  fast.byte_intra_s = fast.byte_inter_s = 1e-10;
  EXPECT_TRUE(resize::plan_adaptation(input(Grid{2, 2, {}}, {1e8, 1e8, 1e8, 2.5e7}, 100), proportional, &fast, nullptr).chosen);
}

TEST(Adapt, UncalibratedRedistributionFollowsTheResizeHistory) {
  // No cost model: before any resize the moved bytes at the fallback rate; once the run has
  // resized, the line through its redistributions (with their fixed cost), as the session
  // predicts them.
  const auto in = input(Grid{2, 2, {}}, {1e8, 1e8, 1e8, 2.5e7}, 100);
  const auto first = resize::plan_adaptation(in, proportional, nullptr, nullptr);
  ASSERT_TRUE(first.chosen) << first.why;
  EXPECT_NE(first.why.find("MB/s"), std::string::npos) << first.why;
  resize::ResizeHistory h;
  resize::ResizeEvent e;
  e.action = resize::Action::Regrid;
  e.from_procs = e.to_procs = 4;
  e.t_redist = 0.006;  // 6 ms + 1 ns per byte
  e.bytes_moved = 1e6;
  e.t_redist += 1e-9 * e.bytes_moved;
  h.add(e);
  e.bytes_moved = 4e6;
  e.t_redist = 0.006 + 1e-9 * e.bytes_moved;
  h.add(e);
  const auto plan = resize::plan_adaptation(in, proportional, nullptr, &h);
  ASSERT_TRUE(plan.chosen) << plan.why;
  EXPECT_NE(plan.why.find("from the resize history"), std::string::npos) << plan.why;
  EXPECT_GT(plan.chosen->prediction.t_redist, 0.006);
}

TEST(Adapt, AProcessOffTheGridReturnsOnceItsLoadIsGone) {
  // Rank 3 was dropped (grid 1x3 of ranks 0-2) and now runs as fast as the others.
  const auto plan = resize::plan_adaptation(input(Grid{1, 3, {0, 1, 2}}, {1e8, 1e8, 1e8, 1e8}, 100), proportional, nullptr, nullptr);
  ASSERT_TRUE(plan.chosen) << plan.why;
  EXPECT_EQ(plan.chosen->what, "return rank 3");
  EXPECT_EQ(plan.chosen->grid.size(), 4);
  EXPECT_NEAR(plan.chosen->prediction.t_iter_new, 0.010 * 3.0 / 4.0, 0.010 * 0.03);
}

TEST(Adapt, DropIsOffWhenDisabled) {
  resize::AdaptOptions opt;
  opt.drop = false;
  const auto plan = resize::plan_adaptation(input(Grid{2, 2, {}}, {1e8, 1e8, 1e8, 2.5e7}, 100), proportional, nullptr, nullptr, opt);
  for (const auto& c : plan.considered) EXPECT_EQ(c.what.find("drop"), std::string::npos) << c.what;
}

TEST(Adapt, WaitsUntilEveryProcessHasBeenMeasured) {
  auto in = input(Grid{2, 2, {}}, {1e8, 1e8, 1e8, 2.5e7}, 100);
  in.samples[2] = 1;
  const auto plan = resize::plan_adaptation(in, proportional, nullptr, nullptr);
  EXPECT_FALSE(plan.chosen);
  EXPECT_NE(plan.why.find("rank 2"), std::string::npos) << plan.why;
  EXPECT_TRUE(plan.considered.empty());
}

TEST(Adapt, InconsistentInputIsRefusedByName) {
  auto in = input(Grid{2, 2, {}}, {1e8, 1e8, 1e8}, 100);
  in.world_size = 4;
  EXPECT_THROW(resize::plan_adaptation(in, proportional, nullptr, nullptr), resize::Error);
  auto bad_t = input(Grid{2, 2, {}}, {1e8, 1e8, 1e8, 1e8}, 100, 0.0);
  EXPECT_THROW(resize::plan_adaptation(bad_t, proportional, nullptr, nullptr), resize::Error);
  auto outside = input(Grid{2, 2, {0, 1, 2, 7}}, {1e8, 1e8, 1e8, 1e8}, 100);
  try {
    resize::plan_adaptation(outside, proportional, nullptr, nullptr);
    FAIL() << "a grid rank outside the world was accepted";
  } catch (const resize::Error& e) {
    EXPECT_NE(std::string(e.what()).find("rank 7"), std::string::npos) << e.what();
  }
}

}  // namespace

TEST(Adapt, StaysAndSaysWhyAboveItsRankLimit) {
  // candidates are priced with whole-job plans on one process, so above
  // kMaxAdaptRanks it considers nothing (no plan built) and says so; at the limit it plans.
  std::vector<double> speeds(static_cast<std::size_t>(resize::kMaxAdaptRanks) + 1, 1e8);
  speeds.back() = 2.5e7;
  auto in = input(Grid{2, 2, {}}, speeds, 100);
  const auto over = resize::plan_adaptation(in, proportional, nullptr, nullptr);
  EXPECT_FALSE(over.chosen);
  EXPECT_TRUE(over.considered.empty());
  EXPECT_NE(over.why.find("at most 128 ranks"), std::string::npos) << over.why;
  EXPECT_NE(over.why.find("129"), std::string::npos) << over.why;
  speeds.pop_back();
  in = input(Grid{2, 2, {}}, speeds, 100);
  in.samples.assign(speeds.size(), 5);
  resize::AdaptOptions o;
  o.give_back = false;  // the 124 off-grid ranks: not needed to see it plan
  const auto at = resize::plan_adaptation(in, proportional, nullptr, nullptr, o);
  EXPECT_FALSE(at.considered.empty()) << at.why;
}
