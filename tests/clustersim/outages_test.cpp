// SPDX-License-Identifier: BSD-3-Clause
// Outages read off a log (infer_outages) and held by the cluster's state (a drain: nodes
// leave the idle pool as their jobs end, come back at the outage's end). No SimGrid.
#include <gtest/gtest.h>

#include <limits>
#include <vector>

#include "cluster.hpp"
#include "outages.hpp"
#include "periods.hpp"
#include "swf.hpp"

using namespace clustersim;

namespace {

TraceJobs log_of(std::vector<TraceJob> jobs, int machine) {
  TraceJobs t;
  t.machine_nodes = machine;
  t.jobs = std::move(jobs);
  return t;
}

TraceJob tj(double submit, double wait, double run, int nodes) {
  TraceJob j;
  j.submit_s = submit;
  j.wait_s = wait;
  j.run_s = run;
  j.nodes = nodes;
  return j;
}

Job rigid(int nodes, double run) {
  Job j;
  j.id = std::to_string(nodes);
  j.id += "x";
  j.id += std::to_string(static_cast<int>(run));
  j.nodes = j.min_nodes = j.max_nodes = nodes;
  j.work_node_s = run * nodes;
  return j;
}

}  // namespace

// a: runs [0, 100); b: submitted at 100, starts at 5,000 (nothing ran while it waited for
// 4,900 s: an outage); c: submitted at 5,100, waits 10 s with b running (no outage); d:
// submitted at 6,000, waits 600 s with nothing running: under min_s, left out; e: submitted
// last at 7,000; f has no recorded wait.
TEST(ClusterSimOutages, SpellsOfNothingRunningWithAQueue) {
  const TraceJobs t = log_of({tj(0, 0, 100, 2), tj(100, 4900, 500, 4), tj(5100, 10, 100, 1), tj(6000, 600, 50, 1),
                              tj(7000, 0, 10, 1), tj(7000, -1, 10, 1)},
                             8);
  const OutageEvidence e = infer_outages(t, 1000);
  ASSERT_EQ(e.outages.size(), 1u);
  EXPECT_EQ(e.outages[0], (Outage{100, 5000, 8}));
  EXPECT_DOUBLE_EQ(e.down_s, 4900);
  EXPECT_EQ(e.shorter, 1u);
  EXPECT_DOUBLE_EQ(e.shorter_s, 600);
  EXPECT_EQ(e.no_wait, 1u);
  // With a shorter threshold both spells count.
  EXPECT_EQ(infer_outages(t, 100).outages.size(), 2u);
}

// A job that waits past the window's last submission (it waits for jobs the window left
// out) is no outage after that submission; a spell open then ends there.
TEST(ClusterSimOutages, CutAtTheLastSubmission) {
  const TraceJobs t = log_of({tj(0, 50000, 10, 1), tj(2000, 0, 10, 1)}, 4);
  const OutageEvidence e = infer_outages(t, 100);
  ASSERT_EQ(e.outages.size(), 1u);
  EXPECT_EQ(e.outages[0], (Outage{0, 2000, 4}));
}

// Windows whose queue never emptied: the machine less the log's peak is down; a window
// with an empty queue at some moment has none.
TEST(ClusterSimOutages, PartialWindows) {
  // Window [0, 100): a runs 6 of 8 nodes for 100 s while b (4 nodes) waits all the time:
  // 2 nodes down. Window [100, 200): b runs, the queue is empty: none.
  const TraceJobs t = log_of({tj(0, 0, 100, 6), tj(0, 100, 50, 4), tj(150, 0, 10, 1)}, 8);
  const OutageEvidence e = infer_outages(t, 1e9, 100);
  ASSERT_EQ(e.outages.size(), 1u);
  EXPECT_EQ(e.outages[0], (Outage{0, 100, 2}));
  EXPECT_EQ(e.partial, 1u);
  EXPECT_DOUBLE_EQ(e.partial_node_s, 200);
}

