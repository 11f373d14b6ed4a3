// SPDX-License-Identifier: BSD-3-Clause
// Many malleable jobs under one Slurm: arbitrate() on Slurm snapshots in
// squeue/sinfo's own output format (several jobs, races for the same idle nodes, refusals,
// expiry of a dead job's claim, over-shrink and oscillation), and the text of the shared
// cluster view and ledger. No Slurm needed.
#include <gtest/gtest.h>

#include <filesystem>
#include <system_error>
#include <fstream>
#include <map>
#include <set>

#include <stdlib.h>

#include "malleable/cluster/cluster.hpp"
#include "slurm_snapshot_util.hpp"

using namespace cluster::slurm;
using namespace slurm_snapshot;

namespace {

// squeue -h --sort=V -o '%i|%T|%D|%N|%j|%r|%k' (the reason and comment optional) and sinfo -h -t idle -o %N, as Slurm 22.05 prints
// them on the emulated cluster: jobs 7 and 8 malleable on node[1-2] and node[3-4],
// node[5-6] idle.
const char* kTwoJobs = "7|RUNNING|2|node[1-2]|pdgemm\n8|RUNNING|2|node[3-4]|jacobi\n";

GrowthModel saving(double seconds_per_node) {
  return [seconds_per_node](int n) {
    Growth g;
    g.pays = seconds_per_node > 0;
    g.saving_s = seconds_per_node * n;
    g.why = "model";
    return g;
  };
}

}  // namespace

TEST(SlurmArbiter, ViewAndSnapshotFromSlurmOutput) {
  ClusterView v = view(std::string(kTwoJobs) +
                           "9|PENDING|1||rigid|Resources\n10|PENDING|1||malleable-expand|None\n"
                           "11|PENDING|1||after|Dependency\n",
                       "node[5-6]");
  EXPECT_EQ(v.jobs.size(), 5u);
  EXPECT_EQ(v.jobs[4].reason, "Dependency");
  EXPECT_EQ(v.jobs[3].name, "malleable-expand");
  // A name says nothing (any user may name a job "malleable-..."): job 10 waits as any job
  // does until the record of whoever submitted it names it an expander (ClusterView::expanders).
  EXPECT_EQ(snapshot_of(v, "7").pending.size(), 2u);
  v.expanders = {"10"};
  const Snapshot s = snapshot_of(v, "7");
  EXPECT_EQ(s.mine.node_list, (std::vector<std::string>{"node1", "node2"}));
  // An expander job by its id and a job waiting for another job wait for no node.
  ASSERT_EQ(s.pending.size(), 1u);
  EXPECT_EQ(s.pending[0].id, "9");
  EXPECT_EQ(s.idle, (std::vector<std::string>{"node5", "node6"}));
  EXPECT_THROW(snapshot_of(v, "99"), cluster::Error);
  const ClusterView back = parse_view(format_view(v));
  EXPECT_EQ(back.taken_at, v.taken_at);
  EXPECT_EQ(back.idle, v.idle);
  ASSERT_EQ(back.jobs.size(), v.jobs.size());
  EXPECT_EQ(back.jobs[1].node_list, v.jobs[1].node_list);
  EXPECT_EQ(back.jobs[2].name, "rigid");
  EXPECT_EQ(back.jobs[4].reason, "Dependency");
  EXPECT_THROW(parse_view("idle -\n"), cluster::Error);
  EXPECT_THROW(parse_view("taken x\nidle -\n"), cluster::Error);
  EXPECT_TRUE(parse_view(format_view(view("", ""))).idle.empty());
}

TEST(SlurmArbiter, LedgerTextRoundTripsAndRejectsBadLines) {
  Ledger l;
  l.entries.push_back(LedgerEntry{LedgerEntry::Kind::Bid, "7", "", {}, 2, 12.5, 100, 120});
  l.entries.push_back(LedgerEntry{LedgerEntry::Kind::Claim, "8", "", {"node5", "node6"}, 2, 3, 101, 161});
  l.entries.push_back(LedgerEntry{LedgerEntry::Kind::Promise, "7", "9", {"node2"}, 1, 0, 102, 1002});
  l.entries.push_back(LedgerEntry{LedgerEntry::Kind::Offer, "8", "9", {}, 1, 0, 102, 122});
  EXPECT_EQ(parse_ledger(format_ledger(l)).entries, l.entries);
  EXPECT_THROW(parse_ledger("grab 7 - 1 0 0 0 -\n"), cluster::Error);
  EXPECT_THROW(parse_ledger("bid 7 - 1 0 0\n"), cluster::Error);
  EXPECT_THROW(parse_ledger("bid 7 - -1 0 0 0 -\n"), cluster::Error);
  EXPECT_THROW(parse_ledger("claim 7 - 1 0 0 0 node[\n"), cluster::Error);
  EXPECT_TRUE(parse_ledger("\n").entries.empty());
}

