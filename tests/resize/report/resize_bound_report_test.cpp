// SPDX-License-Identifier: BSD-3-Clause
// A resize's "bound" in the run's JSON (its copy/shared-memory bound): present only where the report is given
// rates, its bytes, rate and fraction computed from the record by hand, the start beside
// a bare one; and the rates read from the environment.
#include <gtest/gtest.h>

#include <cstdlib>

#include "malleable/resize/metrics.hpp"
#include "malleable/resize/report.hpp"

#include "core_test_util.hpp"

#include <nlohmann/json.hpp>

using namespace resize;

namespace {
Metrics one_resize(const std::string& mechanism) {
  ResizeRecord r = resize_test::resize_record(1, Action::Expand, "1x2", "2x2");
  r.from_procs = 2;
  r.to_procs = 4;
  r.mechanism = mechanism;
  r.t_spawn = 0.6;
  r.t_redist = 0.5;
  r.bytes_moved = 1'000'000'000;
  r.move.bytes_total = 3'000'000'000;
  Metrics m;
  m.add_iteration({1, 2, "1x2", 1.0, 1.0, 1.0});
  m.add_resize(r);
  m.add_iteration({2, 4, "2x2", 0.5, 0.5, 0.5});
  return m;
}
}  // namespace

TEST(ResizeBoundReport, AbsentWithoutRates) {
  const auto j = nlohmann::json::parse(to_json(one_resize("spawn"), RunInfo{}));
  EXPECT_FALSE(j.at("resizes").at(0).contains("bound"));
}

TEST(ResizeBoundReport, BytesRateAndFractionFromTheRecord) {
  RunInfo info;
  info.bounds = ResizeBounds{2e9, 1e9, "test", 0.5, 0.4};
  const auto j = nlohmann::json::parse(to_json(one_resize("spawn"), info));
  const auto& b = j.at("resizes").at(0).at("bound");
  EXPECT_DOUBLE_EQ(b.at("bytes_kept").get<double>(), 2e9);
  EXPECT_DOUBLE_EQ(b.at("bytes_moved").get<double>(), 1e9);
  EXPECT_EQ(b.at("ranks"), 4);
  EXPECT_DOUBLE_EQ(b.at("redist_GBps").get<double>(), 6.0);  // 3 GB in 0.5 s
  // Mean rank: (2e9 / 2e9 + 1e9 / 1e9) / 4 = 0.5 s, the measured 0.5 s: at the bound.
  EXPECT_DOUBLE_EQ(b.at("bound_s").get<double>(), 0.5);
  EXPECT_DOUBLE_EQ(b.at("fraction_of_bound").get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(b.at("t_start_s").get<double>(), 0.6);
  EXPECT_DOUBLE_EQ(b.at("bare_start_s").get<double>(), 0.5);  // a spawn: the bare spawn
  EXPECT_DOUBLE_EQ(b.at("start_over_bare").get<double>(), 1.2);
  EXPECT_EQ(b.at("rates_from"), "test");
}

TEST(ResizeBoundReport, RanksBeyondTheCoresTakeTurns) {
  RunInfo info;
  info.bounds = ResizeBounds{2e9, 1e9, "test", -1, -1, 2};  // 2 cores, one node, 4 ranks
  const auto b = nlohmann::json::parse(to_json(one_resize("spawn"), info)).at("resizes").at(0).at("bound");
  EXPECT_EQ(b.at("ranks_at_work"), 2);
  EXPECT_DOUBLE_EQ(b.at("bound_s").get<double>(), 1.0);  // (1 s + 1 s) / 2 ranks at work
  EXPECT_DOUBLE_EQ(b.at("fraction_of_bound").get<double>(), 2.0);  // bound / measured: the model says 1 s, 0.5 s measured
}

TEST(ResizeBoundReport, JoinUsesTheBareJoinAndUnknownsAreNull) {
  RunInfo info;
  info.bounds = ResizeBounds{0, 0, "none", -1, 0.3};
  const auto j = nlohmann::json::parse(to_json(one_resize("join"), info));
  const auto& b = j.at("resizes").at(0).at("bound");
  EXPECT_TRUE(b.at("bound_s").is_null());
  EXPECT_TRUE(b.at("fraction_of_bound").is_null());
  EXPECT_DOUBLE_EQ(b.at("bare_start_s").get<double>(), 0.3);
  EXPECT_DOUBLE_EQ(b.at("start_over_bare").get<double>(), 2.0);
  const auto r = nlohmann::json::parse(to_json(one_resize(""), info)).at("resizes").at(0).at("bound");
  EXPECT_TRUE(r.at("t_start_s").is_null());  // a regrid starts no process
  EXPECT_TRUE(r.at("start_over_bare").is_null());
}

TEST(ResizeBoundReport, RatesFromTheEnvironment) {
  ::setenv("MALLEABLE_BOUND_COPY_BPS", "4e9", 1);
  ::setenv("MALLEABLE_BOUND_SHM_BPS", "2e9", 1);
  ::setenv("MALLEABLE_BARE_SPAWN_S", "0.25", 1);
  auto b = resize_bounds(one_resize("spawn"));
  ASSERT_TRUE(b.has_value());
  EXPECT_DOUBLE_EQ(b->copy_Bps, 4e9);
  EXPECT_DOUBLE_EQ(b->shm_Bps, 2e9);
  EXPECT_DOUBLE_EQ(b->bare_spawn_s, 0.25);
  EXPECT_LT(b->bare_join_s, 0);
  ::setenv("MALLEABLE_BOUND", "off", 1);
  EXPECT_FALSE(resize_bounds(one_resize("spawn")).has_value());
  for (const char* v : {"MALLEABLE_BOUND", "MALLEABLE_BOUND_COPY_BPS", "MALLEABLE_BOUND_SHM_BPS", "MALLEABLE_BARE_SPAWN_S"})
    ::unsetenv(v);
  EXPECT_FALSE(resize_bounds(Metrics{}).has_value());  // no resize: nothing to set against
}
