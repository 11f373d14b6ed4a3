// SPDX-License-Identifier: BSD-3-Clause
// The time-limit rule (sim/src/time_limit.hpp) and where the simulator applies it without
// SimGrid: a job's predicted end against its limit, the fewest nodes that keep it, a
// malleable job's start range narrowed by its limit, the moldable arm's fair range (it may
// start anywhere a malleable job may reach), and the job model's communication term.
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

#include "cluster.hpp"
#include "time_limit.hpp"
#include "workload.hpp"

using namespace clustersim;

namespace {

Job malleable(std::string id, int nodes, double work, double limit) {
  Job j;
  j.id = std::move(id);
  j.nodes = nodes;
  j.min_nodes = std::max(1, nodes / 2);
  j.max_nodes = 2 * nodes;
  j.malleable = true;
  j.work_node_s = work;
  j.iterations = 10;
  j.limit_s = limit;
  return j;
}

}  // namespace

TEST(ClusterSimTimeLimit, PredictedEndAgainstTheLimit) {
  // 10 iterations of 5 s, 1 s outside the work each, after a 3-s shrink at t = 100.
  const EndPrediction p{100, 3, 5, 1, 10};
  EXPECT_DOUBLE_EQ(p.end(), 163);
  EXPECT_TRUE(keeps_limit(p, 163).ok);  // reaching the limit is allowed
  const LimitVerdict v = keeps_limit(p, 162.5);
  EXPECT_FALSE(v.ok);
  EXPECT_DOUBLE_EQ(v.predicted_end, 163);
  EXPECT_NE(v.why.find("past the time limit"), std::string::npos) << v.why;
  EXPECT_TRUE(keeps_limit(p, kNoLimit).ok);
  EXPECT_TRUE(keeps_limit(EndPrediction{}, 0).ok);  // nothing left: ends now
}

TEST(ClusterSimTimeLimit, FewestNodesThatKeepTheLimit) {
  // 400 node-seconds left from t = 50, perfect scaling: the end on n nodes is 50 + 400 / n.
  const auto end = [](int n) { return 50 + 400.0 / n; };
  EXPECT_EQ(fewest_within(1, 8, 250, end), 2);  // 250 on 2 nodes: exactly the limit
  EXPECT_EQ(fewest_within(1, 8, 249, end), 3);
  EXPECT_EQ(fewest_within(1, 8, 1e9, end), 1);
  EXPECT_EQ(fewest_within(3, 8, kNoLimit, end), 3);  // no limit: the floor it had
  EXPECT_EQ(fewest_within(1, 4, 100, end), 4);       // none keeps it: it keeps what it has
  // Not monotone (a resize that costs more the further it goes): the fewest that keeps it.
  const auto dear = [](int n) { return n == 4 ? 100.0 : n == 3 ? 300.0 : 150.0; };
  EXPECT_EQ(fewest_within(1, 4, 200, dear), 1);
  EXPECT_THROW(fewest_within(0, 4, 1, end), std::invalid_argument);
  EXPECT_THROW(fewest_within(3, 2, 1, end), std::invalid_argument);
}

// A malleable job may start below its request only on nodes on which its predicted run
// keeps its limit: 800 node-seconds (perfect scaling), asked for 4 nodes ([2, 8]).
TEST(ClusterSimTimeLimit, StartRangeNarrowedByTheLimit) {
  const Job tight = malleable("tight", 4, 800, 300);  // 200 s on 4, 266.7 on 3, 400 on 2
  const Job loose = malleable("loose", 4, 800, 500);  // even 2 nodes keep it
  Job none = malleable("none", 4, 800, 0);            // no limit
  Cluster c(Workload{"", 0, 16, 0.5, 1, {tight, loose, none}});
  c.set_start_ranges(true);
  EXPECT_EQ(c.start_floor(0), 2);  // limits not kept: the range's minimum
  c.set_time_limits(true);
  EXPECT_EQ(c.start_floor(0), 3);
  EXPECT_TRUE(c.start_narrowed(0));
  EXPECT_EQ(c.start_floor(1), 2);
  EXPECT_FALSE(c.start_narrowed(1));
  EXPECT_EQ(c.start_floor(2), 2);
  c.set_time_limits(true, 7);  // 7 s outside the work per iteration: 266.7 + 70 > 300
  EXPECT_EQ(c.start_floor(0), 4);
  // 13 busy nodes of 16: the tight job starts on the 3 idle ones (its floor), and the
  // loose one, next, finds none.
  Job big;
  big.id = "big";
  big.nodes = big.min_nodes = big.max_nodes = 13;
  big.work_node_s = 13000;
  Cluster d(Workload{"", 0, 16, 0.5, 1, {big, tight, loose}});
  d.set_start_ranges(true);
  d.set_time_limits(true);
  d.submit(0, 0);
  d.submit(1, 0);
  d.submit(2, 0);
  d.schedule(0);
  EXPECT_EQ(d.held(1).size(), 3u);
  EXPECT_FALSE(d.running(2));
}