TEST(SlurmArbiter, TwoJobsRacingForTheSameIdleNodesNeverShareOne) {
  // Both see node[5-6] idle in the same (cached) view; each wants both.
  const ClusterView v = view(kTwoJobs, "node[5-6]");
  Ledger l;
  auto a = arbitrate(v, l, job("7", {"node1", "node2"}), saving(10), 100, opts());
  EXPECT_EQ(a.rule, "bid");
  auto b = arbitrate(v, a.ledger, job("8", {"node3", "node4"}), saving(10), 100.5, opts());
  EXPECT_EQ(b.rule, "bid");
  // After the window: equal payoff, the lower job id first; it claims both nodes.
  a = arbitrate(v, b.ledger, job("7", {"node1", "node2"}), saving(10), 104.2, opts());
  ASSERT_EQ(a.rule, "acquire") << a.plan.why;
  EXPECT_EQ(a.plan.nodes, (std::vector<std::string>{"node5", "node6"}));
  EXPECT_EQ(a.plan.acquire, 2);
  EXPECT_EQ(claimed(a.ledger), (std::set<std::string>{"node5", "node6"}));
  // Job 8, still on the same view (the nodes look idle), finds them claimed.
  b = arbitrate(v, a.ledger, job("8", {"node3", "node4"}), saving(10), 104.6, opts());
  EXPECT_EQ(b.plan.kind, Plan::Kind::None);
  EXPECT_EQ(b.rule, "no-idle");
}

TEST(SlurmArbiter, GrowthGoesToTheBestPayoffAndFreeNodesAreSplitInThatOrder) {
  const ClusterView v = view(kTwoJobs, "node[5-7]");
  Ledger l = arbitrate(v, {}, job("7", {"node1", "node2"}), saving(2), 100, opts()).ledger;  // bids first
  l = arbitrate(v, l, job("8", {"node3", "node4"}), saving(30), 101, opts()).ledger;
  // Job 7's bid is older, but job 8's saving per node is larger: 8 first.
  auto a = arbitrate(v, l, job("7", {"node1", "node2"}, 1, 3), saving(2), 104.5, opts());  // 7 wants 1 (max 3)
  EXPECT_EQ(a.rule, "outbid") << a.plan.why;
  EXPECT_NE(a.plan.why.find("8 ("), std::string::npos) << a.plan.why;
  auto b = arbitrate(v, a.ledger, job("8", {"node3", "node4"}, 1, 4), saving(30), 105, opts());  // 8 wants 2
  ASSERT_EQ(b.rule, "acquire") << b.plan.why;
  EXPECT_EQ(b.plan.nodes, (std::vector<std::string>{"node5", "node6"}));
  // Job 7 then gets what is left, the node no better bid takes.
  a = arbitrate(v, b.ledger, job("7", {"node1", "node2"}, 1, 3), saving(2), 106, opts());
  ASSERT_EQ(a.rule, "acquire") << a.plan.why;
  EXPECT_EQ(a.plan.nodes, (std::vector<std::string>{"node7"}));
}

