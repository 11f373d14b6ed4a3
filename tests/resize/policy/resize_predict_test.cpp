// SPDX-License-Identifier: BSD-3-Clause
// Measure, predict, decide (predict.hpp): per-process speed, resize times from history,
// payoff prediction and Arefeen's (time adaptation) rule.
#include "malleable/resize/predict.hpp"

#include "core_test_util.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <unistd.h>

namespace {

using resize::Action;
using resize::Error;
using resize::PayoffPrediction;
using resize::ResizeEvent;
using resize::ResizeHistory;
using resize::SpeedEstimator;
using resize_test::resize_event;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

// Runs `f`, expects resize::Error, returns its message ("" and a failure otherwise).
std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "expected resize::Error, got another exception: " << e.what();
    return "";
  }
  ADD_FAILURE() << "expected resize::Error, nothing was thrown";
  return "";
}

double rel(double a, double b) { return std::fabs(a - b) / std::fabs(b); }

// ---------------------------------------------------------------------------------------
// SpeedEstimator

TEST(SpeedEstimator, FirstSampleIsTheEstimateAndUnknownRanksAreEmpty) {
  SpeedEstimator s;
  EXPECT_FALSE(s.speed(0).has_value());
  EXPECT_EQ(s.samples(0), 0);
  s.add(0, 200.0, 2.0);
  ASSERT_TRUE(s.speed(0).has_value());
  EXPECT_DOUBLE_EQ(*s.speed(0), 100.0);
  EXPECT_EQ(s.samples(0), 1);
  EXPECT_FALSE(s.speed(1).has_value());
}

TEST(SpeedEstimator, InvalidSamplesAreIgnored) {
  SpeedEstimator s;
  s.add(0, 0.0, 1.0);
  s.add(0, -1.0, 1.0);
  s.add(0, 1.0, 0.0);
  s.add(0, 1.0, -1.0);
  s.add(0, kNaN, 1.0);
  s.add(0, 1.0, kNaN);
  s.add(0, kInf, 1.0);
  s.add(0, 1.0, kInf);
  s.add(0, 1e300, 1e-300);  // speed overflows to infinity
  EXPECT_FALSE(s.speed(0).has_value());
  EXPECT_EQ(s.samples(0), 0);
}

TEST(SpeedEstimator, OneOutlierMovesEstimateLessThanTenPercent) {
  // Window of 5 steady samples, then one iteration 5x slower (preempted), then steady again.
  SpeedEstimator s;
  const double base[] = {100, 102, 98, 101, 99};
  for (double v : base) s.add(0, v, 1.0);
  const double before = *s.speed(0);
  s.add(0, 100.0, 5.0);  // speed 20
  EXPECT_LT(rel(*s.speed(0), before), 0.10) << "right after the outlier";
  s.add(0, 100.0, 1.0);
  EXPECT_LT(rel(*s.speed(0), before), 0.10) << "after the outlier joined the window";
  s.add(0, 100.0, 1.0);
  EXPECT_LT(rel(*s.speed(0), before), 0.10);
}

TEST(SpeedEstimator, OneOutlierEarlyInTheWindowMovesEstimateLessThanTenPercent) {
  // Only two samples known when the outlier comes: a mean of the window would drop by 27%.
  SpeedEstimator s;
  s.add(0, 100.0, 1.0);
  s.add(0, 100.0, 1.0);
  s.add(0, 100.0, 5.0);
  EXPECT_LT(rel(*s.speed(0), 100.0), 0.10);
  s.add(0, 100.0, 1.0);
  EXPECT_LT(rel(*s.speed(0), 100.0), 0.10);
  // A fast outlier (a share of the core freed for one iteration) likewise.
  s.add(0, 500.0, 1.0);
  EXPECT_LT(rel(*s.speed(0), 100.0), 0.10);
  s.add(0, 100.0, 1.0);
  EXPECT_LT(rel(*s.speed(0), 100.0), 0.10);
}

// The process gets 3x slower from one iteration on: not followed after confirm-1 samples,
// followed (within 10%) after confirm samples, with the estimate restarted from them.
void expect_step_followed_after_confirm(SpeedEstimator::Options o, std::uint32_t seed) {
  SCOPED_TRACE("window " + std::to_string(o.window) + ", confirm " + std::to_string(o.confirm));
  SpeedEstimator s(o);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> noise(-0.03, 0.03);
  const double old_speed = 90.0, new_speed = 30.0;
  for (int i = 0; i < 2 * o.window; ++i) s.add(0, old_speed * (1 + noise(rng)), 1.0);
  for (int i = 1; i < o.confirm; ++i) {
    s.add(0, new_speed * (1 + noise(rng)), 1.0);
    EXPECT_GT(rel(*s.speed(0), new_speed), 0.10) << "followed already after " << i << " samples";
    EXPECT_LT(rel(*s.speed(0), old_speed), 0.10) << "moved off the old speed after " << i << " samples";
  }
  s.add(0, new_speed * (1 + noise(rng)), 1.0);
  EXPECT_LT(rel(*s.speed(0), new_speed), 0.10) << "not followed after confirm samples";
  EXPECT_EQ(s.samples(0), o.confirm) << "the estimate restarts from the confirming samples";
  // And it stays there.
  for (int i = 0; i < 10; ++i) {
    s.add(0, new_speed * (1 + noise(rng)), 1.0);
    EXPECT_LT(rel(*s.speed(0), new_speed), 0.05);
  }
}

