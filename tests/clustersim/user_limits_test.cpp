// SPDX-License-Identifier: BSD-3-Clause
// Per-user limits (Cluster::set_user_limits: Slurm's QOS MaxJobsPerUser and
// MaxTRESPerUser=node) and the limits read off a log (infer_user_limits). No SimGrid.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cluster.hpp"
#include "swf.hpp"
#include "workload.hpp"

#include "clustersim_test_util.hpp"

using namespace clustersim;

namespace {

// A job of `user` submitted at 0 (clustersim_test_util.hpp).
Job job(std::string id, long user, int nodes, bool malleable = false) {
  Job j = clustersim_test::job(std::move(id), 0, nodes, malleable);
  j.user = user;
  return j;
}

Cluster machine(int nodes, std::vector<Job> jobs, Cluster::UserLimits limits) {
  Workload w;
  w.nodes = nodes;
  w.jobs = std::move(jobs);
  Cluster c(std::move(w));
  c.set_user_limits(limits);
  for (std::size_t j = 0; j < c.workload().jobs.size(); ++j) c.submit(j, 0);
  return c;
}

}  // namespace

TEST(ClusterSimUserLimits, MaxJobsHoldsAJobThatWouldOtherwiseStart) {
  const std::vector<Job> jobs = {job("a", 1, 2), job("b", 1, 2), job("c", 2, 2), job("d", -1, 2)};
  Cluster free = machine(8, jobs, {});
  EXPECT_EQ(free.schedule(0), (std::vector<std::size_t>{0, 1, 2, 3}));  // 8 nodes: all four start
  Cluster c = machine(8, jobs, {1, 0});
  // b is held by its user's one running job (a, started in the same pass) though 2 nodes
  // are idle; c (another user) and d (no user) start past it.
  EXPECT_EQ(c.schedule(0), (std::vector<std::size_t>{0, 2, 3}));
  EXPECT_EQ(c.idle_count(), 2);
  EXPECT_EQ(c.held_reason(1, 0), "QOSMaxJobsPerUserLimit");
  EXPECT_FALSE(c.eligible(1, 0));
  EXPECT_EQ(c.user_limit_held(), 1);
  EXPECT_TRUE(c.schedule(5).empty());  // still held; counted once
  EXPECT_EQ(c.user_limit_held(), 1);
  c.finish(0, 10);  // a ends: b may start
  EXPECT_EQ(c.held_reason(1, 10), "");
  EXPECT_EQ(c.schedule(10), (std::vector<std::size_t>{1}));
}

TEST(ClusterSimUserLimits, MaxNodesHoldsStartsAndCapsGrowthAndRanges) {
  const std::vector<Job> jobs = {job("a", 1, 2, true), job("b", 1, 2), job("c", 2, 3)};
  Cluster c = machine(10, jobs, {0, 3});
  EXPECT_EQ(c.schedule(0), (std::vector<std::size_t>{0, 2}));  // b: 2 + 2 nodes > 3 for user 1
  EXPECT_EQ(c.held_reason(1, 0), "QOSMaxNodePerUserLimit");
  EXPECT_EQ(c.grant(0, 4, 1).size(), 1u);  // a grows to 3 nodes, its user's limit, though 5 are idle
  EXPECT_EQ(c.user_nodes_left(0), 0);
  c.release(0, {c.held(0).back()}, 2);
  EXPECT_EQ(c.user_nodes_left(0), 1);
  EXPECT_TRUE(c.schedule(3).empty());
  c.finish(0, 4);
  EXPECT_EQ(c.schedule(4), (std::vector<std::size_t>{1}));
  // A malleable job on a range starts on what its user has left, not below its minimum.
  Cluster r = machine(10, {job("m", 1, 4, true)}, {0, 3});
  r.set_start_ranges(true);
  r.set_range_top_max(true);  // top 8 nodes, all idle
  EXPECT_EQ(r.schedule(0), (std::vector<std::size_t>{0}));
  EXPECT_EQ(r.held(0).size(), 3u);
  // A job that needs more nodes than the limit could never start: refused.
  Workload w;
  w.nodes = 10;
  w.jobs = {job("big", 1, 4)};
  Cluster big(std::move(w));
  EXPECT_THROW(big.set_user_limits({0, 3}), Error);
  EXPECT_THROW(big.set_user_limits({-1, 0}), Error);
}

