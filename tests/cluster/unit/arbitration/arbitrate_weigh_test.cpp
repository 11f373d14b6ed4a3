// SPDX-License-Identifier: BSD-3-Clause
// The arbiter's weighing rules on Slurm snapshots (squeue/sinfo's own format): growth into
// idle nodes no waiting job needs, growth trimmed to nodes that run efficiently, and a
// give-back only when it costs the giver less than it buys the waiting job. No Slurm needed.
#include <gtest/gtest.h>

#include <set>

#include "malleable/cluster/cluster.hpp"
#include "slurm_snapshot_util.hpp"

using namespace cluster;
using namespace cluster::slurm;
using namespace slurm_snapshot;

namespace {

// A job on `from` nodes whose iteration follows Amdahl's law with serial fraction
// `serial` (1 s on one node), `left` iterations to go; a resize costs 0.1 s.
GrowthModel amdahl(int from, double serial, int left) {
  return [=](int extra) {
    const auto t = [&](int n) { return serial + (1 - serial) / n; };
    Growth g;
    g.measured_iteration = t(from);
    g.predicted_iteration = t(from + extra);
    g.predicted_resize = 0.1;
    g.iterations_left = left;
    g.saving_s = std::max(0.0, (t(from) - t(from + extra)) * left - 0.1);
    g.pays = g.saving_s > 0;
    g.why = "amdahl";
    return g;
  };
}

}  // namespace

TEST(SlurmArbiterWeigh, IdleNodesNoWaitingJobNeedsAreGrownOntoWithoutRacing) {
  // Job 9 waits for 1 node; node[5-7] idle: node5 is job 9's, node[6-7] left over. Jobs 7
  // and 8 both want to grow.
  const std::string q = "7|RUNNING|2|node[1-2]|a\n8|RUNNING|2|node[3-4]|b\n9|PENDING|1||rigid|Resources\n";
  const ClusterView v = view(q, "node[5-7]");
  auto a = arbitrate(v, {}, job("7", {"node1", "node2"}), amdahl(2, 0.01, 100), 100, opts());
  ASSERT_EQ(a.rule, "bid") << a.plan.why;
  EXPECT_NE(a.plan.why.find("1 job(s) wait, covered"), std::string::npos) << a.plan.why;
  EXPECT_NE(a.plan.why.find("2 idle node(s) left over"), std::string::npos) << a.plan.why;
  // Job 8 bids for the same leftover nodes with a smaller payoff (fewer iterations left).
  auto b = arbitrate(v, a.ledger, job("8", {"node3", "node4"}), amdahl(2, 0.01, 10), 101, opts());
  ASSERT_EQ(b.rule, "bid") << b.plan.why;
  a = arbitrate(v, b.ledger, job("7", {"node1", "node2"}), amdahl(2, 0.01, 100), 105, opts());
  ASSERT_EQ(a.rule, "acquire") << a.plan.why;
  EXPECT_EQ(a.plan.kind, Plan::Kind::Acquire);
  EXPECT_EQ(a.plan.nodes, (std::vector<std::string>{"node6", "node7"}));  // never job 9's node5
  b = arbitrate(v, a.ledger, job("8", {"node3", "node4"}), amdahl(2, 0.01, 10), 106, opts());
  EXPECT_EQ(b.plan.kind, Plan::Kind::None) << b.rule << ": " << b.plan.why;
  EXPECT_EQ(claimed(b.ledger), (std::set<std::string>{"node6", "node7"}));
  // With nothing left over the job stays (no growth into the waiting job's node).
  const auto c = arbitrate(view(q, "node5"), {}, job("7", {"node1", "node2"}), amdahl(2, 0.01, 100), 100, opts());
  EXPECT_EQ(c.rule, "waiting") << c.plan.why;
}

TEST(SlurmArbiterWeigh, GrowthStopsWhereTheAddedNodesRunInefficiently) {
  // Serial fraction 0.2 on 2 nodes: 4 more would run at 40% efficiency, 2 more at 50%.
  const ClusterView v = view("7|RUNNING|2|node[1-2]|a\n", "node[5-8]");
  auto a = arbitrate(v, {}, job("7", {"node1", "node2"}), amdahl(2, 0.2, 100), 100, opts());
  ASSERT_EQ(a.rule, "bid") << a.plan.why;
  a = arbitrate(v, a.ledger, job("7", {"node1", "node2"}), amdahl(2, 0.2, 100), 105, opts());
  ASSERT_EQ(a.rule, "acquire") << a.plan.why;
  EXPECT_EQ(a.plan.nodes, (std::vector<std::string>{"node5", "node6"}));
  EXPECT_NE(a.plan.why.find("2 of 4 free node(s)"), std::string::npos) << a.plan.why;
  // Without the floor it takes all four.
  ArbiterOptions any = opts();
  any.min_growth_efficiency = 0;
  auto b = arbitrate(v, {}, job("7", {"node1", "node2"}), amdahl(2, 0.2, 100), 100, any);
  b = arbitrate(v, b.ledger, job("7", {"node1", "node2"}), amdahl(2, 0.2, 100), 105, any);
  EXPECT_EQ(b.plan.nodes.size(), 4u);
  // Serial fraction 0.6: no growth reaches the floor, the job says so and does not bid.
  const auto c = arbitrate(v, {}, job("7", {"node1", "node2"}), amdahl(2, 0.6, 100), 100, opts());
  EXPECT_EQ(c.rule, "no-payoff") << c.plan.why;
  EXPECT_NE(c.plan.why.find("efficiency"), std::string::npos) << c.plan.why;
  EXPECT_TRUE(c.ledger.entries.empty());
}