TEST(SpeedEstimator, StepChangeFollowedAfterConfirmSamplesNotBefore) {
  expect_step_followed_after_confirm({}, 1);
  expect_step_followed_after_confirm({7, 4, 0.25}, 2);
  expect_step_followed_after_confirm({5, 1, 0.25}, 3);
}

TEST(SpeedEstimator, StepChangeUpwardsFollowedToo) {
  SpeedEstimator s;
  for (int i = 0; i < 5; ++i) s.add(0, 30.0, 1.0);
  s.add(0, 90.0, 1.0);
  s.add(0, 90.0, 1.0);
  EXPECT_DOUBLE_EQ(*s.speed(0), 30.0);
  s.add(0, 90.0, 1.0);
  EXPECT_DOUBLE_EQ(*s.speed(0), 90.0);
}

TEST(SpeedEstimator, OffSamplesOnAlternatingSidesDoNotRestart) {
  SpeedEstimator s;
  for (int i = 0; i < 5; ++i) s.add(0, 100.0, 1.0);
  s.add(0, 50.0, 1.0);
  s.add(0, 50.0, 1.0);
  s.add(0, 200.0, 1.0);  // the other side: the two slow ones were not a lasting change
  EXPECT_LT(rel(*s.speed(0), 100.0), 0.10);
  EXPECT_EQ(s.samples(0), 8);
}

TEST(SpeedEstimator, SteadyNoiseStaysWithinFivePercent) {
  SpeedEstimator s;
  std::mt19937 rng(20240613);
  std::uniform_real_distribution<double> noise(-0.05, 0.05);
  const double truth[] = {40.0, 100.0, 7.5};
  for (int i = 0; i < 300; ++i)
    for (int r = 0; r < 3; ++r) {
      const double work = 10.0 + i % 7;
      s.add(r, work, work / (truth[r] * (1 + noise(rng))));
      ASSERT_LE(rel(*s.speed(r), truth[r]), 0.05) << "rank " << r << " iteration " << i;
    }
  EXPECT_EQ(s.samples(1), 300);  // noise never restarted the estimate
}

TEST(SpeedEstimator, PowersAreRelativeToTheFastestKnownAndUnknownGetTheMean) {
  SpeedEstimator s;
  s.add(0, 50.0, 1.0);
  s.add(1, 100.0, 1.0);
  s.add(2, 25.0, 1.0);
  s.add(5, 1000.0, 1.0);  // outside 0..n-1: not the reference
  const auto p = s.powers(4);
  ASSERT_EQ(p.size(), 4u);
  EXPECT_DOUBLE_EQ(p[0], 0.5);
  EXPECT_DOUBLE_EQ(p[1], 1.0);
  EXPECT_DOUBLE_EQ(p[2], 0.25);
  EXPECT_DOUBLE_EQ(p[3], (0.5 + 1.0 + 0.25) / 3);
  EXPECT_TRUE(s.powers(0).empty());
  const auto q = s.powers(7);
  EXPECT_DOUBLE_EQ(q[5], 1.0);
  EXPECT_DOUBLE_EQ(q[1], 0.1);
}

TEST(SpeedEstimator, PowersWithoutAnyEstimateAreAllOne) {
  SpeedEstimator s;
  EXPECT_EQ(s.powers(3), (std::vector<double>{1.0, 1.0, 1.0}));
  s.add(4, 10.0, 1.0);
  EXPECT_EQ(s.powers(3), (std::vector<double>{1.0, 1.0, 1.0}));
}

TEST(SpeedEstimator, RenumberCarriesHistoryAndForgetsTheRest) {
  SpeedEstimator s;
  s.add(0, 10.0, 1.0);
  s.add(1, 20.0, 1.0);
  s.add(2, 30.0, 1.0);
  s.add(2, 30.0, 1.0);
  s.renumber({2, -1, 0});
  EXPECT_DOUBLE_EQ(*s.speed(0), 30.0);
  EXPECT_EQ(s.samples(0), 2);
  EXPECT_FALSE(s.speed(1).has_value());
  EXPECT_DOUBLE_EQ(*s.speed(2), 10.0);
  EXPECT_FALSE(s.speed(3).has_value());
  // Old rank 1 (speed 20) is gone everywhere.
  for (int r = 0; r < 4; ++r) {
    if (auto v = s.speed(r)) {
      EXPECT_NE(*v, 20.0);
    }
  }
  // The carried history keeps its robustness: one outlier on new rank 0 does not move it.
  s.add(0, 30.0, 1.0);
  s.add(0, 6.0, 1.0);
  EXPECT_LT(rel(*s.speed(0), 30.0), 0.10);
}

TEST(SpeedEstimator, ForgetDropsOneRank) {
  SpeedEstimator s;
  s.add(0, 10.0, 1.0);
  s.add(1, 20.0, 1.0);
  s.forget(0);
  s.forget(9);  // unknown: nothing to do
  EXPECT_FALSE(s.speed(0).has_value());
  EXPECT_EQ(s.samples(0), 0);
  EXPECT_DOUBLE_EQ(*s.speed(1), 20.0);
  s.add(0, 70.0, 1.0);  // starts afresh
  EXPECT_DOUBLE_EQ(*s.speed(0), 70.0);
}