TEST(SlurmArbiter, ADeadJobsClaimExpiresAndARefusalSettlesTheLedger) {
  const ClusterView v = view(kTwoJobs, "node[5-6]");
  Ledger l;
  l.entries.push_back(LedgerEntry{LedgerEntry::Kind::Claim, "5", "", {"node5", "node6"}, 2, 1, 40, 100});
  l.entries.push_back(LedgerEntry{LedgerEntry::Kind::Bid, "8", "", {}, 2, 1, 90, 99});  // 8 died too
  auto a = arbitrate(v, l, job("7", {"node1", "node2"}), saving(1), 99, opts());
  EXPECT_EQ(a.rule, "no-idle");  // job 5's claim still holds
  a = arbitrate(v, a.ledger, job("7", {"node1", "node2"}), saving(1), 100, opts());
  EXPECT_EQ(a.rule, "bid");
  EXPECT_EQ(a.ledger.entries.size(), 1u);  // the expired claim and bid are gone
  a = arbitrate(v, a.ledger, job("7", {"node1", "node2"}), saving(1), 104, opts());
  ASSERT_EQ(a.rule, "acquire");
  // Slurm refused: settle() drops the claim and the bid; the next try bids anew.
  const Ledger after = settle(a.ledger, "7");
  EXPECT_TRUE(after.entries.empty());
  EXPECT_EQ(arbitrate(v, after, job("7", {"node1", "node2"}), saving(1), 105, opts()).rule, "bid");
  // Granted: on the cached view the nodes still look idle, the claim keeps everybody off
  // them, this job too; a view taken later shows them the job's and ends the claim.
  EXPECT_EQ(arbitrate(v, a.ledger, job("7", {"node1", "node2"}), saving(1), 105, opts()).rule, "no-idle");
  EXPECT_EQ(arbitrate(v, a.ledger, job("8", {"node3", "node4"}), saving(9), 105, opts()).rule, "no-idle");
  const ClusterView later = view("7|RUNNING|4|node[1-2,5-6]|pdgemm\n8|RUNNING|2|node[3-4]|jacobi\n", "", 106);
  EXPECT_TRUE(arbitrate(later, a.ledger, job("7", {"node1", "node2", "node5", "node6"}), saving(1), 106, opts())
                  .ledger.entries.empty());
}

TEST(SlurmArbiter, OneWaitingJobDoesNotMakeTwoJobsShrink) {
  // Job 9 waits for 1 node; nothing idle. Both malleable jobs could give node2 / node4.
  const ClusterView v = view(std::string(kTwoJobs) + "9|PENDING|1||rigid\n", "");
  auto a = arbitrate(v, {}, job("7", {"node1", "node2"}), saving(5), 100, opts());
  ASSERT_EQ(a.rule, "give-back");
  EXPECT_EQ(a.plan.kind, Plan::Kind::GiveBack);
  EXPECT_EQ(a.plan.nodes, (std::vector<std::string>{"node2"}));
  EXPECT_EQ(a.for_job, "9");
  auto b = arbitrate(v, a.ledger, job("8", {"node3", "node4"}), saving(5), 100.2, opts());
  EXPECT_EQ(b.plan.kind, Plan::Kind::None);
  EXPECT_EQ(b.rule, "waiting") << b.plan.why;
  // An idle node covers a waiting job too.
  const ClusterView idle1 = view(std::string(kTwoJobs) + "9|PENDING|1||rigid\n", "node5");
  EXPECT_EQ(arbitrate(idle1, {}, job("8", {"node3", "node4"}), saving(5), 100, opts()).rule, "waiting");
}

TEST(SlurmArbiter, JobsThatCannotCoverAWaitingJobAloneShareIt) {
  // Job 9 waits for 3 nodes; 7 and 8 hold 3 each and can give 2 each.
  const std::string q = "7|RUNNING|3|node[1-3]|a\n8|RUNNING|3|node[4-6]|b\n9|PENDING|3||rigid\n";
  const ClusterView v = view(q, "");
  auto a = arbitrate(v, {}, job("7", {"node1", "node2", "node3"}), saving(5), 100, opts());
  EXPECT_EQ(a.rule, "offer") << a.plan.why;
  auto b = arbitrate(v, a.ledger, job("8", {"node4", "node5", "node6"}), saving(5), 101, opts());
  // Offers 2 + 2 cover 3: job 7 (lower id) gives 2, job 8 its share of 1.
  ASSERT_EQ(b.rule, "give-share") << b.plan.why;
  EXPECT_EQ(b.plan.nodes, (std::vector<std::string>{"node6"}));
  a = arbitrate(v, b.ledger, job("7", {"node1", "node2", "node3"}), saving(5), 102, opts());
  ASSERT_EQ(a.rule, "give-back") << a.plan.why;
  EXPECT_EQ(a.plan.nodes, (std::vector<std::string>{"node3", "node2"}));
  // Nobody gives more: 3 promised for job 9.
  EXPECT_EQ(arbitrate(v, a.ledger, job("8", {"node4", "node5", "node6"}), saving(5), 103, opts()).rule, "promised");
  // At its minimum a job has nothing to offer.
  EXPECT_EQ(arbitrate(v, {}, job("7", {"node1", "node2", "node3"}, 3), saving(5), 100, opts()).rule, "cannot-give");
}