TEST(SlurmArbiterWeigh, AGiveBackHappensOnlyWhenItCostsTheGiverLessThanItBuys) {
  // Job 7 on 2 nodes (serial 0.05): giving 1 would make its rest of run 1.9x longer, more
  // than the waiting job can gain from this node (half that rest of run): kept.
  const JobState seven2 = job("7", {"node1", "node2"});
  const auto k = arbitrate(view("7|RUNNING|2|node[1-2]|a\n9|PENDING|1||rigid|Resources\n", ""), {}, seven2,
                           amdahl(2, 0.05, 50), 100, opts());
  EXPECT_EQ(k.rule, "keep") << k.plan.why;
  EXPECT_EQ(k.plan.kind, Plan::Kind::None);
  EXPECT_EQ(k.for_job, "9");
  EXPECT_NE(k.plan.why.find("would cost this job"), std::string::npos) << k.plan.why;
  EXPECT_TRUE(k.ledger.entries.empty());  // neither a promise nor an offer
  // On 4 nodes: 1 node costs it 1.28x of its rest, given; 2 would cost 1.83x, so for a job
  // waiting for 2 it offers only 1 (no over-shrinking).
  const std::string running = "7|RUNNING|4|node[1-4]|a\n";
  const JobState seven = job("7", {"node1", "node2", "node3", "node4"});
  const auto b = arbitrate(view(running + "9|PENDING|1||rigid|Resources\n", ""), {}, seven, amdahl(4, 0.05, 50), 100,
                           opts());
  ASSERT_EQ(b.rule, "give-back") << b.plan.why;
  EXPECT_EQ(b.plan.nodes, (std::vector<std::string>{"node4"}));
  const auto o = arbitrate(view(running + "9|PENDING|2||rigid|Resources\n", ""), {}, seven, amdahl(4, 0.05, 50), 100,
                           opts());
  ASSERT_EQ(o.rule, "offer") << o.plan.why;
  ASSERT_EQ(o.ledger.entries.size(), 1u);
  EXPECT_EQ(o.ledger.entries[0].count, 1);
  // Without the weighing (share 0: always give) the two nodes go.
  ArbiterOptions always = opts();
  always.give_gain_share = 0;
  const auto c = arbitrate(view(running + "9|PENDING|2||rigid|Resources\n", ""), {}, seven, amdahl(4, 0.05, 50), 100,
                           always);
  EXPECT_EQ(c.rule, "give-back") << c.plan.why;
  // A job whose length is unknown is not weighed: it gives as before.
  const auto unknown = amdahl(4, 0.05, 50);
  const GrowthModel no_length = [&](int n) {
    Growth g = unknown(n);
    g.iterations_left = -1;
    return g;
  };
  EXPECT_EQ(arbitrate(view(running + "9|PENDING|2||rigid|Resources\n", ""), {}, seven, no_length, 100, opts()).rule,
            "give-back");
}

TEST(SlurmArbiterWeigh, OffersCountOnlyWhatIsWorthGivingSoNobodyShrinksForAJobThatCannotStart) {
  // Job 9 waits for 3 nodes; 7 and 8 hold 3 each (serial 0.05). Each could give 2, but
  // only 1 is worth it (3 -> 2 nodes: 1.43x its rest; 3 -> 1: 2.7x): offers cover 2 of 3,
  // so neither gives.
  const std::string q = "7|RUNNING|3|node[1-3]|a\n8|RUNNING|3|node[4-6]|b\n9|PENDING|3||rigid|Resources\n";
  const ClusterView v = view(q, "");
  auto a = arbitrate(v, {}, job("7", {"node1", "node2", "node3"}), amdahl(3, 0.05, 50), 100, opts());
  EXPECT_EQ(a.rule, "offer") << a.plan.why;
  auto b = arbitrate(v, a.ledger, job("8", {"node4", "node5", "node6"}), amdahl(3, 0.05, 50), 101, opts());
  EXPECT_EQ(b.rule, "offer") << b.plan.why;
  a = arbitrate(v, b.ledger, job("7", {"node1", "node2", "node3"}), amdahl(3, 0.05, 50), 102, opts());
  EXPECT_EQ(a.rule, "offer") << a.plan.why;
  EXPECT_EQ(a.plan.kind, Plan::Kind::None);
  // One more idle node and the offers cover it: each gives its one node.
  const ClusterView v1 = view(q, "node7");
  a = arbitrate(v1, {}, job("7", {"node1", "node2", "node3"}), amdahl(3, 0.05, 50), 100, opts());
  b = arbitrate(v1, a.ledger, job("8", {"node4", "node5", "node6"}), amdahl(3, 0.05, 50), 101, opts());
  ASSERT_EQ(b.rule, "give-share") << b.plan.why;
  EXPECT_EQ(b.plan.nodes, (std::vector<std::string>{"node6"}));
  a = arbitrate(v1, b.ledger, job("7", {"node1", "node2", "node3"}), amdahl(3, 0.05, 50), 102, opts());
  ASSERT_EQ(a.rule, "give-back") << a.plan.why;
  EXPECT_EQ(a.plan.nodes, (std::vector<std::string>{"node3"}));
}

