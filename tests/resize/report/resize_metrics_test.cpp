// SPDX-License-Identifier: BSD-3-Clause
#include <gtest/gtest.h>

#include "malleable/resize/metrics.hpp"
#include "malleable/resize/report.hpp"

#include "core_test_util.hpp"

#include <nlohmann/json.hpp>

using namespace resize;

TEST(PayoffPoint, IsCeilOfResizeTimeOverGainPerIteration) {
  // DRMS (Moreira & Naik 1997) Table 8, JACOBI: t16 = 123 ms, t32 = 63 ms, t_r = 12990 ms -> 217 and 207.
  EXPECT_EQ(payoff_point(12.990, 0.123, 0.063).value(), 217);
  EXPECT_EQ(resize_cost(12.990, 0.063), 207);
  // APPBT: 2335 -> 1198 ms, t_r 16160 ms -> 15 and 14.
  EXPECT_EQ(payoff_point(16.160, 2.335, 1.198).value(), 15);
  EXPECT_EQ(resize_cost(16.160, 1.198), 14);
}

TEST(PayoffPoint, IsEmptyWhenTheNewGridIsNotFaster) {
  EXPECT_FALSE(payoff_point(1.0, 0.5, 0.5).has_value());
  EXPECT_FALSE(payoff_point(1.0, 0.5, 0.7).has_value());
  EXPECT_THROW(resize_cost(1.0, 0.0), Error);
}

namespace {
using resize_test::resize_record;

Metrics three_grids() {
  Metrics m;
  // 2x2: iterations 1-3 (first is transient), expand after 3, 3x3: 4-6, shrink after 6.
  const double wall[] = {9.0, 1.0, 1.0, 5.0, 0.5, 0.5, 4.0, 1.0, 1.0};
  for (int i = 1; i <= 9; ++i) {
    const bool mid = i >= 4 && i <= 6;
    m.add_iteration({i, mid ? 9 : 4, mid ? "3x3" : "2x2", wall[i - 1], wall[i - 1] / 2});
  }
  for (auto r : {resize_record(3, Action::Expand, "2x2", "3x3", 1.0, 1.25),
                 resize_record(6, Action::Shrink, "3x3", "2x2", 1.0, 1.25)}) {
    r.t_redist = 0.2;
    r.t_other = 0.05;
    m.add_resize(r);
  }
  return m;
}
}  // namespace

TEST(Metrics, SegmentsSplitAtResizesAndDropTheTransientIteration) {
  const auto segs = three_grids().segments();
  ASSERT_EQ(segs.size(), 3u);
  EXPECT_EQ(segs[0].grid, "2x2");
  EXPECT_EQ(segs[0].count(), 3);
  EXPECT_DOUBLE_EQ(segs[0].mean_wall, 1.0);
  EXPECT_DOUBLE_EQ(segs[1].mean_wall, 0.5);
  EXPECT_DOUBLE_EQ(segs[1].mean_dedicated, 0.25);
  EXPECT_EQ(segs[2].first_iteration, 7);
}

TEST(Metrics, AnalysisGivesPayoffAndCostOnBothClocks) {
  const auto an = three_grids().analyse();
  ASSERT_EQ(an.size(), 2u);
  EXPECT_EQ(an[0].payoff_wall.value(), 3);       // ceil(1.25 / 0.5)
  EXPECT_EQ(an[0].cost_wall.value(), 3);         // ceil(1.25 / 0.5)
  EXPECT_EQ(an[0].payoff_dedicated.value(), 5);  // ceil(1.25 / 0.25)
  EXPECT_EQ(an[0].cost_dedicated.value(), 5);
  EXPECT_FALSE(an[1].payoff_wall.has_value());   // shrinking makes iterations slower
  EXPECT_EQ(an[1].cost_wall.value(), 2);         // ceil(1.25 / 1.0)
}

TEST(Metrics, CurrentTimeNeedsEnoughSteadyIterations) {
  Metrics m;
  m.add_iteration({1, 4, "2x2", 5.0, 5.0});
  EXPECT_TRUE(m.current_time(1, false).has_value());
  EXPECT_FALSE(m.current_time(2, false).has_value());
  m.add_iteration({2, 4, "2x2", 1.0, 0.5});
  m.add_iteration({3, 4, "2x2", 3.0, 1.5});
  EXPECT_DOUBLE_EQ(m.current_time(2, false).value(), 2.0);
  EXPECT_DOUBLE_EQ(m.current_time(2, true).value(), 1.0);
}

