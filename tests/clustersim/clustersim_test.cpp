// SPDX-License-Identifier: BSD-3-Clause
// The cluster simulator's pure parts: job model, workload parsing, resize
// costs, EASY backfilling, the cluster's state and accounts, metrics, and the adapter to
// the project's Slurm policy. No SimGrid.
#include <gtest/gtest.h>

#include <algorithm>
#include <utility>

#include "cluster.hpp"
#include "costs.hpp"
#include "easy.hpp"
#include "metrics.hpp"
#include "policy.hpp"
#include "workload.hpp"

#include "clustersim_test_util.hpp"

using namespace clustersim;

namespace {

using clustersim_test::job;

Workload machine(int nodes, std::vector<Job> jobs) {
  Workload w;
  w.nodes = nodes;
  w.jobs = std::move(jobs);
  return w;
}

}  // namespace

TEST(ClusterSimJob, AmdahlIterationTime) {
  Job j = job("a", 0, 2, true, 240, 0.05);
  j.iterations = 30;
  EXPECT_DOUBLE_EQ(j.iteration_s(1), 8.0);
  EXPECT_DOUBLE_EQ(j.iteration_s(4), 8.0 * (0.05 + 0.95 / 4));
  EXPECT_DOUBLE_EQ(j.runtime_s(4), 240 * (0.05 + 0.95 / 4));
  EXPECT_THROW(j.iteration_s(0), Error);
}

TEST(ClusterSimWorkload, ParsesTheGeneratorsForm) {
  const std::string text = R"({"model":"m","seed":3,"nodes":8,"malleable_share":0.5,"time_scale":0.01,
    "jobs":[{"id":"j000","submit_s":0.0,"nodes":2,"min_nodes":1,"max_nodes":4,"malleable":true,"program":"sleep",
             "work_node_s":240.0,"serial_fraction":0.05,"iterations":30},
            {"id":"j001","submit_s":5.0,"nodes":8,"min_nodes":8,"max_nodes":8,"malleable":false,"program":"sleep",
             "work_node_s":80.0,"serial_fraction":0.1,"iterations":4}]})";
  const Workload w = parse_workload(text);
  ASSERT_EQ(w.jobs.size(), 2u);
  EXPECT_EQ(w.nodes, 8);
  EXPECT_EQ(w.seed, 3);
  EXPECT_EQ(w.jobs[0].max_nodes, 4);
  EXPECT_TRUE(w.jobs[0].malleable);
  EXPECT_EQ(w.jobs[1].iterations, 4);
  EXPECT_THROW(parse_workload(text, 4), Error);  // job j001 needs 8 nodes
}

TEST(ClusterSimWorkload, RefusesBadInputNamingTheJob) {
  auto with = [](const std::string& job) {
    return R"({"nodes":8,"jobs":[)" + job + "]}";
  };
  const std::string ok = R"({"id":"x","submit_s":0,"nodes":2,"min_nodes":1,"max_nodes":4,"malleable":true,"work_node_s":1,"serial_fraction":0,"iterations":1})";
  EXPECT_NO_THROW(parse_workload(with(ok)));
  try {
    parse_workload(with(R"({"id":"x","submit_s":0,"nodes":9,"min_nodes":9,"max_nodes":9,"malleable":false,"work_node_s":1,"serial_fraction":0,"iterations":1})"));
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("job x"), std::string::npos);
  }
  EXPECT_THROW(parse_workload(with(R"({"id":"x","submit_s":0,"nodes":2,"min_nodes":1,"max_nodes":4,"malleable":false,"work_node_s":1,"serial_fraction":0,"iterations":1})")), Error);
  EXPECT_THROW(parse_workload(with(R"({"id":"x","submit_s":0,"nodes":2,"min_nodes":1,"max_nodes":4,"malleable":true,"work_node_s":0,"serial_fraction":0,"iterations":1})")), Error);
  EXPECT_THROW(parse_workload(with(R"({"id":"x","submit_s":0,"nodes":2,"min_nodes":1,"max_nodes":4,"malleable":true,"work_node_s":1,"serial_fraction":1,"iterations":1})")), Error);
  EXPECT_THROW(parse_workload(with(R"({"id":"x","nodes":2})")), Error);
  EXPECT_THROW(parse_workload("[1,2]"), Error);
  EXPECT_THROW(parse_workload("{"), Error);
  EXPECT_THROW(parse_workload(R"({"nodes":8,"jobs":[]})"), Error);
}