TEST(SpeedEstimator, InvalidArgumentsThrowNamingThem) {
  SpeedEstimator s;
  EXPECT_NE(error_of([&] { s.add(-1, 1.0, 1.0); }).find("rank = -1"), std::string::npos);
  EXPECT_NE(error_of([&] { (void)s.powers(-2); }).find("n = -2"), std::string::npos);
  EXPECT_NE(error_of([&] { s.renumber({0, -3}); }).find("old_of_new[1] = -3"), std::string::npos);
  EXPECT_NE(error_of([] { SpeedEstimator x({0, 1, 0.25}); }).find("window"), std::string::npos);
  EXPECT_NE(error_of([] { SpeedEstimator x({5, 0, 0.25}); }).find("confirm"), std::string::npos);
  EXPECT_NE(error_of([] { SpeedEstimator x({5, 3, 0.0}); }).find("jump"), std::string::npos);
  EXPECT_NE(error_of([] { SpeedEstimator x({5, 3, kNaN}); }).find("jump"), std::string::npos);
}

// ---------------------------------------------------------------------------------------
// ResizeHistory


TEST(ResizeHistory, EmptyHistoryPredictsNothing) {
  ResizeHistory h;
  EXPECT_FALSE(h.predict_spawn(Action::Expand, 4, 6).has_value());
  EXPECT_FALSE(h.predict_other(Action::Shrink, 6, 4).has_value());
}

TEST(ResizeHistory, LinearFitRecoversInterceptAndSlopeExactly) {
  // t = 0.7 + 0.35 k, k = processes added, from several starting sizes.
  ResizeHistory h;
  const int spans[][2] = {{4, 5}, {4, 6}, {2, 5}, {4, 8}, {6, 7}, {3, 9}};
  for (const auto& s : spans) h.add(resize_event(Action::Expand, s[0], s[1], 0.7 + 0.35 * (s[1] - s[0])));
  for (int k : {1, 2, 5, 10, 30})
    EXPECT_NEAR(*h.predict_spawn(Action::Expand, 4, 4 + k), 0.7 + 0.35 * k, 1e-12) << "k = " << k;
}

TEST(ResizeHistory, LinearFitIsLeastSquaresOnNoisyPoints) {
  // Points (1, 1), (2, 3), (3, 2): slope 0.5, intercept 1 (by hand); at k = 5: 3.5.
  ResizeHistory h;
  h.add(resize_event(Action::Shrink, 5, 4, 1.0));
  h.add(resize_event(Action::Shrink, 6, 4, 3.0));
  h.add(resize_event(Action::Shrink, 7, 4, 2.0));
  EXPECT_NEAR(*h.predict_spawn(Action::Shrink, 9, 4), 3.5, 1e-12);
  EXPECT_NEAR(*h.predict_spawn(Action::Shrink, 4, 9), 3.5, 1e-12);  // |to - from|
}

TEST(ResizeHistory, LinearFitPredictionIsClampedAtZero) {
  ResizeHistory h;
  h.add(resize_event(Action::Expand, 4, 5, 3.0));
  h.add(resize_event(Action::Expand, 4, 6, 2.0));
  h.add(resize_event(Action::Expand, 4, 7, 1.0));  // t = 4 - k
  EXPECT_NEAR(*h.predict_spawn(Action::Expand, 4, 8), 0.0, 1e-12);
  EXPECT_EQ(*h.predict_spawn(Action::Expand, 4, 12), 0.0);
}

// One or two samples cannot tell an outlier (a preempted resize): the fastest counts.
TEST(ResizeHistory, FewerThanThreeSamplesPredictTheFastest) {
  ResizeHistory h;
  h.add(resize_event(Action::Regrid, 4, 4, 0.0, 0.838));  // preempted
  EXPECT_DOUBLE_EQ(*h.predict_other(Action::Regrid, 4, 4), 0.838);
  h.add(resize_event(Action::Regrid, 4, 4, 0.0, 0.0006));
  EXPECT_DOUBLE_EQ(*h.predict_other(Action::Regrid, 4, 4), 0.0006);
  h.add(resize_event(Action::Expand, 4, 5, 0.3));
  h.add(resize_event(Action::Expand, 4, 9, 40.0));  // two counts, but no line through two points
  EXPECT_DOUBLE_EQ(*h.predict_spawn(Action::Expand, 4, 9), 0.3);
  h.add(resize_event(Action::Regrid, 4, 4, 0.0, 0.0008));
  EXPECT_DOUBLE_EQ(*h.predict_other(Action::Regrid, 4, 4), 0.0008);  // three: the median
}

TEST(ResizeHistory, SingleCountPredictsTheMedianUnscaled) {
  ResizeHistory h;
  h.add(resize_event(Action::Expand, 4, 6, 1.0));
  h.add(resize_event(Action::Expand, 2, 4, 5.0));
  h.add(resize_event(Action::Expand, 6, 8, 2.0));
  EXPECT_DOUBLE_EQ(*h.predict_spawn(Action::Expand, 4, 6), 2.0);   // median, not the mean 2.67
  EXPECT_DOUBLE_EQ(*h.predict_spawn(Action::Expand, 4, 14), 2.0);  // no slope from one count
  h.add(resize_event(Action::Expand, 8, 10, 3.0));
  EXPECT_DOUBLE_EQ(*h.predict_spawn(Action::Expand, 4, 6), 2.5);  // even count: middle pair
}

