// SPDX-License-Identifier: BSD-3-Clause
// The run's JSON and summary of one resize record with every field set: pins the keys and
// values ResizeRecord is rendered with, so a change of the record's C++ layout cannot
// change what a reader of the JSON or the summary sees.
#include <gtest/gtest.h>

#include "malleable/resize/metrics.hpp"
#include "malleable/resize/report.hpp"

#include "core_test_util.hpp"

#include <nlohmann/json.hpp>

#include <string>

using namespace resize;

namespace {
// A background expansion 2x2 -> 3x3 after iteration 3 with every field of its record set
// to a value of its own (blocking resizes render the same keys with "background": null).
ResizeRecord filled_record() {
  ResizeRecord r = resize_test::resize_record(3, Action::Expand, "2x2", "3x3");
  r.from_procs = 4;
  r.to_procs = 9;
  r.placement = Placement::Local2;
  r.mechanism = "join";
  r.ok = true;
  r.message = "note";
  r.t_spawn = 0.5;
  r.t_redist = 0.25;
  r.t_other = 0.125;
  r.t_total = 0.875;
  r.predicted.t_redist = 0.375;
  r.predicted.redist_by = PredictedBy::CostModel;
  r.predicted.t_spawn = 0.625;
  r.predicted.t_other = 0.0625;
  r.predicted.t_iteration_before = 2.0;
  r.predicted.t_iteration_after = 1.0;
  r.predicted.t_resize_policy = 1.5;
  r.predicted.clock = Clock::Dedicated;
  r.predicted.reasoning = "because";
  r.bytes_moved = 1000;
  r.move.bytes_total = 4000;
  r.move.bytes_intra_node = 600;
  r.move.bytes_inter_node = 400;
  r.move.batches = 2;
  r.move.peak_bytes = 3000;
  r.move.phases = {0.5, 0.25, 2.0, 0.125, 0.0625, 0.75, 1.5, 0.375};
  r.other = {0.015625, 0.046875, 0.0078125, 0.03125, 0.0234375, 0.0009765625};
  r.hosts = {{"n1", 5}};
  r.rank_hosts = RankHosts::of({"n0", "n0", "n0", "n0", "n1", "n1", "n1", "n1", "n1"});
  BackgroundPhase& b = r.background.emplace();
  b.mode = Background::Continue;
  b.progress = BackgroundProgress::HelperThread;
  b.cancelled = false;
  b.began_after = 2;
  b.t_begin = 0.0625;
  b.t_complete = 0.8125;
  b.t_wait = 0.03125;
  b.t_overlapped = 1.25;
  b.iterations_overlapped = 1;
  b.completion_deferred = 0;
  b.iteration_slowdown = 1.5;
  b.bytes = 250;
  return r;
}

Metrics run_with(const ResizeRecord& r) {
  Metrics m;
  const double wall[] = {3.0, 2.0, 2.0, 1.5, 1.0, 1.0};
  for (int i = 1; i <= 6; ++i) {
    const bool after = i > 3;
    m.add_iteration({i, after ? 9 : 4, after ? "3x3" : "2x2", wall[i - 1], wall[i - 1] / 2, wall[i - 1] / 4});
  }
  m.add_resize(r);
  return m;
}
}  // namespace