TEST(ClusterSimCosts, ModelAndJson) {
  Costs c;
  c.data_bytes_per_node = 12.5e9;
  c.link_Bps = 12.5e9;
  c.redist_link_ratio = 1.0;
  EXPECT_DOUBLE_EQ(c.redistribution_s(4, 8, 4), 4.0 / 4);  // 4 x 12.5 GB over 4 links of 12.5 GB/s
  EXPECT_DOUBLE_EQ(c.expand_s(4, 8, 4), c.spawn_fixed_s + 4 * c.spawn_per_node_s + 1.0 + c.other_s);
  EXPECT_DOUBLE_EQ(c.shrink_s(8, 4, 4), c.release_s + 1.0 + c.other_s);
  c.expansion = false;
  EXPECT_DOUBLE_EQ(c.grow_s(4, 8, 4), c.restart_s(4, 8, 4));
  EXPECT_GT(c.restart_s(4, 8, 4), c.expand_s(4, 8, 4));
  const Costs p = parse_costs(R"({"_about":"x","spawn_per_node_s":0.1,"expansion":false})");
  EXPECT_DOUBLE_EQ(p.spawn_per_node_s, 0.1);
  EXPECT_FALSE(p.expansion);
  EXPECT_THROW(parse_costs(R"({"spawn_per_nod_s":0.1})"), Error);
  EXPECT_THROW(parse_costs(R"({"link_Bps":0})"), Error);
  EXPECT_THROW(parse_costs(R"({"other_s":-1})"), Error);
  EXPECT_THROW(parse_costs(R"({"expansion":1})"), Error);
}

TEST(ClusterSimEasy, StartsInOrderWhileJobsFit) {
  const auto r = easy_backfill(0, 10, 10, {{"a", 4, 10}, {"b", 6, 10}, {"c", 1, 10}}, {});
  EXPECT_EQ(r.start, (std::vector<Start>{{0, 4}, {1, 6}}));
  EXPECT_DOUBLE_EQ(r.shadow, 10);  // c waits for a and b to end
  EXPECT_EQ(r.extra, 3);  // a's 4 nodes suffice at t=10: 3 beyond c's
  EXPECT_LT(easy_backfill(0, 10, 10, {{"a", 4, 10}}, {}).shadow, 0);  // nobody waits: no reservation
}

TEST(ClusterSimEasy, BackfillsShortJobsBeforeTheShadowTime) {
  // 4 idle of 10; running: 6 nodes until t=100. Head needs 8 -> shadow 100, extra 2.
  const std::vector<Running> run = {{6, 100}};
  const std::vector<Waiting> q = {{"head", 8, 50}, {"short", 4, 90}, {"long", 4, 500}};
  auto r = easy_backfill(0, 4, 10, q, run);
  EXPECT_DOUBLE_EQ(r.shadow, 100);
  EXPECT_EQ(r.start, (std::vector<Start>{{1, 4}}));  // ends by t=90 <= shadow
  // A long job that fits the extra nodes starts too; one that does not, waits.
  r = easy_backfill(0, 4, 10, {{"head", 8, 50}, {"long2", 2, 500}, {"long4", 4, 500}}, run);
  EXPECT_EQ(r.start, (std::vector<Start>{{1, 2}}));
  EXPECT_EQ(r.extra, 0);
  EXPECT_THROW(easy_backfill(0, 4, 10, {{"big", 11, 1}}, run), Error);
}

TEST(ClusterSimEasy, RangesStartMalleableJobsSmaller) {
  // 4 idle of 10; running: 6 nodes until t=100.
  const std::vector<Running> run = {{6, 100}};
  // The head asks for 8 but may start on 3: it starts now on the 4 idle nodes.
  Waiting head{"head", 8, 80, 3, 0.0};
  auto r = easy_backfill(0, 4, 10, {head}, run, true);
  EXPECT_EQ(r.start, (std::vector<Start>{{0, 4}}));
  EXPECT_DOUBLE_EQ(head.estimate_on(4), 160);  // Amdahl with s = 0: twice as long on half
  // Without ranges it waits, and so does a rigid head with ranges.
  EXPECT_TRUE(easy_backfill(0, 4, 10, {head}, run, false).start.empty());
  EXPECT_TRUE(easy_backfill(0, 4, 10, {{"rigid", 8, 80}}, run, true).start.empty());
  // Backfill: a rigid head waits for 8 (shadow 100, extra 2); a malleable job asking
  // for 4 (min 2, 300 s) does not end before 100 on 4, so it takes the 2 extra nodes.
  r = easy_backfill(0, 4, 10, {{"rigid", 8, 80}, {"m", 4, 300, 2, 0.0}}, run, true);
  EXPECT_EQ(r.start, (std::vector<Start>{{1, 2}}));
  EXPECT_EQ(r.extra, 0);
}