TEST(ResizeHistory, ActionsArePredictedSeparately) {
  ResizeHistory h;
  h.add(resize_event(Action::Expand, 4, 6, 3.0, 0.4));
  h.add(resize_event(Action::Expand, 4, 8, 5.0, 0.6));  // expand: t = 1 + k
  h.add(resize_event(Action::Expand, 4, 7, 4.0, 0.5));
  h.add(resize_event(Action::Shrink, 6, 4, 0.2, 0.1));
  h.add(resize_event(Action::Shrink, 8, 4, 0.2, 0.3));
  h.add(resize_event(Action::Shrink, 8, 4, 0.2, 0.2));
  h.add(resize_event(Action::None, 4, 9, 100.0, 100.0));  // ignored
  EXPECT_EQ(h.events().size(), 6u);
  EXPECT_NEAR(*h.predict_spawn(Action::Expand, 4, 9), 6.0, 1e-12);
  EXPECT_NEAR(*h.predict_spawn(Action::Shrink, 9, 4), 0.2, 1e-12);
  EXPECT_DOUBLE_EQ(*h.predict_other(Action::Expand, 4, 9), 0.5);
  EXPECT_DOUBLE_EQ(*h.predict_other(Action::Shrink, 9, 4), 0.2);
  EXPECT_FALSE(h.predict_spawn(Action::None, 4, 9).has_value());

  ResizeHistory only_expand;
  only_expand.add(resize_event(Action::Expand, 4, 6, 3.0));
  EXPECT_FALSE(only_expand.predict_spawn(Action::Shrink, 6, 4).has_value());
  EXPECT_FALSE(only_expand.predict_other(Action::Shrink, 6, 4).has_value());
}

TEST(ResizeHistory, AddIgnoresInvalidEvents) {
  ResizeHistory h;
  h.add(resize_event(Action::Expand, 0, 6, 1.0));
  h.add(resize_event(Action::Expand, 4, 0, 1.0));
  h.add(resize_event(Action::Expand, 4, 6, -1.0));
  h.add(resize_event(Action::Expand, 4, 6, kNaN));
  h.add(resize_event(Action::Expand, 4, 6, 1.0, kInf));
  auto e = resize_event(Action::Expand, 4, 6, 1.0);
  e.hosts = -1;
  h.add(e);
  EXPECT_TRUE(h.events().empty());
}

TEST(ResizeHistory, KeepsTheNewestMaxEvents) {
  ResizeHistory h;
  const int n = static_cast<int>(ResizeHistory::kMaxEvents) + 50;
  for (int i = 0; i < n; ++i) h.add(resize_event(Action::Expand, 4, 6, i));
  ASSERT_EQ(h.events().size(), ResizeHistory::kMaxEvents);
  EXPECT_EQ(h.events().front().t_spawn, 50.0);
  EXPECT_EQ(h.events().back().t_spawn, n - 1.0);
  // from_json trims the same way.
  const auto back = ResizeHistory::from_json(h.to_json());
  EXPECT_EQ(back.events().size(), ResizeHistory::kMaxEvents);
  auto j = nlohmann::json::parse(h.to_json());
  j["events"].push_back(j["events"][0]);
  const auto more = ResizeHistory::from_json(j.dump());
  ASSERT_EQ(more.events().size(), ResizeHistory::kMaxEvents);
  EXPECT_EQ(more.events().front().t_spawn, 51.0);
  EXPECT_EQ(more.events().back().t_spawn, 50.0);
}

// Two programs sharing one history file (RESIZE_HISTORY=<file>): each predicts
// from its own events only; the other's (and those of no known program, written before
// events named their program) are kept in the file, never used. Before, a Cholesky run
// predicted its spawn from a PDGEMM run's history.
TEST(ResizeHistory, ProgramsSharingAFileNeverPredictEachOther) {
  ResizeHistory gemm;
  gemm.set_program("pdgemm-0123456789abcdef");
  gemm.add(resize_event(Action::Expand, 4, 6, 9.0, 0.5));
  gemm.add(resize_event(Action::Shrink, 6, 4, 3.0, 0.5));
  ResizeEvent old = resize_event(Action::Expand, 4, 6, 7.0);  // no program: written by an older version
  auto j = nlohmann::json::parse(gemm.to_json());
  EXPECT_EQ(j["events"][0]["program"], "pdgemm-0123456789abcdef");
  ResizeHistory shared = ResizeHistory::from_json(j.dump());
  shared.add(old);
  // The Cholesky program opens the same file: nothing of its own yet, nothing predicted.
  shared.set_program(resize::resize_history_program("chol", "/home/u/chol"));
  EXPECT_EQ(shared.program(), "chol-" + resize::resize_history_file_name("chol", "/home/u/chol").substr(5, 16));
  EXPECT_TRUE(shared.events().empty());
  EXPECT_FALSE(shared.predict_spawn(Action::Expand, 4, 6).has_value());
  EXPECT_FALSE(shared.predict_other(Action::Shrink, 6, 4).has_value());
  shared.add(resize_event(Action::Expand, 4, 6, 1.5, 0.25));  // its own first spawn
  ASSERT_EQ(shared.events().size(), 1u);
  EXPECT_EQ(shared.events()[0].program, shared.program());
  EXPECT_EQ(shared.predict_spawn(Action::Expand, 4, 6), 1.5);
  EXPECT_EQ(shared.predict_other(Action::Expand, 4, 6), 0.25);
  // Saved: every program's events; read back by PDGEMM: its own two, unchanged predictions.
  auto back = ResizeHistory::from_json(shared.to_json());
  EXPECT_EQ(back.all_events().size(), 4u);
  back.set_program("pdgemm-0123456789abcdef");
  EXPECT_EQ(back.events().size(), 2u);
  EXPECT_EQ(back.predict_spawn(Action::Expand, 4, 6), 9.0);
  // One program's many events never push another's out.
  for (std::size_t i = 0; i < ResizeHistory::kMaxEvents + 10; ++i) back.add(resize_event(Action::Shrink, 6, 4, 1.0));
  back.set_program(shared.program());
  EXPECT_EQ(back.events().size(), 1u);
  EXPECT_EQ(back.predict_spawn(Action::Expand, 4, 6), 1.5);
  back.set_program("");  // no program: every event (the pure default)
  EXPECT_EQ(back.events().size(), ResizeHistory::kMaxEvents + 2);
}