TEST(SlurmArbiter, NoOscillation) {
  // Job 7 (node[1-3]) gives node[2-3] for job 9 (2 nodes).
  const std::string running = "7|RUNNING|3|node[1-3]|a\n8|RUNNING|1|node4|b\n";
  auto a = arbitrate(view(running + "9|PENDING|2||rigid\n", ""), {}, job("7", {"node1", "node2", "node3"}), saving(50),
                     100, opts());
  ASSERT_EQ(a.rule, "give-back");
  // Slurm has the nodes back; job 9 has not started yet (the next scheduling pass).
  const ClusterView gap = view("7|RUNNING|1|node1|a\n8|RUNNING|1|node4|b\n9|PENDING|2||rigid\n", "node[2-3]", 103);
  auto a2 = arbitrate(gap, a.ledger, job("7", {"node1"}), saving(50), 103, opts());
  EXPECT_EQ(a2.rule, "promised");
  EXPECT_EQ(a2.plan.kind, Plan::Kind::None);
  // Job 8 sees two idle nodes, but they are promised to job 9: it neither grows nor gives.
  auto b = arbitrate(gap, a2.ledger, job("8", {"node4"}), saving(500), 103, opts());
  EXPECT_EQ(b.rule, "waiting") << b.plan.why;
  // Job 9 runs: the promise ends, and with no node idle nobody grows.
  const ClusterView after = view("7|RUNNING|1|node1|a\n8|RUNNING|1|node4|b\n9|RUNNING|2|node[2-3]|rigid\n", "", 106);
  a2 = arbitrate(after, b.ledger, job("7", {"node1"}), saving(50), 106, opts());
  EXPECT_EQ(a2.rule, "no-idle");
  EXPECT_TRUE(a2.ledger.entries.empty());
}

TEST(SlurmArbiter, HeldNodesRunWhileJobsWaitAndStayOnOffer) {
  // Job 7 started on one process of its four nodes (min 2), job 8 runs on both of its
  // two (min 1); nothing idle; job 9 waits for 3 nodes.
  const std::string q = "7|RUNNING|4|node[1-4]|a\n8|RUNNING|2|node[5-6]|b\n9|PENDING|3||rigid|Resources\n";
  const ClusterView v = view(q, "");
  auto a = arbitrate(v, {}, job("7", {"node1"}, 2), saving(5), 100, opts());
  // It cannot cover job 9 alone (2 of 3) and no other offer stands: it offers 2 and,
  // giving nothing now, runs on the three nodes that ran nothing.
  ASSERT_EQ(a.rule, "use-held") << a.plan.why;
  EXPECT_EQ(a.plan.kind, Plan::Kind::UseHeld);
  EXPECT_EQ(a.plan.nodes, (std::vector<std::string>{"node2", "node3", "node4"}));
  EXPECT_NE(a.plan.why.find("offer: "), std::string::npos) << a.plan.why;
  ASSERT_EQ(a.ledger.entries.size(), 1u);
  EXPECT_EQ(a.ledger.entries[0].kind, LedgerEntry::Kind::Offer);
  EXPECT_EQ(a.ledger.entries[0].count, 2);
  // Job 8's offer of 1 completes the cover: its share is 1 (job 7, lower id, gives 2).
  auto b = arbitrate(v, a.ledger, job("8", {"node5", "node6"}), saving(5), 101, opts());
  ASSERT_EQ(b.rule, "give-share") << b.plan.why;
  EXPECT_EQ(b.plan.nodes, (std::vector<std::string>{"node6"}));
  // Job 7, now on all four nodes, gives the two still missing, those it joined last: no
  // over-shrink (3 in all).
  a = arbitrate(v, b.ledger, job("7", {"node1", "node2", "node3", "node4"}, 2), saving(5), 102, opts());
  ASSERT_EQ(a.rule, "give-back") << a.plan.why;
  EXPECT_EQ(a.plan.nodes, (std::vector<std::string>{"node4", "node3"}));
  // At its minimum with a node running nothing: nothing to give, the node is used.
  const ClusterView v2 = view("7|RUNNING|2|node[1-2]|a\n9|PENDING|3||rigid|Resources\n", "");
  a = arbitrate(v2, {}, job("7", {"node1"}, 2), saving(5), 100, opts());
  EXPECT_EQ(a.rule, "use-held") << a.plan.why;
  EXPECT_NE(a.plan.why.find("cannot-give: "), std::string::npos) << a.plan.why;
  EXPECT_EQ(a.plan.nodes, (std::vector<std::string>{"node2"}));
  // Covered by idle nodes: the job does not grow onto those, but uses its own.
  const ClusterView v3 = view("7|RUNNING|2|node[1-2]|a\n9|PENDING|1||rigid|Resources\n", "node5");
  a = arbitrate(v3, {}, job("7", {"node1"}), saving(5), 100, opts());
  EXPECT_EQ(a.rule, "use-held") << a.plan.why;
  EXPECT_EQ(a.plan.nodes, (std::vector<std::string>{"node2"}));
}