TEST(ClusterSimEasy, ShadowFromEarliestEnds) {
  const std::vector<Running> run = {{3, 300}, {3, 100}, {4, 200}};
  const auto r = easy_backfill(50, 0, 10, {{"head", 6, 10}}, run);
  EXPECT_DOUBLE_EQ(r.shadow, 200);  // 3 nodes at 100, 7 at 200
  EXPECT_EQ(r.extra, 1);
  EXPECT_TRUE(r.start.empty());
}

TEST(ClusterSimCluster, AllocatesAccountsAndReleases) {
  Cluster c(machine(8, {job("a", 0, 4, true), job("b", 0, 6), job("c", 1, 2)}));
  c.submit(0, 0);
  c.submit(1, 0);
  EXPECT_EQ(c.schedule(0), (std::vector<std::size_t>{0}));  // b waits (6 > 4 idle)
  EXPECT_EQ(c.held(0), (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(c.idle_count(), 4);
  const auto v = c.version();
  const auto got = c.grant(0, 2, 10);  // 4 nodes for 10 s
  EXPECT_EQ(got, (std::vector<int>{4, 5}));
  EXPECT_GT(c.version(), v);
  c.release(0, {5, 4}, 20);  // 6 nodes for 10 s
  c.resized(0, 1.5);
  EXPECT_THROW(c.release(0, {7}, 20), Error);
  c.finish(0, 30);  // 4 nodes for 10 s
  EXPECT_EQ(c.schedule(30), (std::vector<std::size_t>{1}));
  c.finish(1, 40);
  c.submit(2, 41);
  EXPECT_EQ(c.schedule(41).size(), 1u);
  c.finish(2, 42);
  const auto recs = c.records();
  EXPECT_DOUBLE_EQ(recs[0].node_s, 40 + 60 + 40);
  EXPECT_EQ(recs[0].resizes, 1);
  EXPECT_EQ(recs[0].max_held, 6);
  EXPECT_DOUBLE_EQ(recs[1].start_s, 30);
  EXPECT_DOUBLE_EQ(recs[1].node_s, 60);
  EXPECT_THROW(c.submit(2, 50), Error);
}

TEST(ClusterSimMetrics, AsDocumented) {
  std::vector<JobRecord> r(3);
  r[0] = {"a", true, 0, 0, 100, 200, 1, 4};
  r[1] = {"b", false, 10, 30, 35, 5, 0, 0};
  r[2] = {"c", true, 20, 60, 120, 120, 2, 2};
  const RunMetrics m = compute_metrics(r, 4);
  EXPECT_EQ(m.jobs, 3);
  EXPECT_DOUBLE_EQ(m.makespan_s, 120);
  EXPECT_DOUBLE_EQ(m.mean_wait_s, 20);
  EXPECT_DOUBLE_EQ(m.median_wait_s, 20);
  EXPECT_DOUBLE_EQ(m.mean_turnaround_s, 75);
  EXPECT_DOUBLE_EQ(m.bounded_slowdown, (1 + 2.5 + 100.0 / 60) / 3);  // tau = 10 s
  EXPECT_DOUBLE_EQ(m.utilisation, 325.0 / 480);
  EXPECT_DOUBLE_EQ(m.resizes_per_job, 1);
  EXPECT_DOUBLE_EQ(m.resize_time_s_per_job, 2);
  r[1].start_s = 5;
  EXPECT_THROW(compute_metrics(r, 4), Error);
  EXPECT_THROW(compute_metrics({}, 4), Error);
}

TEST(ClusterSimPolicy, GivesBackForTheWaitingJob) {
  Costs costs;
  Job m = job("m", 0, 6, true);
  m.max_nodes = 8;
  Cluster c(machine(8, {m, job("w", 1, 4)}));
  c.submit(0, 0);
  c.schedule(0);
  c.submit(1, 1);
  EXPECT_TRUE(c.schedule(1).empty());  // 2 idle, w needs 4
  const Action a = decide_for(c, 0, 3, costs);
  ASSERT_EQ(a.kind, Action::Kind::Shrink) << a.why;
  EXPECT_EQ(a.give, (std::vector<int>{5, 4}));  // the last joined, never rank 0's node
  EXPECT_NE(a.why.find("w waits"), std::string::npos);
  // Started on all 6 (the first launch's processes cannot leave): nothing to give.
  EXPECT_NE(decide_for(c, 0, 3, costs, Ranks{c.held(0), false, 6}).kind, Action::Kind::Shrink);
}

TEST(ClusterSimPolicy, GrowsOnlyWhenItPays) {
  Costs costs;
  costs.data_bytes_per_node = 1e6;
  Job big = job("m", 0, 2, true, 20000, 0.0);  // long: 10 iterations of 1,000 s on 2 nodes
  Cluster c(machine(8, {big}));
  c.submit(0, 0);
  c.schedule(0);
  Action a = decide_for(c, 0, 1, costs);
  ASSERT_EQ(a.kind, Action::Kind::Grow) << a.why;
  EXPECT_EQ(a.grow, 2);  // up to max_nodes = 4
  EXPECT_TRUE(growth_pays(big, 2, 4, 9, costs));
  // A job with almost no work left does not pay for the spawn.
  Job tiny = job("t", 0, 2, true, 2, 0.0);
  EXPECT_FALSE(growth_pays(tiny, 2, 4, 1, costs));
  EXPECT_FALSE(growth_pays(big, 4, 4, 9, costs));
}

TEST(ClusterSimCosts, SlurmLatenciesAndPasses) {
  const Costs c = parse_costs(
      R"({"sched_interval_s":2,"decision_s":0.4,"update_s":1.5,"one_update":true,"link_Bps":1e9,"data_bytes_per_node":1e9})");
  EXPECT_DOUBLE_EQ(c.sched_interval_s, 2);
  EXPECT_DOUBLE_EQ(c.decision_s, 0.4);
  EXPECT_TRUE(c.one_update);
  // Nodes that ran nothing go back for Slurm's update alone; processes leaving add the shrink.
  EXPECT_DOUBLE_EQ(c.give_back_s(3, 3, 2), 1.5);
  EXPECT_DOUBLE_EQ(c.give_back_s(3, 2, 2), c.shrink_s(3, 2, 2) + 1.5);
  EXPECT_DOUBLE_EQ(c.acquire_s(2, 4, 2), c.expand_s(2, 4, 2) + 1.5);
  // Scheduling passes every 2 s: a change at 3.1 is seen at 4, one at a pass at once.
  EXPECT_DOUBLE_EQ(c.next_pass(3.1), 4);
  EXPECT_DOUBLE_EQ(c.next_pass(4), 4);
  EXPECT_DOUBLE_EQ(c.next_pass(0), 0);
  EXPECT_DOUBLE_EQ(Costs{}.next_pass(3.1), 3.1);  // no interval: at once
  EXPECT_THROW(parse_costs(R"({"one_update":"yes"})"), Error);
  EXPECT_THROW(parse_costs(R"({"update_s":-1})"), Error);
}

TEST(ClusterSimWorkload, TimeLimitIsOptionalAndChecked) {
  const auto w = parse_workload(R"({"nodes":4,"jobs":[
    {"id":"a","submit_s":0,"nodes":2,"min_nodes":2,"max_nodes":2,"malleable":false,"work_node_s":10,"serial_fraction":0,"iterations":1,"limit_s":120},
    {"id":"b","submit_s":1,"nodes":2,"min_nodes":2,"max_nodes":2,"malleable":false,"work_node_s":10,"serial_fraction":0,"iterations":1}]})");
  EXPECT_DOUBLE_EQ(w.jobs[0].limit_s, 120);
  EXPECT_DOUBLE_EQ(w.jobs[1].limit_s, 0);
  EXPECT_THROW(parse_workload(R"({"nodes":4,"jobs":[{"id":"x","submit_s":0,"nodes":1,"min_nodes":1,"max_nodes":1,
    "malleable":false,"work_node_s":1,"serial_fraction":0,"iterations":1,"limit_s":-5}]})"), Error);
}