ResizeHistory sample_history() {
  ResizeHistory h;
  ResizeEvent a = resize_event(Action::Expand, 4, 9, 1.25, 0.125, 0.5);
  a.hosts = 2;
  a.bytes_moved = 123456789.0;
  ResizeEvent b = resize_event(Action::Shrink, 9, 4, 0.0625, 0.03125, 0.1);
  b.hosts = 1;
  h.add(a);
  h.add(b);
  h.add(resize_event(Action::Expand, 4, 6, 0.3, 0.0, 0.0));
  return h;
}

void expect_same(const ResizeHistory& x, const ResizeHistory& y) {
  ASSERT_EQ(x.events().size(), y.events().size());
  for (std::size_t i = 0; i < x.events().size(); ++i) {
    const auto &a = x.events()[i], &b = y.events()[i];
    EXPECT_EQ(a.action, b.action) << i;
    EXPECT_EQ(a.from_procs, b.from_procs) << i;
    EXPECT_EQ(a.to_procs, b.to_procs) << i;
    EXPECT_EQ(a.hosts, b.hosts) << i;
    EXPECT_EQ(a.t_spawn, b.t_spawn) << i;
    EXPECT_EQ(a.t_redist, b.t_redist) << i;
    EXPECT_EQ(a.t_other, b.t_other) << i;
    EXPECT_EQ(a.bytes_moved, b.bytes_moved) << i;
  }
}

TEST(ResizeHistory, JsonRoundTripKeepsEveryField) {
  const auto h = sample_history();
  const std::string text = h.to_json();
  const auto j = nlohmann::json::parse(text);
  EXPECT_EQ(j["format"], "malleable.resize_history");
  EXPECT_EQ(j["version"], 1);
  ASSERT_EQ(j["events"].size(), 3u);
  EXPECT_EQ(j["events"][0]["action"], "expand");
  EXPECT_EQ(j["events"][1]["action"], "shrink");
  EXPECT_EQ(j["events"][0]["hosts"], 2);
  expect_same(ResizeHistory::from_json(text), h);
  expect_same(ResizeHistory::from_json(ResizeHistory().to_json()), ResizeHistory());
}

TEST(ResizeHistory, OptionalFieldsMayBeLeftOut) {
  const auto h = ResizeHistory::from_json(
      R"({"format":"malleable.resize_history","version":1,"events":[)"
      R"({"action":"shrink","from_procs":6,"to_procs":4,"t_spawn":0.5,"t_redist":0,"t_other":0.25}]})");
  ASSERT_EQ(h.events().size(), 1u);
  EXPECT_EQ(h.events()[0].hosts, 0);
  EXPECT_EQ(h.events()[0].bytes_moved, 0.0);
  EXPECT_EQ(h.events()[0].action, Action::Shrink);
}

// Each malformed text throws Error naming the source and the field at fault.
TEST(ResizeHistory, MalformedJsonErrorsNameSourceAndField) {
  const std::string head = R"({"format":"malleable.resize_history","version":1,"events":[)";
  const std::string good = R"({"action":"expand","from_procs":4,"to_procs":6,"t_spawn":1,"t_redist":0.5,"t_other":0.1})";
  auto with = [&](const std::string& key, const std::string& value) {
    auto j = nlohmann::json::parse(good);
    if (value.empty())
      j.erase(key);
    else
      j[key] = nlohmann::json::parse(value);
    return head + good + "," + j.dump() + "]}";
  };
  struct Case {
    std::string text, expect;
  };
  const Case cases[] = {
      {"{not json", "not valid JSON"},
      {"[1,2]", "expected a JSON object"},
      {R"({"version":1,"events":[]})", "\"format\""},
      {R"({"format":"malleable.cost_model","version":1,"events":[]})", "\"format\""},
      {R"({"format":"malleable.resize_history","events":[]})", "\"version\""},
      {R"({"format":"malleable.resize_history","version":2,"events":[]})", "\"version\" must be 1"},
      {R"({"format":"malleable.resize_history","version":1})", "\"events\""},
      {R"({"format":"malleable.resize_history","version":1,"events":{}})", "\"events\" must be an array"},
      {head + good + ",3]}", "events[1] must be an object"},
      {with("action", R"("grow")"), "events[1].action"},
      {with("action", "1"), "events[1].action"},
      {with("action", ""), "events[1].action is missing"},
      {with("from_procs", "0"), "events[1].from_procs = 0"},
      {with("to_procs", "1.5"), "events[1].to_procs"},
      {with("to_procs", ""), "events[1].to_procs is missing"},
      {with("hosts", "-1"), "events[1].hosts"},
      {with("t_spawn", "-1"), "events[1].t_spawn = -1"},
      {head + R"({"action":"expand","from_procs":4,"to_procs":6,"t_spawn":1e999,"t_redist":0,"t_other":0}]})",
       "not valid JSON"},  // a number out of double range
      {with("t_redist", R"("x")"), "events[1].t_redist"},
      {with("t_other", ""), "events[1].t_other is missing"},
      {with("t_other", "null"), "events[1].t_other"},
      {with("bytes_moved", "-5"), "events[1].bytes_moved"},
  };
  for (const auto& c : cases) {
    const std::string msg = error_of([&] { (void)ResizeHistory::from_json(c.text, "history.json"); });
    EXPECT_NE(msg.find("history.json"), std::string::npos) << c.text << " -> " << msg;
    EXPECT_NE(msg.find(c.expect), std::string::npos) << c.text << " -> " << msg;
  }
}