// With the site's prime-time rule a job counts as waiting only while the rule lets it
// start: a 10-h job submitted Monday 09:00 may start at 17:00 (the night, until Tuesday
// 08:00); the log ran nothing from 09:00 to 18:00 and started it at 18:00. Without the rule
// the whole spell is an outage; with it only 17:00-18:00 (the rule held it before), and
// with a window of the day only the hour it could have run counts as waiting, so the
// window's queue emptied (no partial outage).
TEST(ClusterSimOutages, OnlyJobsTheRulesLetStartWait) {
  constexpr double kH = 3600;
  TraceJobs t = log_of({tj(9 * kH, 9 * kH, 10 * kH, 4), tj(23 * kH, 0, kH, 1)}, 8);
  t.jobs[0].requested_s = 10 * kH;
  t.jobs[1].requested_s = kH;
  PeriodPolicy rules;
  rules.on = true;
  rules.origin = 1704067200;  // Monday 1 January 2024, 00:00 UTC: simulated 0
  const OutageEvidence off = infer_outages(t, 1800);
  ASSERT_EQ(off.outages.size(), 1u);
  EXPECT_EQ(off.outages[0], (Outage{9 * kH, 18 * kH, 8}));
  const OutageEvidence on = infer_outages(t, 1800, 0, &rules);
  ASSERT_EQ(on.outages.size(), 1u);
  EXPECT_EQ(on.outages[0], (Outage{17 * kH, 18 * kH, 8}));
  EXPECT_EQ(infer_outages(t, 2 * kH, 0, &rules).outages.size(), 0u);  // one hour: under the threshold
  // A job the rule never lets start while it waits (a 3-h job submitted at 14:30, started
  // at 17:00 with nothing running) is no outage at all.
  TraceJobs late = log_of({tj(14.5 * kH, 2.5 * kH, 3 * kH, 2), tj(23 * kH, 0, kH, 1)}, 8);
  late.jobs[0].requested_s = 3 * kH;
  late.jobs[1].requested_s = kH;
  EXPECT_EQ(infer_outages(late, 1800).outages.size(), 1u);
  EXPECT_EQ(infer_outages(late, 1800, 0, &rules).outages.size(), 0u);
  // Switched off, the rule changes nothing.
  rules.on = false;
  EXPECT_EQ(infer_outages(t, 1800, 0, &rules).outages, off.outages);
}

TEST(ClusterSimOutages, NodesDownAndCuts) {
  const std::vector<Outage> o = {{10, 20, 3}, {15, 30, 4}};
  EXPECT_EQ(nodes_down(o, 5, 8), 0);
  EXPECT_EQ(nodes_down(o, 10, 8), 3);
  EXPECT_EQ(nodes_down(o, 16, 8), 7);
  EXPECT_EQ(nodes_down(o, 16, 5), 5);
  EXPECT_EQ(nodes_down(o, 20, 8), 4);
  EXPECT_DOUBLE_EQ(next_outage_cut(o, 0), 10);
  EXPECT_DOUBLE_EQ(next_outage_cut(o, 15), 20);
  EXPECT_EQ(next_outage_cut(o, 30), std::numeric_limits<double>::infinity());
}

// The cluster drains: at the outage's start a running job keeps its nodes, the idle ones
// go down; a job that fits the whole machine does not start until the outage ends; the
// running job's nodes go down as it ends.
TEST(ClusterSimOutages, TheClusterDrainsAndGivesBack) {
  Workload w;
  w.nodes = 4;
  w.jobs = {rigid(2, 100), rigid(1, 10)};
  Cluster c(std::move(w));
  c.set_outages({{50, 200, 4}});
  c.submit(0, 0);
  EXPECT_EQ(c.schedule(0), (std::vector<std::size_t>{0}));
  c.apply_outages(50);
  EXPECT_EQ(c.idle_count(), 0);
  EXPECT_EQ(c.down_count(), 2);
  c.submit(1, 60);
  EXPECT_TRUE(c.schedule(60).empty());
  c.finish(0, 100);
  EXPECT_EQ(c.idle_count(), 0);  // its nodes went down as it ended
  EXPECT_EQ(c.down_count(), 4);
  EXPECT_TRUE(c.schedule(100).empty());
  EXPECT_EQ(c.schedule(200), (std::vector<std::size_t>{1}));
  EXPECT_EQ(c.down_count(), 0);
  EXPECT_EQ(c.idle_count(), 3);
  EXPECT_THROW(c.set_outages({{5, 5, 1}}), Error);
}