TEST(ClusterSimEasy, ConservativeProtectsEveryEarlierJob) {
  // 4 idle of 10; running: 6 nodes until t=100. Waiting, oldest first: "head" needs 6
  // for 50 s (planned 100-150), "mid" 8 for 300 s (planned 150-450), "late" 4 for 1,000 s.
  const std::vector<Running> run = {{6, 100}};
  const std::vector<Waiting> q = {{"head", 6, 50}, {"mid", 8, 300}, {"late", 4, 1000}};
  // EASY protects only the head: late fits the 4 nodes the head leaves and starts now.
  EXPECT_EQ(easy_backfill(0, 4, 10, q, run).start, (std::vector<Start>{{2, 4}}));
  // Conservative: late would still hold 4 nodes when mid is planned on 8 of 10: it waits.
  EXPECT_TRUE(conservative_backfill(0, 4, 10, q, run).start.empty());
  // A short one that ends by the head's planned start does start.
  const std::vector<Waiting> q2 = {{"head", 8, 50}, {"short", 4, 90}};  // head planned at 100
  EXPECT_EQ(conservative_backfill(0, 4, 10, q2, run).start, (std::vector<Start>{{1, 4}}));
  // Jobs that fit start in order; a range job starts on the most nodes free for its estimate.
  EXPECT_EQ(conservative_backfill(0, 10, 10, {{"a", 4, 10}, {"b", 6, 10}}, {}).start,
            (std::vector<Start>{{0, 4}, {1, 6}}));
  Waiting range{"r", 8, 80, 3, 0.0};
  EXPECT_EQ(conservative_backfill(0, 4, 10, {range}, run, true).start, (std::vector<Start>{{0, 4}}));
  // A time limit is the same estimate on any size.
  Waiting limited{"l", 8, 80, 3, 0.0, true};
  EXPECT_DOUBLE_EQ(limited.estimate_on(4), 80);
  EXPECT_THROW(conservative_backfill(0, 4, 10, {{"big", 11, 1}}, run), Error);
  // A job past its estimate still holds its nodes now.
  EXPECT_TRUE(conservative_backfill(50, 0, 4, {{"w", 1, 10}}, {{4, 40}}).start.empty());
}