struct TempDir {
  std::filesystem::path path;
  TempDir() {
    path = std::filesystem::temp_directory_path() /
           ("resize_predict_test_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(path);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
};

TEST(ResizeHistory, SaveCreatesDirectoriesAndLoadReadsItBack) {
  TempDir dir;
  const auto file = dir.path / "a" / "b" / "resize_history.json";
  const auto h = sample_history();
  h.save(file.string());
  ASSERT_TRUE(std::filesystem::exists(file));
  expect_same(ResizeHistory::load(file.string()), h);
  // Overwrite in place; nothing but the file is left in its directory (no temporaries).
  ResizeHistory h2 = h;
  h2.add(resize_event(Action::Shrink, 6, 4, 0.25));
  h2.save(file.string());
  expect_same(ResizeHistory::load(file.string()), h2);
  int entries = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(file.parent_path())) ++entries;
  EXPECT_EQ(entries, 1);
}

TEST(ResizeHistory, LoadErrorsNameThePath) {
  TempDir dir;
  const auto missing = (dir.path / "missing.json").string();
  EXPECT_NE(error_of([&] { (void)ResizeHistory::load(missing); }).find(missing), std::string::npos);
  std::filesystem::create_directories(dir.path);
  const auto bad = (dir.path / "bad.json").string();
  std::ofstream(bad) << R"({"format":"malleable.resize_history","version":1,"events":[{"action":"expand"}]})";
  const std::string msg = error_of([&] { (void)ResizeHistory::load(bad); });
  EXPECT_NE(msg.find(bad), std::string::npos) << msg;
  EXPECT_NE(msg.find("events[0].from_procs"), std::string::npos) << msg;
}

// Sets environment variables for the scope of one test and puts the old values back.
class ScopedEnv {
 public:
  void set(const char* name, const char* value) {
    if (!saved_.count(name)) {
      const char* old = std::getenv(name);
      saved_[name] = old ? std::optional<std::string>(old) : std::nullopt;
    }
    if (value)
      ::setenv(name, value, 1);
    else
      ::unsetenv(name);
  }
  ~ScopedEnv() {
    for (const auto& [name, value] : saved_)
      if (value)
        ::setenv(name.c_str(), value->c_str(), 1);
      else
        ::unsetenv(name.c_str());
  }