TEST(Metrics, OnePreemptedIterationDoesNotMoveTheSegmentTime) {
  Metrics m;
  const double wall[] = {9.0, 1.0, 1.1, 40.0, 0.9};  // iteration 4 was preempted
  for (int i = 1; i <= 5; ++i) m.add_iteration({i, 4, "2x2", wall[i - 1], wall[i - 1]});
  const auto s = m.segments().front();
  EXPECT_DOUBLE_EQ(s.median_wall, 1.05);
  EXPECT_GT(s.mean_wall, 10.0);
}

TEST(Report, SummaryShowsBothClocksAndTheCheck) {
  RunInfo info{.app = "pdgemm", .problem = "N=8", .policy = "scripted", .redistributor = "pdgemr2d",
               .check = "max err 0: OK", .check_ok = true, .cores = 2};
  const std::string t = summary_table(three_grids(), info);
  EXPECT_NE(t.find("Dedicated-core"), std::string::npos);
  EXPECT_NE(t.find("compute median"), std::string::npos);
  EXPECT_NE(t.find("2x2->3x3"), std::string::npos);
  EXPECT_NE(t.find("never"), std::string::npos);
  EXPECT_NE(t.find("max err 0: OK"), std::string::npos);
  const std::string j = to_json(three_grids(), info);
  EXPECT_NE(j.find("\"payoff_wall\": 3"), std::string::npos);
  EXPECT_NE(iterations_csv(three_grids()).find("4,9,3x3,5,2.5,"), std::string::npos);
}

// A background expansion whose spawn ran in the helper thread: its spawn time overlapped
// the old grid's iterations, so the row marks it and the background line says so (the
// stopped total can be shorter than the spawn); a blocking resize carries no mark.
TEST(Report, AnOverlappedSpawnIsMarked) {
  Metrics m = three_grids();
  ResizeRecord bg = resize_record(8, Action::Expand, "2x2", "3x3", 1.345, 0.884);
  bg.background.emplace();
  bg.background->mode = Background::Wait;
  bg.background->progress = BackgroundProgress::HelperThread;
  m.add_resize(bg);
  RunInfo info{.app = "pdgemm", .problem = "N=8", .policy = "scripted", .redistributor = "redist",
               .check = "ok", .check_ok = true, .cores = 2};
  const std::string t = summary_table(m, info);
  EXPECT_NE(t.find("1345.00*"), std::string::npos) << t;
  EXPECT_NE(t.find("* the spawn ran in the helper thread"), std::string::npos) << t;
  EXPECT_EQ(t.find("1000.00*"), std::string::npos) << t;  // the blocking expansion
  EXPECT_NE(t.find("overlapped; nothing waited for it at the switch"), std::string::npos) << t;
}

// what the completing point waited for an overlapped spawn is said, not
// "overlapped, not stopped"; a cancelled one is marked CANCELLED, not FAILED.
TEST(Report, AnOverlappedSpawnSaysWhatWasWaited) {
  Metrics m = three_grids();
  ResizeRecord bg = resize_record(8, Action::Expand, "2x2", "3x3", 1.345, 0.884);
  bg.background.emplace();
  bg.background->mode = Background::Continue;
  bg.background->progress = BackgroundProgress::HelperThread;
  bg.background->t_wait = 1.010;
  m.add_resize(bg);
  ResizeRecord cancelled = bg;
  cancelled.after_iteration = 9;
  cancelled.ok = false;
  cancelled.background->cancelled = true;
  cancelled.background->t_wait = 0.25;
  cancelled.message = "cancelled at the end (not finished after 7 deferrals)";
  m.add_resize(cancelled);
  RunInfo info{.app = "pdgemm", .problem = "N=8", .policy = "scripted", .redistributor = "redist",
               .check = "ok", .check_ok = true, .cores = 2};
  const std::string t = summary_table(m, info);
  EXPECT_EQ(t.find("not stopped"), std::string::npos) << t;
  EXPECT_NE(t.find("overlapped; 1010.00 ms waited at the switch"), std::string::npos) << t;
  EXPECT_NE(t.find("overlapped; 250.00 ms waited at the cancellation"), std::string::npos) << t;
  EXPECT_NE(t.find("2x2->3x3 CANCELLED"), std::string::npos) << t;
  EXPECT_EQ(t.find("2x2->3x3 FAILED"), std::string::npos) << t;
  EXPECT_NE(t.find("cancelled at the end (not finished after 7 deferrals)"), std::string::npos) << t;
  const auto j = nlohmann::json::parse(to_json(m, info));
  const auto& rs = j.at("resizes");
  EXPECT_TRUE(rs.at(rs.size() - 1).at("background").at("cancelled").get<bool>());
  EXPECT_FALSE(rs.at(rs.size() - 2).at("background").at("cancelled").get<bool>());
}