TEST(ClusterSimEasy, ConservativePlansInWholeBlocks) {
  // 4 of 10 nodes idle, 6 busy until 100: the 8-node head is planned at 100.
  const std::vector<Running> run = {{6, 100}};
  const std::vector<Waiting> q = {{"head", 8, 50}, {"short", 2, 90}};  // ends at 90, 10 s before
  EXPECT_EQ(conservative_backfill(0, 4, 10, q, run).start, (std::vector<Start>{{1, 2}}));
  // Planned in 60-s blocks of the wall clock, the head's slot starts at the block's start
  // (60): the short job would overlap it and waits, as Slurm's backfilling does.
  const Resolution minute{60, 0};
  EXPECT_TRUE(conservative_backfill(0, 4, 10, q, run, false, minute).start.empty());
  // The wall clock 30 s into a block at time 0: the head's block starts at 90 (120 on the
  // clock), the short job ends by then and starts.
  EXPECT_EQ(conservative_backfill(0, 4, 10, q, run, false, {60, 30}).start, (std::vector<Start>{{1, 2}}));
  EXPECT_DOUBLE_EQ(minute.down(100), 60);
  EXPECT_DOUBLE_EQ(minute.up(100), 120);
  EXPECT_DOUBLE_EQ(Resolution{}.up(100), 100);
  // A job started now holds its nodes to its end rounded up: b (8 nodes) is planned when a
  // ends, at 50 with exact times (c, 4 nodes until 55, would overlap it and waits), at 60
  // in blocks (c ends before and starts).
  const std::vector<Waiting> q2 = {{"a", 6, 50}, {"b", 8, 20}, {"c", 4, 55}};
  EXPECT_EQ(conservative_backfill(0, 10, 10, q2, {}).start, (std::vector<Start>{{0, 6}}));
  EXPECT_EQ(conservative_backfill(0, 10, 10, q2, {}, false, minute).start, (std::vector<Start>{{0, 6}, {2, 4}}));
}