TEST(ResizeRecordJson, EveryFieldKeepsItsKeyAndValue) {
  RunInfo info;
  info.app = "test";
  const auto j = nlohmann::json::parse(to_json(run_with(filled_record()), info));
  ASSERT_EQ(j.at("resizes").size(), 1u);
  const auto expected = nlohmann::json::parse(R"({
    "after_iteration": 3, "action": "expand",
    "from": {"rows": 2, "cols": 2}, "to": {"rows": 3, "cols": 3},
    "placement": "local2", "ok": true, "message": "note", "mechanism": "join",
    "t_spawn_s": 0.5, "t_redist_s": 0.25, "t_other_s": 0.125, "t_total_s": 0.875,
    "bytes_moved": 1000, "bytes_total": 4000,
    "t_redist_predicted_s": 0.375, "bytes_intra_node": 600, "bytes_inter_node": 400,
    "move_batches": 2, "move_peak_bytes": 3000,
    "move_phases": {"stage_s": 0.5, "plan_s": 0.25, "exchange_s": 2.0, "pack_s": 0.125, "unpack_s": 0.0625,
                    "local_copy_s": 0.75, "commit_s": 1.5, "prefault_s": 0.375},
    "other_phases": {"decision_s": 0.015625, "handover_s": 0.046875, "hosts_s": 0.0078125, "grids_s": 0.03125,
                     "release_s": 0.0234375, "heap_trim_s": 0.0009765625},
    "hosts": [{"host": "n1", "count": 5}],
    "rank_hosts": ["n0", "n0", "n0", "n0", "n1", "n1", "n1", "n1", "n1"],
    "rank_host_runs": [{"host": "n0", "ranks": 4}, {"host": "n1", "ranks": 5}],
    "payoff_wall": 1, "payoff_dedicated": 2, "resize_cost_wall": 1, "resize_cost_dedicated": 2,
    "payoff_compute": 4, "resize_cost_compute": 4,
    "predicted": {"t_spawn_s": 0.625, "t_redist_s": 0.375, "t_redist_by": "cost model",
                  "t_other_s": 0.0625, "t_total_s": 1.0625, "t_iteration_before_s": 2.0,
                  "t_iteration_after_s": 1.0, "clock": "dedicated", "policy_t_resize_s": 1.5,
                  "reasoning": "because", "payoff": 2},
    "measured": {"t_spawn_s": 0.5, "t_redist_s": 0.25, "t_other_s": 0.125, "t_total_s": 0.875,
                 "clock": "dedicated", "t_iteration_before_s": 1.0, "t_iteration_after_s": 0.5,
                 "payoff": 2},
    "background": {"mode": "continue", "progress": "helper thread", "cancelled": false,
                   "began_after_iteration": 2, "t_stopped_s": 0.875, "t_stopped_begin_s": 0.0625,
                   "t_stopped_complete_s": 0.8125, "t_waited_s": 0.03125, "t_overlapped_s": 1.25,
                   "iterations_overlapped": 1, "completion_deferred": 0, "iteration_slowdown": 1.5,
                   "bytes_background": 250}
  })");
  const auto& got = j.at("resizes").at(0);
  // Key by key first, so a failure names the key that changed.
  for (const auto& [key, value] : expected.items()) {
    ASSERT_TRUE(got.contains(key)) << key;
    EXPECT_EQ(got.at(key), value) << key;
  }
  EXPECT_EQ(got.size(), expected.size());
}

TEST(ResizeRecordJson, UnknownPredictionsAndABlockingResizeAreNull) {
  const ResizeRecord r = resize_test::resize_record(3, Action::Shrink, "3x3", "2x2");
  const auto j = nlohmann::json::parse(to_json(run_with(r), RunInfo{}));
  const auto& got = j.at("resizes").at(0);
  EXPECT_TRUE(got.at("background").is_null());
  EXPECT_TRUE(got.at("t_redist_predicted_s").is_null());
  for (const char* key : {"t_spawn_s", "t_redist_s", "t_other_s", "t_total_s", "t_iteration_before_s",
                          "t_iteration_after_s", "policy_t_resize_s", "payoff"})
    EXPECT_TRUE(got.at("predicted").at(key).is_null()) << key;
  EXPECT_EQ(got.at("predicted").at("clock"), "wall");
  EXPECT_EQ(got.at("predicted").at("t_redist_by"), "");
  // No heap trim (RESIZE_HEAP_TRIM=off, or no glibc): null, not a time.
  EXPECT_TRUE(got.at("other_phases").at("heap_trim_s").is_null());
}

TEST(ResizeRecordJson, SummaryShowsTheRecordsBackgroundAndNodes) {
  RunInfo info;
  info.app = "test";
  const std::string s = summary_table(run_with(filled_record()), info);
  // The lines the record's fields feed, as the summary prints them (the rest of the
  // summary depends on the host).
  for (const char* line : {
           "       3  2x2->3x3        local2     join      500.00*    250.00    125.00    875.00      0.00\n",
           "          nodes: n0 0-3 | n1 4-8; moved 0.00 MiB within nodes, 0.00 MiB between nodes\n",
           "          background (continue, helper thread): begun after 2, stopped 875.00 ms (begin 62.50 + complete "
           "812.50, waited 31.25), overlapped 1250.00 ms over 1 iteration(s), slowdown 1.50x, 0.00 MiB in the "
           "background\n",
           "   2x2->3x3        875.00 |     2000.00 1000.00       1     1 |    1000.00  500.00       2     2 |         "
           "500.00  250.00       4     4\n",
           "   2x2->3x3       625.00/500.00 375.00/250.00  62.50/125.00 1062.50/875.00 | 1000.00/500.00 (dedicated)\n"})
    EXPECT_NE(s.find(line), std::string::npos) << line << "\n" << s;
}