TEST(Report, JsonIsVersionedWithNumericSizesAndGridObjects) {
  RunInfo info{.app = "pdgemm", .problem = "N=8 NB=2", .policy = "scripted", .redistributor = "redist",
               .check = "ok", .check_ok = true, .cores = 2,
               .command_line = {"pdgemm_resizable", "-n", "8"}, .n = 8, .nb = 2,
               .distribution = "block"};
  const auto j = nlohmann::json::parse(to_json(three_grids(), info));
  EXPECT_EQ(j.at("schema"), "malleable.run/2");
  EXPECT_FALSE(j.at("malleable").at("version").get<std::string>().empty());
  EXPECT_TRUE(j.at("malleable").contains("commit"));
  EXPECT_EQ(j.at("command_line").size(), 3u);
  EXPECT_EQ(j.at("command_line")[1], "-n");
  EXPECT_EQ(j.at("timestamp").get<std::string>().size(), 20u);  // YYYY-MM-DDTHH:MM:SSZ
  EXPECT_EQ(j.at("problem_size").at("n"), 8);
  EXPECT_EQ(j.at("problem_size").at("nb"), 2);
  EXPECT_EQ(j.at("problem_size").at("distribution"), "block");
  // grids as gridmap's planner writes them
  const auto& first = j.at("iterations").at(0).at("grid");
  EXPECT_EQ(first.at("rows"), 2);
  EXPECT_EQ(first.at("cols"), 2);
  const auto& r = j.at("resizes").at(0);
  EXPECT_EQ(r.at("from"), (nlohmann::json{{"rows", 2}, {"cols", 2}}));
  EXPECT_EQ(r.at("to"), (nlohmann::json{{"rows", 3}, {"cols", 3}}));
  EXPECT_TRUE(j.at("segments").at(0).at("grid").is_object());
}

TEST(Report, CheckpointsAreRecordedInTheJsonAndTheSummary) {
  RunInfo info;
  info.app = "pdgemm";
  info.check = "ok";
  // No checkpoint asked: no "checkpoints" key, no summary line.
  EXPECT_FALSE(nlohmann::json::parse(to_json(three_grids(), info)).contains("checkpoints"));
  EXPECT_EQ(summary_table(three_grids(), info).find("checkpoints:"), std::string::npos);
  info.checkpoint_every = "auto";
  info.mtbf_s = 10;
  info.checkpoints = {{2, 0.010, "first", -1, "d/pdgemm-000002.h5"},
                      {5, 0.030, "interval", 0.4472135955, "d/pdgemm-000005.h5"}};
  const auto j = nlohmann::json::parse(to_json(three_grids(), info));
  const auto& ck = j.at("checkpoints");
  EXPECT_EQ(ck.at("every"), "auto");
  EXPECT_EQ(ck.at("mtbf_s"), 10.0);
  ASSERT_EQ(ck.at("written").size(), 2u);
  EXPECT_EQ(ck.at("written")[0].at("after_iteration"), 2);
  EXPECT_EQ(ck.at("written")[0].at("reason"), "first");
  EXPECT_TRUE(ck.at("written")[0].at("interval_s").is_null());  // no cost measured before the first
  EXPECT_DOUBLE_EQ(ck.at("written")[1].at("interval_s").get<double>(), 0.4472135955);
  EXPECT_DOUBLE_EQ(ck.at("written")[1].at("seconds").get<double>(), 0.030);
  EXPECT_EQ(ck.at("written")[1].at("file"), "d/pdgemm-000005.h5");
  EXPECT_NE(summary_table(three_grids(), info).find("checkpoints: 2 written (every auto), 20.0 ms each on average, at most 30.0 ms: 2 scheduled\n"),
            std::string::npos);
}