TEST(ClusterSimCluster, RangeTopAndTimeLimits) {
  Job m = job("m", 0, 2, true);  // may run on 1-4 nodes
  m.limit_s = 500;
  Cluster c(machine(8, {m, job("r", 0, 3)}));
  c.set_start_ranges(true);
  c.set_range_top_max(true);
  c.submit(0, 0);
  c.submit(1, 0);
  c.schedule(0);
  EXPECT_EQ(c.held(0).size(), 4u);  // the range's top is max_nodes: 4 of 8 idle
  EXPECT_EQ(c.held(1).size(), 3u);
  c.set_estimated_end(0, 42);  // a job with a limit keeps start + limit (Slurm's view)
  Cluster d(machine(8, {job("m", 0, 2, true)}));
  d.set_start_ranges(true);
  d.submit(0, 0);
  d.schedule(0);
  EXPECT_EQ(d.held(0).size(), 2u);  // default: the requested size is the top
}

TEST(ClusterSimPolicy, OneProcessStartUsesOrGivesHeldNodes) {
  Costs costs;
  costs.data_bytes_per_node = 1e6;
  cluster::slurm::ArbiterOptions opt;
  // A job started on one process of its 4 nodes, nobody waiting: it spawns onto the 3 others.
  Job m = job("m", 0, 2, true, 2000, 0.0);
  Cluster c(machine(4, {m, job("w", 1, 2)}));
  c.set_start_ranges(true);
  c.set_range_top_max(true);
  c.submit(0, 0);
  c.schedule(0);
  ASSERT_EQ(c.held(0).size(), 4u);
  cluster::slurm::Ledger ledger;
  Action a = arbitrate_for(c, 0, 0, costs, ledger, 0, opt, Ranks{{c.held(0).front()}, false});
  ASSERT_EQ(a.kind, Action::Kind::UseHeld) << a.rule << ": " << a.why;
  EXPECT_EQ(a.claim.size(), 3u);
  // A job waits for 2: the job gives back nodes that run nothing, never rank 0's.
  c.submit(1, 1);
  ledger = {};
  a = arbitrate_for(c, 0, 0, costs, ledger, 1, opt, Ranks{{c.held(0).front()}, false});
  ASSERT_EQ(a.kind, Action::Kind::Shrink) << a.rule << ": " << a.why;
  EXPECT_EQ(a.give.size(), 2u);
  EXPECT_EQ(std::count(a.give.begin(), a.give.end(), c.held(0).front()), 0);
  // Started on all 4 (the first launch's processes cannot leave): nothing to give.
  ledger = {};
  a = arbitrate_for(c, 0, 0, costs, ledger, 1, opt, Ranks{c.held(0), false, 4});
  EXPECT_NE(a.kind, Action::Kind::Shrink) << a.rule;
  // After Slurm changed its allocation once (no accounting), it gives nothing back.
  ledger = {};
  a = arbitrate_for(c, 0, 0, costs, ledger, 1, opt, Ranks{{c.held(0).front()}, true});
  EXPECT_NE(a.kind, Action::Kind::Shrink) << a.rule;
}

TEST(ClusterSimPolicy, ViewHasPriorityAndTheHeadsReservation) {
  // 8 nodes: a (4 nodes, ends by 50) and b (3 nodes, ends by 30) run; c (6) waits, then d (1).
  Cluster c(machine(8, {job("a", 0, 4), job("b", 0, 3), job("c", 1, 6), job("d", 2, 1)}));
  c.submit(0, 0);
  c.submit(1, 0);
  ASSERT_EQ(c.schedule(0).size(), 2u);
  c.set_estimated_end(0, 50);
  c.set_estimated_end(1, 30);
  c.submit(2, 1);
  c.submit(3, 2);
  const auto v = view_of(c, 5);
  ASSERT_EQ(v.jobs.size(), 4u);
  for (std::size_t k = 1; k < v.jobs.size(); ++k) {
    EXPECT_GT(v.jobs[k - 1].priority, v.jobs[k].priority);  // FCFS
    EXPECT_LE(v.jobs[k - 1].submit, v.jobs[k].submit);
  }
  EXPECT_EQ(v.jobs[2].id, "c");
  EXPECT_DOUBLE_EQ(v.jobs[2].submit, 1);
  EXPECT_EQ(v.jobs[2].partition, "batch");
  // c's reservation: the idle node n7, b's three nodes (free by 30), then two of a's (50).
  EXPECT_DOUBLE_EQ(v.jobs[2].planned_start, 50);
  ASSERT_EQ(v.jobs[2].planned_nodes.size(), 6u);
  EXPECT_EQ(v.jobs[2].planned_nodes.front(), "n7");
  EXPECT_TRUE(v.jobs[3].planned_nodes.empty());  // only the head has a reservation
  EXPECT_DOUBLE_EQ(v.jobs[3].planned_start, 0);
}