TEST(SlurmArbiter, APendingJobWithANodeRangeWaitsForTheMinimumItsCommentNames) {
  // Slurm 22.05's squeue prints 4 for a pending `sbatch -N 1-4` job once its scheduler has
  // tried it (its estimate, the maximum); the job starts on 1. Job 7 holds node[1-4] on
  // all four, min 1.
  const std::string running = "7|RUNNING|4|node[1-4]|a|None|\n";
  const ClusterView v = view(running + "9|PENDING|4||flex|Resources|min_nodes=1\n", "");
  ASSERT_EQ(v.jobs[1].nodes, 1);
  auto a = arbitrate(v, {}, job("7", {"node1", "node2", "node3", "node4"}), saving(5), 100, opts());
  ASSERT_EQ(a.rule, "give-back") << a.plan.why;
  EXPECT_EQ(a.plan.nodes, (std::vector<std::string>{"node4"}));
  // Without the comment: Slurm's 4, more than job 7 can give (3): an offer.
  const ClusterView plain = view(running + "9|PENDING|4||flex|Resources|\n", "");
  EXPECT_EQ(arbitrate(plain, {}, job("7", {"node1", "node2", "node3", "node4"}), saving(5), 100, opts()).rule, "offer");
  // Other comments, a '|' inside one, a running job's comment, nonsense: Slurm's count.
  const auto jobs = parse_squeue(slurm_snapshot::records("9|PENDING|4||f|Resources|note min_nodes=2 x|y\n10|RUNNING|3|n[1-3]|g|None|min_nodes=1\n"
                                 "11|PENDING|2||h|Priority|min_nodes=abc\n12|PENDING|2||h|Priority|min_nodes=5\n"));
  ASSERT_EQ(jobs.size(), 4u);
  EXPECT_EQ(jobs[0].nodes, 2);
  EXPECT_EQ(jobs[1].nodes, 3);
  EXPECT_EQ(jobs[2].nodes, 2);
  EXPECT_EQ(jobs[3].nodes, 2);
  EXPECT_THROW(parse_squeue(slurm_snapshot::records("9|PENDING|x||f|Resources|min_nodes=1\n")), cluster::Error);
}