// Every file counted with its purpose: the cadence's, the expansion fallback's
// before a spawn, a resize by restart's before a shrink, the job's last.
TEST(Report, CheckpointsAreCountedPerPurpose) {
  EXPECT_EQ(checkpoint_purpose("first"), "scheduled");
  EXPECT_EQ(checkpoint_purpose("interval"), "scheduled");
  EXPECT_EQ(checkpoint_purpose("rule"), "scheduled");
  EXPECT_EQ(checkpoint_purpose("request"), "scheduled");
  EXPECT_EQ(checkpoint_purpose("last"), "final");
  EXPECT_EQ(checkpoint_purpose("before spawn"), "before a spawn");
  EXPECT_EQ(checkpoint_purpose("before shrink"), "before a shrink");
  EXPECT_EQ(checkpoint_purpose("before restart"), "before a restart");
  EXPECT_EQ(checkpoint_purpose("before refresh"), "before a refresh");
  RunInfo info;
  info.app = "chol";
  info.check = "ok";
  info.checkpoint_every = "3";
  info.checkpoints = {{2, 0.01, "before spawn", -1, "d/chol-000002.h5"}, {3, 0.01, "rule", -1, "d/chol-000003.h5"},
                      {6, 0.01, "rule", -1, "d/chol-000006.h5"},         {7, 0.01, "before shrink", -1, "d/chol-000007.h5"},
                      {9, 0.01, "rule", -1, "d/chol-000009.h5"},         {10, 0.01, "last", -1, "d/chol-000010.h5"}};
  EXPECT_NE(summary_table(three_grids(), info)
                .find("checkpoints: 6 written (every 3), 10.0 ms each on average, at most 10.0 ms: 3 scheduled, "
                      "1 before a spawn, 1 before a shrink, 1 final\n"),
            std::string::npos)
      << summary_table(three_grids(), info);
  const auto w = nlohmann::json::parse(to_json(three_grids(), info)).at("checkpoints").at("written");
  ASSERT_EQ(w.size(), 6u);
  EXPECT_EQ(w[0].at("purpose"), "before a spawn");
  EXPECT_EQ(w[3].at("purpose"), "before a shrink");
  EXPECT_EQ(w[5].at("purpose"), "final");
}

// The node-local level files are counted as the global ones: each version with its
// purpose (the cadence's, the state secured before a spawn) and every file all nodes
// received, in the summary and the JSON (they were in neither: a level directory held
// files the summary never mentioned).
TEST(Report, LevelFilesAreCountedPerPurpose) {
  RunInfo info;
  info.app = "chol";
  info.check = "ok";
  // 4 processes: a local version is 4 files, local+partner 8 (each keeps one copy).
  info.levels = {{2, false, 0.002, 1000, 4000, "before spawn", 4},
                 {3, false, 0.002, 1000, 4000, "rule", 4},
                 {6, true, 0.004, 2000, 8000, "rule", 8}};
  const std::string text = summary_table(three_grids(), info);
  EXPECT_NE(text.find("checkpoint levels: 3 versions written (2 local, 1 local+partner), 16 files, 0.0 MB on all "
                      "nodes: 2 scheduled, 1 before a spawn\n"),
            std::string::npos)
      << text;
  const auto lv = nlohmann::json::parse(to_json(three_grids(), info)).at("checkpoint_levels");
  ASSERT_EQ(lv.size(), 3u);
  EXPECT_EQ(lv[0].at("purpose"), "before a spawn");
  EXPECT_EQ(lv[2].at("level"), "local+partner");
  EXPECT_EQ(lv[2].at("files"), 8);
  EXPECT_EQ(lv[2].at("total_bytes"), 8000);
}

TEST(Metrics, ComputeClockGivesItsOwnPayoff) {
  Metrics m;
  // wall does not improve (2 cores), compute halves: pays off on the compute clock only.
  const double c[] = {9, 2, 2, 9, 1, 1};
  for (int i = 1; i <= 6; ++i) {
    const bool big = i > 3;
    m.add_iteration({i, big ? 9 : 4, big ? "3x3" : "2x2", 1.0, 1.0, c[i - 1]});
  }
  m.add_resize(resize_record(3, Action::Expand, "2x2", "3x3", 0.0, 3.0));
  const auto an = m.analyse();
  ASSERT_EQ(an.size(), 1u);
  EXPECT_FALSE(an[0].payoff_wall.has_value());
  EXPECT_EQ(an[0].payoff_compute.value(), 3);  // ceil(3 / (2 - 1))
  EXPECT_EQ(an[0].cost_compute.value(), 3);    // ceil(3 / 1)
}

TEST(Metrics, RankHostsAreRunsOfNodes) {
  // a record keeps the ranks' nodes as runs, O(nodes), and gives back the
  // one-name-per-rank list for output.
  const std::vector<std::string> ranks = {"n1", "n1", "n1", "n2", "n2", "n1", "n3", "n3"};
  const auto h = resize::RankHosts::of(ranks);
  EXPECT_EQ(h.hosts, (std::vector<std::string>{"n1", "n2", "n3"}));
  EXPECT_EQ(h.runs, (std::vector<std::pair<int, int>>{{0, 3}, {1, 2}, {0, 1}, {2, 2}}));
  EXPECT_EQ(h.ranks(), 8);
  EXPECT_EQ(h.expand(), ranks);
  EXPECT_TRUE(resize::RankHosts::of({}).empty());
  // 16,384 ranks on 1,024 nodes of 16: 1,024 runs.
  std::vector<std::string> big;
  for (int r = 0; r < 16384; ++r) big.push_back("node" + std::to_string(r / 16));
  const auto b = resize::RankHosts::of(big);
  EXPECT_EQ(b.runs.size(), 1024u);
  EXPECT_EQ(b.expand(), big);
}