// The fair arms: with the range's top at max_nodes, a job that is never resized (the
// moldable arm) starts anywhere a malleable job may reach, up to twice its request.
TEST(ClusterSimTimeLimit, MoldableMayStartAnywhereAMalleableJobReaches) {
  const Job m = malleable("m", 3, 300, 0);  // [1, 6]
  Cluster wide(Workload{"", 0, 8, 1, 1, {m}});
  wide.set_start_ranges(true);
  wide.set_range_top_max(true);
  EXPECT_EQ(wide.range_top(0), 6);
  wide.submit(0, 0);
  wide.schedule(0);
  EXPECT_EQ(wide.held(0).size(), 6u);
  Cluster narrow(Workload{"", 0, 8, 1, 1, {m}});
  narrow.set_start_ranges(true);
  EXPECT_EQ(narrow.range_top(0), 3);
  narrow.submit(0, 0);
  narrow.schedule(0);
  EXPECT_EQ(narrow.held(0).size(), 3u);
}

TEST(ClusterSimTimeLimit, CommunicationTermAndKillLimit) {
  Job j = malleable("c", 4, 100, 50);
  j.serial_fraction = 0.1;
  j.comm_fraction = 0.02;
  EXPECT_DOUBLE_EQ(j.runtime_s(1), 100 * (0.1 + 0.9));
  EXPECT_NEAR(j.runtime_s(8), 100 * (0.1 + 0.9 / 8 + 0.02 * 3), 1e-12);
  EXPECT_DOUBLE_EQ(j.kill_limit_s(), 50);
  j.run_limit_s = 40;  // lowered by the runner at the start
  EXPECT_DOUBLE_EQ(j.kill_limit_s(), 40);
  const std::string text =
      R"({"nodes":4,"jobs":[{"id":"a","submit_s":0,"nodes":2,"min_nodes":1,"max_nodes":4,"malleable":true,)"
      R"("work_node_s":10,"serial_fraction":0.1,"comm_fraction":0.03,"iterations":2}]})";
  const Workload w = parse_workload(text);
  EXPECT_DOUBLE_EQ(w.jobs[0].comm_fraction, 0.03);
  EXPECT_DOUBLE_EQ(parse_workload(workload_json(w)).jobs[0].comm_fraction, 0.03);
  std::string bad = text;
  bad.replace(bad.find("0.03"), 4, "1.50");
  EXPECT_THROW(parse_workload(bad), Error);
}

// The moldable arm's efficient range: up to the largest size whose added nodes run at the
// growth's own efficiency floor (0.5), not always twice the request.
TEST(ClusterSimTimeLimit, EfficientRangeTop) {
  Job m = malleable("m", 4, 400, 0);  // [2, 8]
  m.serial_fraction = 0.15;  // T(n) ~ 0.15 + 0.85/n: 5 nodes run their added one at 0.53, 6 at 0.49
  Cluster c(Workload{"", 0, 16, 1, 1, {m}});
  c.set_start_ranges(true);
  c.set_range_top_efficient(0.5);
  // gain(m) = T(4)/T(m) - 1 over (m-4)/4, as the growth weighs it
  int expect = 4;
  for (int k = 5; k <= 8; ++k)
    if ((m.runtime_s(4) / m.runtime_s(k) - 1) / ((k - 4) / 4.0) >= 0.5) expect = k;
  EXPECT_EQ(c.range_top(0), expect);
  EXPECT_EQ(expect, 5);
  EXPECT_LT(expect, 8);  // twice the request would run its added nodes below 0.5
  m.serial_fraction = 0;  // perfect scaling: every added node is worth it
  Cluster d(Workload{"", 0, 16, 1, 1, {m}});
  d.set_start_ranges(true);
  d.set_range_top_efficient(0.5);
  EXPECT_EQ(d.range_top(0), 8);
}