// A hand-made log: user 1 runs j1 [0, 100) on 2, j2 [50, 150) on 3 and j3 [100, 200) on 1
// (submitted at 60, waited 40 s while its user ran j1 and j2, its most at once); at 100
// j1's end comes before j3's start, so user 1 never ran 3 at once. User 2 runs j4 [10, 60)
// on 4 after a 10-s wait with nothing running. j5 has no user, j6 no recorded wait.
TEST(ClusterSimUserLimits, InferredFromAHandMadeLog) {
  TraceJobs t;
  t.machine_nodes = 10;
  const auto add = [&t](std::string id, long user, double submit, double wait, double run, int nodes) {
    TraceJob j;
    j.id = std::move(id);
    j.user = user;
    j.submit_s = submit;
    j.wait_s = wait;
    j.run_s = run;
    j.nodes = nodes;
    t.jobs.push_back(j);
  };
  add("j1", 1, 0, 0, 100, 2);
  add("j4", 2, 0, 10, 50, 4);
  add("j2", 1, 50, 0, 100, 3);
  add("j3", 1, 60, 40, 100, 1);
  add("j5", -1, 70, 0, 10, 9);
  add("j6", 3, 80, -1, 10, 9);
  const UserLimitEvidence e = infer_user_limits(t);
  EXPECT_EQ(e.jobs_used, 4u);
  EXPECT_EQ(e.no_user, 1u);
  EXPECT_EQ(e.no_wait, 1u);
  ASSERT_EQ(e.users.size(), 2u);
  const UserPeak& u1 = e.users[0];
  EXPECT_EQ(u1.user, 1);
  EXPECT_EQ(u1.jobs, 3u);
  EXPECT_EQ(u1.peak_jobs, 2);
  EXPECT_EQ(u1.peak_nodes, 5);  // j1 + j2 in [50, 100)
  EXPECT_DOUBLE_EQ(u1.wait_s, 40);
  EXPECT_DOUBLE_EQ(u1.wait_at_peak_s, 40);
  const UserPeak& u2 = e.users[1];
  EXPECT_EQ(u2.user, 2);
  EXPECT_EQ(u2.peak_jobs, 1);
  EXPECT_EQ(u2.peak_nodes, 4);
  EXPECT_DOUBLE_EQ(u2.wait_s, 10);
  EXPECT_DOUBLE_EQ(u2.wait_at_peak_s, 0);  // it waited with nothing running
  EXPECT_EQ(e.max_jobs, 2);
  EXPECT_EQ(e.max_nodes, 5);
  EXPECT_EQ(e.users_at_max_jobs, 1);
  EXPECT_EQ(e.users_at_max_nodes, 1);
}

// Fair-share (Slurm's multifactor priority, Cluster::set_fair_share): user 1 ran the
// whole machine for 1,000 s; its job a, submitted before user 2's job b, starts after b
// when the machine frees, and before it in FCFS (fair-share off).
TEST(ClusterSimFairShare, TheLighterUserStartsFirst) {
  const auto arm = [](bool fair) {
    Workload w;
    w.nodes = 4;
    w.jobs = {job("h", 1, 4), job("a", 1, 4), job("b", 2, 4)};
    Cluster c(std::move(w));
    if (fair) c.set_fair_share({1000, 0, 7 * 86400.0, 7 * 86400.0});
    c.submit(0, 0);
    EXPECT_EQ(c.schedule(0), (std::vector<std::size_t>{0}));
    c.submit(1, 10);
    c.submit(2, 20);
    EXPECT_TRUE(c.schedule(20).empty());
    c.finish(0, 1000);
    return c.schedule(1000);
  };
  EXPECT_EQ(arm(false), (std::vector<std::size_t>{1}));  // FCFS: a, the older
  EXPECT_EQ(arm(true), (std::vector<std::size_t>{2}));   // fair-share: b, whose user used nothing
  // The usage: 4 nodes for 1,000 s, decayed by its half-life; the factors 2^(-U/S).
  Workload w;
  w.nodes = 4;
  w.jobs = {job("h", 1, 4), job("b", 2, 2)};
  Cluster c(std::move(w));
  c.set_fair_share({1000, 100, 1000, 2000});  // half-life 1,000 s, age factor 1 after 2,000 s
  c.submit(0, 0);
  c.schedule(0);
  c.finish(0, 1000);
  c.submit(1, 1000);
  c.schedule(1000);
  EXPECT_NEAR(c.user_usage(1), 4 * 1000 * 1.0, 1e-9);  // accrued at the finish, not yet decayed
  EXPECT_EQ(c.user_usage(2), 0);
  // user 1 holds all the usage: 2^(-1 / 0.5) = 0.25; user 2: 2^0 = 1, its job aged 0 s.
  EXPECT_NEAR(c.priority(0, 1000), 1000 * 0.25 + 100 * 0.5, 1e-9);  // h submitted at 0: aged 1,000 of 2,000 s
  EXPECT_NEAR(c.priority(1, 1000), 1000 * 1.0, 1e-9);
  EXPECT_THROW(c.set_fair_share({-1, 0, 1, 1}), Error);
}