 private:
  std::map<std::string, std::optional<std::string>> saved_;
};

// one history per application under the user's cache directory; the user
// can turn it off or point it elsewhere; no usable home keeps it in memory.
TEST(ResizeHistory, LocationIsPerApplicationUnderTheCacheDirectory) {
  TempDir dir;
  std::filesystem::create_directories(dir.path / "home");
  const std::string home = (dir.path / "home").string();
  ScopedEnv env;
  env.set("RESIZE_HISTORY", nullptr);
  env.set("XDG_CACHE_HOME", "/cache");
  env.set("HOME", home.c_str());
  const auto jacobi = resize::resize_history_location("jacobi", "/opt/bin/jacobi");
  EXPECT_EQ(jacobi.path, "/cache/malleable/history/" + resize::resize_history_file_name("jacobi", "/opt/bin/jacobi"));
  EXPECT_FALSE(jacobi.off);
  // Another program, or the same name built elsewhere, gets a file of its own.
  EXPECT_NE(resize::resize_history_location("lu", "/opt/bin/lu").path, jacobi.path);
  EXPECT_NE(resize::resize_history_location("jacobi", "/home/u/jacobi").path, jacobi.path);
  // A relative XDG_CACHE_HOME is ignored (XDG base directory rules): $HOME/.cache.
  env.set("XDG_CACHE_HOME", "relative");
  EXPECT_EQ(resize::resize_history_location("jacobi", "/opt/bin/jacobi").path,
            home + "/.cache/malleable/history/" + resize::resize_history_file_name("jacobi", "/opt/bin/jacobi"));
  env.set("XDG_CACHE_HOME", nullptr);
  EXPECT_EQ(resize::resize_history_location("jacobi", "/opt/bin/jacobi").path.rfind(home + "/.cache/", 0), 0u);
}

TEST(ResizeHistory, FileNameIsStableAndSafe) {
  const auto a = resize::resize_history_file_name("my app/v2", "/x/y");
  EXPECT_EQ(a, resize::resize_history_file_name("my app/v2", "/x/y"));
  EXPECT_EQ(a.rfind("my_app_v2-", 0), 0u) << a;
  EXPECT_EQ(a.size(), std::string("my_app_v2-").size() + 16 + 5) << a;
  EXPECT_EQ(a.substr(a.size() - 5), ".json");
  // FNV-1a of the empty string is its offset basis.
  EXPECT_EQ(resize::resize_history_file_name("", ""), "app-cbf29ce484222325.json");
}

TEST(ResizeHistory, LocationOffOrElsewhereByEnvironment) {
  ScopedEnv env;
  env.set("XDG_CACHE_HOME", "/cache");
  env.set("RESIZE_HISTORY", "/tmp/x/my_history.json");
  EXPECT_EQ(resize::resize_history_location("a", "/a").path, "/tmp/x/my_history.json");
  for (const char* off : {"off", ""}) {
    env.set("RESIZE_HISTORY", off);
    const auto l = resize::resize_history_location("a", "/a");
    EXPECT_TRUE(l.path.empty());
    EXPECT_TRUE(l.off);
  }
}

TEST(ResizeHistory, NoUsableHomeKeepsItInMemory) {
  ScopedEnv env;
  env.set("RESIZE_HISTORY", nullptr);
  env.set("XDG_CACHE_HOME", nullptr);
  env.set("HOME", "/nonexistent/malleable-test-home");
  auto l = resize::resize_history_location("a", "/a");
  EXPECT_TRUE(l.path.empty());
  EXPECT_FALSE(l.off);  // not the user's choice: the session says so
  EXPECT_NE(l.why.find("/nonexistent/malleable-test-home"), std::string::npos) << l.why;
  env.set("HOME", nullptr);
  l = resize::resize_history_location("a", "/a");
  EXPECT_TRUE(l.path.empty());
  EXPECT_FALSE(l.why.empty());
}

TEST(ResizeHistory, SaveToTheLocationFromTheEnvironment) {
  TempDir dir;
  ScopedEnv env;
  const auto file = (dir.path / "cache" / "h.json").string();
  env.set("RESIZE_HISTORY", file.c_str());
  sample_history().save(resize::resize_history_location("a", "/a").path);
  expect_same(ResizeHistory::load(file), sample_history());
}

// ---------------------------------------------------------------------------------------
// compute_time

TEST(PredictComputeTime, SlowestProcessSkippingIdleOnes) {
  EXPECT_DOUBLE_EQ(resize::compute_time({4, 0, 6, 1}, {2, 0, 2, 4}), 3.0);
  EXPECT_DOUBLE_EQ(resize::compute_time({10, 10}, {1, 5}), 10.0);
  EXPECT_EQ(resize::compute_time({}, {}), 0.0);
  EXPECT_EQ(resize::compute_time({0, 0}, {0, -1}), 0.0);
}

TEST(PredictComputeTime, InvalidInputsThrow) {
  EXPECT_NE(error_of([] { (void)resize::compute_time({1, 2}, {1}); }).find("2 work entries but 1 speeds"),
            std::string::npos);
  EXPECT_NE(error_of([] { (void)resize::compute_time({1, 2}, {1, 0}); }).find("speed[1]"), std::string::npos);
  EXPECT_NE(error_of([] { (void)resize::compute_time({1}, {-3}); }).find("speed[0]"), std::string::npos);
  EXPECT_NE(error_of([] { (void)resize::compute_time({1}, {kNaN}); }).find("speed[0]"), std::string::npos);
  EXPECT_NE(error_of([] { (void)resize::compute_time({-1}, {1}); }).find("work[0]"), std::string::npos);
  EXPECT_NE(error_of([] { (void)resize::compute_time({kInf}, {1}); }).find("work[0]"), std::string::npos);
}

// ---------------------------------------------------------------------------------------
// predict_payoff

TEST(PayoffPrediction, NumbersComputedByHand) {
  // resize 0.5 + 0.25 + 0.25 = 1 s; saving 0.5 - 0.25 = 0.25 s per iteration:
  // payoff ceil(1 / 0.25) = 4; gain over 40 iterations 10 s > 1 s.
  const PayoffPrediction p = resize::predict_payoff(0.5, 0.25, 0.5, 0.25, 0.25, 40);
  EXPECT_EQ(p.t_spawn, 0.5);
  EXPECT_EQ(p.t_redist, 0.25);
  EXPECT_EQ(p.t_other, 0.25);
  EXPECT_EQ(p.t_resize, 1.0);
  EXPECT_EQ(p.t_iter_now, 0.5);
  EXPECT_EQ(p.t_iter_new, 0.25);
  EXPECT_EQ(p.remaining, 40);
  ASSERT_TRUE(p.payoff.has_value());
  EXPECT_EQ(*p.payoff, 4);
  EXPECT_EQ(p.gain, 10.0);
  EXPECT_TRUE(p.pays);
  EXPECT_EQ(p.why,
            "predicted: resize 1.00 s (spawn 0.50 + redist 0.25 + other 0.25), iteration 0.50 -> 0.25 s, "
            "payoff after 4 of 40 iterations left: gain 10.00 s > cost 1.00 s");

  // A fractional payoff rounds up: 1.25 / 0.5 = 2.5 -> 3.
  const auto q = resize::predict_payoff(1.0, 0.5, 1.0, 0.125, 0.125, 2);
  EXPECT_EQ(*q.payoff, 3);
  EXPECT_EQ(q.gain, 1.0);
  EXPECT_FALSE(q.pays);
  EXPECT_NE(q.why.find("payoff after 3 of 2 iterations left: gain 1.00 s <= cost 1.25 s"), std::string::npos)
      << q.why;

  // A free resize pays at once.
  const auto z = resize::predict_payoff(1.0, 0.5, 0, 0, 0, 1);
  EXPECT_EQ(*z.payoff, 0);
  EXPECT_TRUE(z.pays);
}

TEST(PayoffPrediction, Seed004RuleGainJustAboveOrBelowCost) {
  // Saving 0.5 s over 10 iterations: gain 5 s.
  const auto above = resize::predict_payoff(1.0, 0.5, 4.0, 0.5, 0.49, 10);  // cost 4.99
  EXPECT_DOUBLE_EQ(above.gain, 5.0);
  EXPECT_TRUE(above.pays) << above.why;
  EXPECT_EQ(*above.payoff, 10);
  const auto below = resize::predict_payoff(1.0, 0.5, 4.0, 0.5, 0.51, 10);  // cost 5.01
  EXPECT_FALSE(below.pays) << below.why;
  EXPECT_EQ(*below.payoff, 11);  // it would pay, but after more iterations than are left
  const auto equal = resize::predict_payoff(1.0, 0.5, 4.0, 0.5, 0.5, 10);  // cost 5: not strictly more
  EXPECT_FALSE(equal.pays) << equal.why;
}

TEST(PayoffPrediction, UnknownRemainingPaysWhenAPayoffExists) {
  for (int remaining : {0, -1}) {
    const auto p = resize::predict_payoff(1.0, 0.75, 2.0, 0.5, 0.5, remaining);  // 3 / 0.25 = 12
    EXPECT_EQ(*p.payoff, 12);
    EXPECT_EQ(p.gain, 0.0);
    EXPECT_TRUE(p.pays);
    EXPECT_EQ(p.remaining, remaining);
    EXPECT_NE(p.why.find("payoff after 12 iterations (iterations left unknown): pays"), std::string::npos)
        << p.why;
    const auto slower = resize::predict_payoff(0.75, 1.0, 2.0, 0.5, 0.5, remaining);
    EXPECT_FALSE(slower.payoff.has_value());
    EXPECT_FALSE(slower.pays);
    EXPECT_NE(slower.why.find("never pays"), std::string::npos) << slower.why;
  }
}

TEST(PayoffPrediction, NeverPaysWhenTheNewIterationIsNotFaster) {
  const auto same = resize::predict_payoff(0.5, 0.5, 0.0, 0.0, 0.0, 1000);
  EXPECT_FALSE(same.payoff.has_value());
  EXPECT_FALSE(same.pays);  // gain 0 is not > cost 0
  EXPECT_EQ(same.gain, 0.0);
  const auto slower = resize::predict_payoff(0.5, 0.75, 1.0, 0.0, 0.0, 100);
  EXPECT_FALSE(slower.payoff.has_value());
  EXPECT_FALSE(slower.pays);
  EXPECT_EQ(slower.gain, -25.0);
  EXPECT_NE(slower.why.find("never pays"), std::string::npos) << slower.why;
  EXPECT_NE(slower.why.find("gain -25.00 s <= cost 1.00 s"), std::string::npos) << slower.why;
  // A vanishing saving: no payoff that fits in 64 bits.
  const auto tiny = resize::predict_payoff(1.0, 1.0 - 1e-16, 1e6, 0.0, 0.0, 0);
  EXPECT_FALSE(tiny.payoff.has_value());
  EXPECT_FALSE(tiny.pays);
}

TEST(PayoffPrediction, InvalidInputsThrowNamingTheArgument) {
  const char* names[] = {"t_iter_now", "t_iter_new", "t_spawn", "t_redist", "t_other"};
  for (int which = 0; which < 5; ++which)
    for (double bad : {-1.0, kNaN, kInf}) {
      double v[5] = {1.0, 0.5, 0.1, 0.1, 0.1};
      v[which] = bad;
      const std::string msg = error_of([&] { (void)resize::predict_payoff(v[0], v[1], v[2], v[3], v[4], 10); });
      EXPECT_NE(msg.find(std::string(names[which]) + " = "), std::string::npos) << msg;
    }
}

}  // namespace