// The lever that lets the limit follow the size (--limit-follows-size): a range starts down
// to its minimum whatever its limit, the limit on fewer nodes is scaled by the model's time
// there, never lowered above the request, and the backfilling plans with the scaled limit.
TEST(ClusterSimTimeLimit, LimitFollowsTheSize) {
  const Job tight = malleable("tight", 4, 800, 300);  // 200 s on 4, 266.7 on 3, 400 on 2
  Job rigid;
  rigid.id = "rigid";
  rigid.nodes = rigid.min_nodes = rigid.max_nodes = 2;
  rigid.work_node_s = 200;
  rigid.limit_s = 150;
  Cluster c(Workload{"", 0, 16, 0.5, 1, {tight, rigid}});
  c.set_start_ranges(true);
  c.set_time_limits(true);
  EXPECT_EQ(c.start_floor(0), 3);
  EXPECT_DOUBLE_EQ(c.limit_on(0, 2), 300);  // the lever off: the limit on any size
  c.set_limit_follows_size(true);
  EXPECT_TRUE(c.limit_follows_size());
  EXPECT_EQ(c.start_floor(0), 2);  // the range's minimum
  EXPECT_FALSE(c.start_narrowed(0));
  EXPECT_DOUBLE_EQ(c.limit_on(0, 2), 600);  // 300 s x T(2) / T(4)
  EXPECT_NEAR(c.limit_on(0, 3), 400, 1e-9);
  EXPECT_DOUBLE_EQ(c.limit_on(0, 4), 300);
  EXPECT_DOUBLE_EQ(c.limit_on(0, 8), 300);  // more nodes than asked: the limit stays
  EXPECT_DOUBLE_EQ(c.limit_on(1, 2), 150);  // a rigid job: its size never changes
  c.set_limit_follows_size(false);
  EXPECT_EQ(c.start_floor(0), 3);

  // The backfilling's estimate on fewer nodes than the limit was asked for.
  Waiting w{"w", 4, 300, 2, 0, true, 0, 4};
  EXPECT_DOUBLE_EQ(w.estimate_on(2), 600);
  EXPECT_DOUBLE_EQ(w.estimate_on(4), 300);
  w.limit_nodes = 0;
  EXPECT_DOUBLE_EQ(w.estimate_on(2), 300);

  // 14 busy nodes of 16: the tight job starts on 2 (its minimum), planned to end at its
  // scaled limit, and the extension of a running job's limit moves its planned end.
  Job big;
  big.id = "big";
  big.nodes = big.min_nodes = big.max_nodes = 14;
  big.work_node_s = 14000;
  Cluster d(Workload{"", 0, 16, 0.5, 1, {big, tight}});
  d.set_start_ranges(true);
  d.set_time_limits(true);
  d.set_limit_follows_size(true);
  d.submit(0, 0);
  d.submit(1, 0);
  d.schedule(0);
  ASSERT_TRUE(d.running(1));
  EXPECT_EQ(d.held(1).size(), 2u);
  EXPECT_DOUBLE_EQ(d.estimated_end(1), 600);
  d.extend_limit(1, 50);
  EXPECT_DOUBLE_EQ(d.estimated_end(1), 650);
  d.extend_limit(1, -5);  // never shortened
  EXPECT_DOUBLE_EQ(d.estimated_end(1), 650);
}

// One rule at a start below the request, one code with the arbiter's: the simulator's
// limit on the smaller size (Cluster::limit_on, --limit-follows-size) and the raise the
// daemon makes for a job Slurm started below the top of its range (limits::raise_at_start,
// --extend-limits on; tests/cluster/unit/daemon/start_limit_test.cpp) give the same seconds
// for the same job, the daemon's in Slurm's whole minutes within the cap.
TEST(ClusterSimTimeLimit, AStartBelowTheRequestTheSimulatorAndTheArbiterAgree) {
  Job amdahl = malleable("amdahl", 4, 800, 300);  // 300 s asked on 4 nodes, 10% serial
  amdahl.serial_fraction = 0.1;
  Cluster c(Workload{"", 0, 16, 0.5, 1, {amdahl}});
  c.set_start_ranges(true);
  c.set_time_limits(true);
  c.set_limit_follows_size(true);
  for (int n = 2; n <= 3; ++n) {
    const auto raise = cluster::limits::raise_at_start(300, n, 4, amdahl.iteration_s(n), amdahl.iteration_s(4));
    ASSERT_TRUE(raise.has_value()) << n;
    EXPECT_DOUBLE_EQ(c.limit_on(0, n), 300 + raise->by_s) << n;
    EXPECT_EQ(raise->old_min, 5);
    const auto up = static_cast<long>(std::ceil(c.limit_on(0, n) / 60)), cap = static_cast<long>(300 * 4 / n / 60);
    EXPECT_EQ(raise->new_min, std::min(up, cap)) << n;  // Slurm's minutes: rounded up, within the cap
    EXPECT_DOUBLE_EQ(raise->cut_s, 0);  // no model of the workload passes perfect scaling
  }
  // on 2 of 4: 300 x (0.1 + 0.45) / (0.1 + 0.225) = 507.7 s: 9 minutes (the cap 600 s)
  EXPECT_EQ(cluster::limits::raise_at_start(300, 2, 4, amdahl.iteration_s(2), amdahl.iteration_s(4))->new_min, 9);
  // at its request or above, no model, a job whose smaller size runs faster
  EXPECT_DOUBLE_EQ(c.limit_on(0, 4), 300);
  EXPECT_FALSE(cluster::limits::raise_at_start(300, 4, 4, 1, 1));
  EXPECT_DOUBLE_EQ(cluster::limits::limit_at_start(300, 2, 4, -1, -1).limit_s, 600);  // no model: the cap
  EXPECT_FALSE(cluster::limits::raise_at_start(300, 2, 4, 1, 2));  // faster on 2: never lowered
  EXPECT_DOUBLE_EQ(cluster::limits::limit_at_start(300, 2, 4, 1, 2).limit_s, 150);  // the simulator keeps it
}