// Time limits hold: a job is never shrunk so far that its predicted end passes
// its time limit (Slurm kills it there, its work lost). Job 7 on 4 nodes, 50 iterations
// left (Amdahl, serial 0.05): its rest of run is 18.4 s on 3 nodes, 26.4 s on 2 (with the
// shrink). Weighing off (share 0: it would always give).
TEST(SlurmArbiterWeigh, AGiveBackNeverPushesTheJobsPredictedEndPastItsTimeLimit) {
  ArbiterOptions always = opts();
  always.give_gain_share = 0;
  const JobState seven = job("7", {"node1", "node2", "node3", "node4"});
  const auto with_left = [](std::string q, double left) {
    ClusterView v = view(q, "");
    for (auto& j : v.jobs)
      if (j.id == "7") j.time_left = left;
    return v;
  };
  const std::string running = "7|RUNNING|4|node[1-4]|a\n";
  // 20 s left: one node may go, not two; for a job waiting for two it offers one.
  auto r = arbitrate(with_left(running + "9|PENDING|2||rigid|Resources\n", 20), {}, seven, amdahl(4, 0.05, 50), 100, always);
  ASSERT_EQ(r.rule, "offer") << r.plan.why;
  EXPECT_NE(r.plan.why.find("past its time limit (20 s left)"), std::string::npos) << r.plan.why;
  ASSERT_EQ(r.ledger.entries.size(), 1u);
  EXPECT_EQ(r.ledger.entries[0].count, 1);
  r = arbitrate(with_left(running + "9|PENDING|1||rigid|Resources\n", 20), {}, seven, amdahl(4, 0.05, 50), 100, always);
  EXPECT_EQ(r.rule, "give-back") << r.plan.why;
  // 10 s left: not even one; the decision log names the rule.
  r = arbitrate(with_left(running + "9|PENDING|1||rigid|Resources\n", 10), {}, seven, amdahl(4, 0.05, 50), 100, always);
  EXPECT_EQ(r.rule, "time-limit") << r.plan.why;
  EXPECT_EQ(r.plan.kind, Plan::Kind::None);
  EXPECT_TRUE(r.ledger.entries.empty());
  // No limit (UNLIMITED): both go, as before.
  r = arbitrate(with_left(running + "9|PENDING|2||rigid|Resources\n", -1), {}, seven, amdahl(4, 0.05, 50), 100, always);
  EXPECT_EQ(r.rule, "give-back") << r.plan.why;
  EXPECT_EQ(r.plan.nodes.size(), 2u);
  // The job alone (no arbiter): the same rule in its own decision.
  Options o;
  const auto ranks = ranks_on({{"node1", 2}, {"node2", 2}, {"node3", 2}, {"node4", 2}});
  const auto alone = [&](double left) {
    return decide(snapshot_of(with_left(running + "9|PENDING|1||rigid|Resources\n", left), "7"), ranks, o,
                  amdahl(4, 0.05, 50));
  };
  EXPECT_EQ(alone(20).kind, Plan::Kind::GiveBack) << alone(20).why;
  const Plan kept = alone(10);
  EXPECT_EQ(kept.kind, Plan::Kind::None);
  EXPECT_EQ(kept.why.rfind("time-limit: ", 0), 0u) << kept.why;
}

TEST(SlurmArbiterWeigh, TheTimeLimitRuleJudgesNothingWithoutALimitOrAMeasurement) {
  Growth g;
  EXPECT_TRUE(keeps_time_limit(g, 4, 1, 5));  // nothing measured
  g.measured_iteration = 1;
  g.iterations_left = 100;
  EXPECT_TRUE(keeps_time_limit(g, 4, 1, -1));   // no limit
  EXPECT_TRUE(keeps_time_limit(g, 4, 1, 134));  // 100 x 4/3 = 133.3 s, perfect scaling
  std::string why;
  EXPECT_FALSE(keeps_time_limit(g, 4, 1, 133, &why));
  EXPECT_NE(why.find("~133 s, past its time limit (133 s left)"), std::string::npos) << why;
  g.iterations_left = -1;
  EXPECT_TRUE(keeps_time_limit(g, 4, 1, 1));  // unknown length
}