// Without calibration, redistribution time from the bytes earlier resizes moved (any action).
TEST(ResizeHistory, PredictsRedistributionFromBytesOnTheLineThroughEarlierResizes) {
  ResizeHistory h;
  EXPECT_FALSE(h.predict_redist(1e6).has_value());
  ResizeEvent a = resize_event(Action::Expand, 4, 9, 1.0, 0.0, 0.002);
  a.bytes_moved = 1e6;
  h.add(a);
  EXPECT_DOUBLE_EQ(*h.predict_redist(5e6), 0.002);  // one size: its time, no slope
  ResizeEvent b = resize_event(Action::Regrid, 4, 4, 0.0, 0.0, 0.003);
  b.bytes_moved = 2e6;
  h.add(b);
  EXPECT_DOUBLE_EQ(*h.predict_redist(5e6), 0.002);  // two: the fastest, no line yet
  ResizeEvent c = resize_event(Action::Shrink, 9, 4, 0.1, 0.0, 0.005);
  c.bytes_moved = 4e6;
  h.add(c);
  ResizeEvent none = resize_event(Action::Shrink, 9, 4, 0.1, 0.0, 5.0);  // moved nothing: not a sample
  h.add(none);
  EXPECT_NEAR(*h.predict_redist(3e6), 0.004, 1e-12);  // 0.001 s + 1 ns per byte
  EXPECT_DOUBLE_EQ(*h.predict_redist(0), 0.001);
}