// The view kept between decisions (ViewCache) is view_of's at every call: after a change of
// the cluster (a new version), after the estimated ends move (no new version: the head's
// reservation is redone), and at another time.
TEST(ClusterSimPolicy, ViewCacheEqualsViewOfAtEveryCall) {
  Cluster c(machine(8, {job("a", 0, 4), job("b", 0, 3), job("c", 1, 6), job("d", 2, 1)}));
  ViewCache cache;
  const auto same = [&](double now) {
    const auto want = cluster::slurm::format_view(view_of(c, now));
    EXPECT_EQ(cluster::slurm::format_view(cache.view(c, now)), want) << "at " << now;
  };
  c.submit(0, 0);
  c.submit(1, 0);
  same(0);
  ASSERT_EQ(c.schedule(0).size(), 2u);
  c.set_estimated_end(0, 50);
  c.set_estimated_end(1, 30);
  c.submit(2, 1);
  c.submit(3, 2);
  same(5);
  EXPECT_DOUBLE_EQ(cache.view(c, 5).jobs[2].planned_start, 50);
  const long rebuilt = cache.rebuilds();
  c.set_estimated_end(0, 20);  // a now ends first: c's reservation moves, the version does not
  same(6);
  EXPECT_DOUBLE_EQ(cache.view(c, 6).jobs[2].planned_start, 30);
  same(40);  // later than every estimated end: the reservation starts now
  EXPECT_EQ(cache.rebuilds(), rebuilt);
  c.finish(1, 40);
  same(40);
  EXPECT_GT(cache.rebuilds(), rebuilt);
  ASSERT_FALSE(c.schedule(40).empty());
  same(41);
}

// starts_narrowed counts where a pass holds a job that it would have started below its
// limit's floor, not every job whose floor is above its minimum: the same job is counted
// in one arm and not in the others.
TEST(ClusterSimCluster, StartsNarrowedWhereAPassHoldsTheJob) {
  Job m = job("m", 0, 4, true, 400);  // 400 / n s on n nodes, range [2, 8]
  m.limit_s = 110;                    // 100 s on 4 keeps it, 133 s on 3 does not: floor 4
  const auto arm = [&](int machine_nodes, bool ranges, bool limits, int blocker) {
    std::vector<Job> jobs;
    if (blocker > 0) jobs.push_back(job("r", 0, blocker, false, 1e6));
    jobs.push_back(m);
    Cluster c(machine(machine_nodes, jobs));
    c.set_start_ranges(ranges);
    c.set_time_limits(limits);
    for (std::size_t j = 0; j < jobs.size(); ++j) c.submit(j, 0);
    c.schedule(0);
    const std::size_t mj = jobs.size() - 1;
    EXPECT_TRUE(!limits || c.start_narrowed(mj));  // the submission-time property: the same in every arm with limits
    const auto first = c.narrowed();
    c.schedule(10);  // a later pass, still held: not counted twice
    EXPECT_TRUE(c.narrowed().empty());
    return std::pair{c.starts_narrowed(), first};
  };
  // 5 of 8 nodes busy, 3 idle: the range would start it on 3, its floor holds it.
  const auto held = arm(8, true, true, 5);
  EXPECT_EQ(held.first, 1);
  EXPECT_EQ(held.second, (std::vector<std::size_t>{1}));
  EXPECT_EQ(arm(8, true, false, 5).first, 0);  // no limits: it starts on 3
  EXPECT_EQ(arm(8, true, true, 4).first, 0);   // 4 idle: it starts on its floor, nothing narrowed
  EXPECT_EQ(arm(8, false, true, 5).first, 0);  // no ranges (rigid start): no range to narrow
  EXPECT_EQ(arm(8, true, true, 7).first, 0);   // 1 idle, below its minimum: held by the nodes, not the limit
}