TEST(SlurmArbiter, AfterAPromiseHeldNodesAreUsedButNothingIsTakenBack) {
  // Job 7 holds node[1-4] and runs on node1; job 9 waits for 2: the nodes that run nothing
  // go first, without a shrink.
  auto a = arbitrate(view("7|RUNNING|4|node[1-4]|a\n9|PENDING|2||rigid\n", ""), {}, job("7", {"node1"}),
                     saving(50), 100, opts());
  ASSERT_EQ(a.rule, "give-back") << a.plan.why;
  EXPECT_EQ(a.plan.nodes, (std::vector<std::string>{"node2", "node3"}));
  // Released; job 9 not started yet. Job 7 runs on node4, which it kept, never on the
  // promised idle node[2-3].
  const ClusterView gap = view("7|RUNNING|2|node[1,4]|a\n9|PENDING|2||rigid\n", "node[2-3]", 103);
  auto b = arbitrate(gap, a.ledger, job("7", {"node1"}), saving(50), 103, opts());
  ASSERT_EQ(b.rule, "use-held") << b.plan.why;
  EXPECT_EQ(b.plan.nodes, (std::vector<std::string>{"node4"}));
  EXPECT_NE(b.plan.why.find("promised: "), std::string::npos) << b.plan.why;
  // A stale view still listing the promised nodes as the job's: they are not used.
  const ClusterView stale = view("7|RUNNING|4|node[1-4]|a\n9|PENDING|2||rigid\n", "", 101);
  b = arbitrate(stale, a.ledger, job("7", {"node1", "node4"}), saving(50), 103, opts());
  EXPECT_EQ(b.rule, "promised") << b.plan.why;
  EXPECT_EQ(b.plan.kind, Plan::Kind::None);
}

TEST(SlurmArbiter, HeldNodesFirstAndGrowthByRestartWithoutExpansion) {
  const ClusterView v = view("7|RUNNING|3|node[1-3]|a\n", "node4");
  auto a = arbitrate(v, {}, job("7", {"node1", "node2"}), saving(5), 100, opts());
  EXPECT_EQ(a.rule, "use-held");
  EXPECT_EQ(a.plan.nodes, (std::vector<std::string>{"node3"}));
  ArbiterOptions no_exp = opts();
  no_exp.expansion = false;
  const ClusterView v2 = view("7|RUNNING|2|node[1-2]|a\n", "node[3-4]");
  a = arbitrate(v2, {}, job("7", {"node1", "node2"}), saving(5), 100, no_exp);
  a = arbitrate(v2, a.ledger, job("7", {"node1", "node2"}), saving(5), 104, no_exp);
  ASSERT_EQ(a.rule, "acquire");
  EXPECT_TRUE(a.by_restart);
  EXPECT_EQ(arbitrate(v2, {}, job("7", {"node1", "node2"}), saving(0), 100, no_exp).rule, "no-payoff");
  EXPECT_EQ(arbitrate(v2, {}, job("7", {"node1", "node2"}, 1, 2), saving(5), 100, no_exp).rule, "no-idle");
  EXPECT_EQ(arbitrate(v2, {}, JobState{"7", {}, 2, 1, 0}, saving(5), 100, no_exp).rule, "unknown");
}

TEST(SlurmArbiter, DecisionLineConfigAndIntervals) {
  const ClusterView v = view(std::string(kTwoJobs) + "9|PENDING|1||rigid \"x\"\n", "");
  const auto a = arbitrate(v, {}, job("7", {"node1", "node2"}), saving(5), 100, opts());
  const std::string line = decision_json(a, "7", 100.25);
  EXPECT_EQ(line.find('\n'), std::string::npos);
  EXPECT_NE(line.find("\"rule\":\"give-back\""), std::string::npos) << line;
  EXPECT_NE(line.find("\"nodes\":[\"node2\"]"), std::string::npos) << line;
  EXPECT_NE(line.find("\"for\":\"9\""), std::string::npos) << line;
  EXPECT_NE(line.find("\"t\":100.250"), std::string::npos) << line;
  EXPECT_TRUE(expansion_permitted("Configuration data as of ...\nSchedulerParameters     = sched_interval=2,bf_interval=2,permit_job_expansion\n"));
  EXPECT_FALSE(expansion_permitted("SchedulerParameters     = sched_interval=2,bf_interval=2\n"));
  EXPECT_FALSE(expansion_permitted("SchedulerParameters     = (null)\n"));
  EXPECT_TRUE(view_stale(100, 102, 2));
  EXPECT_FALSE(view_stale(100, 101.9, 2));
  std::set<double> seen;
  for (const char* id : {"7", "8", "9", "10"}) {
    const double t = jittered_interval(10, 0.25, id, 3);
    EXPECT_GE(t, 7.5);
    EXPECT_LT(t, 12.5);
    EXPECT_EQ(t, jittered_interval(10, 0.25, id, 3));
    seen.insert(t);
  }
  EXPECT_EQ(seen.size(), 4u);
}