// The extension of a give-back: what is left of the limit scaled by the new size's
// iteration over the old one's, plus the resize; cut at the cap (the limit on the job's
// minimum size): a job that grew from 4 to 8 nodes and gives 4 back gets back only what
// the cap leaves; never shortened, nothing without a limit or past it.
TEST(ClusterSimTimeLimit, ExtensionFollowsTheSizeUpToTheCap) {
  // 1,000 s left, iterations 2 s on the old size and 3 s on the new, a 10-s resize: +510 s.
  LimitExtension e = extend_with_size(100, 1100, kNoLimit, 2, 3, 10);
  EXPECT_DOUBLE_EQ(e.by_s, 510);
  EXPECT_DOUBLE_EQ(e.cut_s, 0);  // not capped
  e = extend_with_size(100, 1100, 1400, 2, 3, 10);  // the cap leaves 300 s
  EXPECT_DOUBLE_EQ(e.by_s, 300);
  EXPECT_DOUBLE_EQ(e.cut_s, 210);  // capped
  e = extend_with_size(100, 1100, 1000, 2, 3, 10);  // already past the cap (it grew first): nothing, never shorter
  EXPECT_DOUBLE_EQ(e.by_s, 0);
  EXPECT_DOUBLE_EQ(e.cut_s, 510);  // capped
  EXPECT_DOUBLE_EQ(extend_with_size(100, kNoLimit, kNoLimit, 2, 3, 10).by_s, 0);  // no limit
  EXPECT_DOUBLE_EQ(extend_with_size(1200, 1100, kNoLimit, 2, 3, 10).by_s, 0);     // past it
  EXPECT_DOUBLE_EQ(extend_with_size(100, 1100, kNoLimit, 2, 2, 0).by_s, 0);        // the same speed
}

// Slurm's own start of a range (set_start_guard(false), --range-start slurm): sbatch -N
// min-top starts the job on whatever of its range is idle, down to its minimum, whatever
// its limit, and the limit stays as submitted even when it follows the size (the arbiter's
// --extend-limits on raises it only at a give-back); the cap of such a raise is untouched.
TEST(ClusterSimTimeLimit, SlurmStartsARangeWhateverItsLimit) {
  const Job tight = malleable("tight", 4, 800, 300);  // [2, 8]: 400 s on 2 nodes, past its 300-s limit
  Job big;
  big.id = "big";
  big.nodes = big.min_nodes = big.max_nodes = 14;
  big.work_node_s = 14000;
  const auto run = [&](bool guard, bool follows) {
    Cluster c(Workload{"", 0, 16, 0.5, 1, {big, tight}});
    c.set_start_ranges(true);
    c.set_time_limits(true);
    c.set_limit_follows_size(follows);
    c.set_start_guard(guard);
    c.submit(0, 0);
    c.submit(1, 0);
    c.schedule(0);
    return c;
  };
  const Cluster guarded = run(true, false);  // 2 idle nodes, its floor 3: it waits
  EXPECT_EQ(guarded.start_floor(1), 3);
  EXPECT_FALSE(guarded.running(1));
  const Cluster slurm = run(false, false);
  EXPECT_EQ(slurm.start_floor(1), 2);
  EXPECT_FALSE(slurm.start_narrowed(1));
  ASSERT_TRUE(slurm.running(1));
  EXPECT_EQ(slurm.held(1).size(), 2u);
  EXPECT_DOUBLE_EQ(slurm.estimated_end(1), 300);  // planned to end at its limit, not its 400-s run
  EXPECT_DOUBLE_EQ(slurm.start_limit(1, 2), 300);
  const Cluster scaled = run(true, true);  // the lever as the simulator has it: scaled at the start
  ASSERT_TRUE(scaled.running(1));
  EXPECT_DOUBLE_EQ(scaled.estimated_end(1), 600);
  const Cluster raised_at_give_back = run(false, true);
  ASSERT_TRUE(raised_at_give_back.running(1));
  EXPECT_EQ(raised_at_give_back.held(1).size(), 2u);
  EXPECT_DOUBLE_EQ(raised_at_give_back.estimated_end(1), 300);
  EXPECT_DOUBLE_EQ(raised_at_give_back.start_limit(1, 2), 300);
  EXPECT_DOUBLE_EQ(raised_at_give_back.limit_on(1, 2), 600);  // a give-back's cap still scales
}
