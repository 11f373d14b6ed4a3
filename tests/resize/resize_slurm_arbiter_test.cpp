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
#include "slurm_policy_util.hpp"

using namespace resize;
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

namespace {
// A small Slurm: jobs and their nodes, answering the commands the policy runs (squeue,
// sinfo, squeue -j, scontrol update, salloc -w). Counts the queries of the cluster view.
struct MiniSlurm {
  std::map<std::string, std::vector<std::string>> jobs;  // running job -> nodes
  std::vector<std::string> idle;
  std::vector<std::string> commands;
  std::vector<std::string> expanding;  // nodes of the last grant, not yet merged
  std::string pending;                 // squeue lines of waiting jobs
  std::set<std::string> resized;       // jobs whose size changed: no accounting, no more updates
  Runner runner() {
    return [this](const Argv& argv) -> Command {
      const std::string cmd = command_line(argv);
      commands.push_back(cmd);
      if (cmd.rfind("squeue -h -j ", 0) == 0) {
        const std::string id = cmd.substr(13, cmd.find(' ', 13) - 13);
        return {0, slurm_snapshot::own_record(id, compress_hostlist(jobs[id]))};
      }
      if (cmd.rfind("squeue", 0) == 0) {
        std::string out;
        for (const auto& [id, nodes] : jobs)
          out += id + "|RUNNING|" + std::to_string(nodes.size()) + "|" + compress_hostlist(nodes) + "|app\n";
        return {0, slurm_snapshot::records(out + pending)};
      }
      if (cmd.rfind("scontrol update JobId=", 0) == 0 && cmd.find(" NodeList=") != std::string::npos) {
        const std::string id = cmd.substr(22, cmd.find(' ', 22) - 22);
        if (resized.count(id))
          return {1, "Job update not available right now, the DB index is being set, try again in a bit for job " + id};
        const auto keep = expand_hostlist(cmd.substr(cmd.find(" NodeList=") + 10));
        for (const auto& h : jobs[id])
          if (std::find(keep.begin(), keep.end(), h) == keep.end()) idle.push_back(h);
        jobs[id] = keep;
        resized.insert(id);
        return {0, ""};
      }
      if (cmd.rfind("sinfo", 0) == 0) return {0, compress_hostlist(idle) + "\n"};
      if (cmd.rfind("salloc", 0) == 0) {
        const auto w = cmd.find(" -w ");
        const auto want = expand_hostlist(cmd.substr(w + 4, cmd.find(' ', w + 4) - w - 4));
        for (const auto& h : want)
          if (std::find(idle.begin(), idle.end(), h) == idle.end()) return {1, "salloc: error: nodes busy"};
        for (const auto& h : want) idle.erase(std::find(idle.begin(), idle.end(), h));
        expanding = want;
        return {0, "salloc: Granted job allocation 99\n"};
      }
      if (cmd.find("JobId=99 NumNodes=0") != std::string::npos) return {0, ""};
      if (cmd.find("NumNodes=ALL") != std::string::npos) {
        const std::string id = cmd.substr(cmd.find("JobId=") + 6, cmd.find(" NumNodes") - cmd.find("JobId=") - 6);
        jobs[id].insert(jobs[id].end(), expanding.begin(), expanding.end());
        return {0, ""};
      }
      return {1, "unexpected " + cmd};
    };
  }
};

std::vector<std::string> lines_of(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> out;
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}
// A scratch directory under the system's temporary directory, removed however the test
// ends (an ASSERT that returns early included). path is empty if it could not be made.
struct ScratchDir {
  std::string path;
  ScratchDir() {
    std::string t = (std::filesystem::temp_directory_path() / "slurm-arbiter-XXXXXX").string();
    if (::mkdtemp(t.data()) != nullptr) path = t;
  }
  ~ScratchDir() {
    std::error_code ec;
    if (!path.empty()) std::filesystem::remove_all(path, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
};
}  // namespace

TEST(SlurmArbiter, AJobAskedLessOftenThanItsBidLivesStillGrows) {
  // Asked only at its remap points, 25 s apart (longer than a bid's 20-s lifetime): the
  // bid of the first query must still stand at the second, which acquires.
  const ScratchDir scratch;
  ASSERT_FALSE(scratch.path.empty());
  MiniSlurm slurm;
  slurm.jobs = {{"7", {"node1"}}};
  slurm.idle = {"node2"};
  double clock = 1000;
  Options o;
  o.shared_dir = scratch.path;
  o.interval_s = 2;
  o.jitter = 0;
  o.max_nodes = 2;
  o.clock = o.wall_clock = [&] { return clock; };
  SlurmPolicy a(std::make_unique<Client>(slurm.runner(), "7"), o);
  const std::vector<std::string> ranks(2, "node1");
  PolicyInput in;
  in.world_size = 2;
  in.rank_hosts = &ranks;
  Decision d = a.decide(in);
  EXPECT_EQ(d.action, Action::None) << d.reason;
  EXPECT_NE(d.reason.find("bid"), std::string::npos) << d.reason;
  clock += 25;
  d = a.decide(in);
  EXPECT_EQ(d.action, Action::None) << d.reason;  // the first gap is not known yet: bids anew
  clock += 25;
  d = a.decide(in);
  ASSERT_EQ(d.action, Action::Expand) << d.reason;
  EXPECT_EQ(d.hosts, (std::vector<HostShare>{{"node2", 2}}));
}

TEST(SlurmArbiter, TwoPoliciesShareOneViewPerIntervalAndOneGetsTheNodes) {
  const ScratchDir scratch;
  ASSERT_FALSE(scratch.path.empty());
  const std::string& dir = scratch.path;
  MiniSlurm slurm;
  slurm.jobs = {{"7", {"node1"}}, {"8", {"node2"}}};
  slurm.idle = {"node3", "node4"};
  double clock = 1000;
  Options o;
  o.shared_dir = dir;
  o.interval_s = 2;
  o.jitter = 0;
  o.max_nodes = 3;
  o.clock = o.wall_clock = [&] { return clock; };
  o.launch.late_daemons = true;  // its launcher adds daemons late: both granted nodes by spawn
  SlurmPolicy a(std::make_unique<Client>(slurm.runner(), "7"), o);
  SlurmPolicy b(std::make_unique<Client>(slurm.runner(), "8"), o);
  const std::vector<std::string> ra(2, "node1"), rb(2, "node2");
  PolicyInput ia, ib;
  ia.world_size = ib.world_size = 2;
  ia.rank_hosts = &ra;
  ib.rank_hosts = &rb;
  Decision da, db;
  int rounds = 0;
  for (; rounds < 5; clock += 2.1) {  // the bid window is 2 intervals: the third round acquires
    ++rounds;
    da = a.decide(ia);
    db = b.decide(ib);
    if (da.action != Action::None || db.action != Action::None) break;
  }
  EXPECT_EQ(rounds, 3);
  // Job 7 (the lower id, equal payoff: length unknown) got both idle nodes; job 8 none.
  ASSERT_EQ(da.action, Action::Expand) << da.reason;
  EXPECT_EQ(da.hosts, (std::vector<HostShare>{{"node3", 2}, {"node4", 2}}));
  EXPECT_EQ(db.action, Action::None) << db.reason;
  EXPECT_NE(db.reason.find("no-idle"), std::string::npos) << db.reason;
  int sallocs = 0, squeues = 0;
  for (const auto& c : slurm.commands) {
    sallocs += c.rfind("salloc", 0) == 0;
    squeues += c.rfind("squeue", 0) == 0 && c.rfind("squeue -h -j", 0) != 0;  // the view's, not a job's own record
    EXPECT_EQ(c.find("salloc -N 2 -w node[3-4]") == 0 || c.rfind("salloc", 0) != 0, true) << c;
  }
  EXPECT_EQ(sallocs, 1);
  // Two jobs, three rounds each: one query of the view per round, not per job.
  EXPECT_EQ(squeues, 3);
  EXPECT_EQ(lines_of(dir + "/queries.log").size(), 3u);
  const auto log7 = lines_of(dir + "/log/7.jsonl"), log8 = lines_of(dir + "/log/8.jsonl");
  ASSERT_EQ(log7.size(), 3u);
  ASSERT_EQ(log8.size(), 3u);
  EXPECT_NE(log7.front().find("\"rule\":\"bid\""), std::string::npos) << log7.front();
  EXPECT_NE(log7.back().find("\"rule\":\"acquire\""), std::string::npos) << log7.back();
  EXPECT_NE(log8.back().find("\"rule\":\"no-idle\""), std::string::npos) << log8.back();
}

TEST(SlurmArbiter, IdleNodesGoBackThenTheRestIsUsedAndWithoutAccountingOnlyOnce) {
  const ScratchDir scratch;
  ASSERT_FALSE(scratch.path.empty());
  const std::string& dir = scratch.path;
  MiniSlurm slurm;
  // Job 7 started one process on node1 of its node[1-3]; job 9 waits for one node.
  slurm.jobs = {{"7", {"node1", "node2", "node3"}}};
  slurm.pending = "9|PENDING|1||rigid|Resources\n";
  double clock = 1000;
  Options o;
  o.shared_dir = dir;
  o.interval_s = 2;
  o.jitter = 0;
  o.one_update = true;
  o.clock = o.wall_clock = [&] { return clock; };
  SlurmPolicy a(std::make_unique<Client>(slurm.runner(), "7"), o);
  std::vector<std::string> ranks{"node1"};
  PolicyInput in;
  in.world_size = 1;
  in.rank_hosts = &ranks;
  // One decision: node2 goes back to Slurm (no process there), and the job grows onto
  // node3, which it keeps and which ran nothing.
  Decision d = a.decide(in);
  ASSERT_EQ(d.action, Action::Expand) << d.reason;
  EXPECT_EQ(d.hosts, (std::vector<HostShare>{{"node3", 1}}));
  EXPECT_EQ(slurm.jobs["7"], (std::vector<std::string>{"node1", "node3"}));
  EXPECT_EQ(slurm.idle, (std::vector<std::string>{"node2"}));
  // Job 9 runs on node2; job 10 waits. Job 7 now runs on node1 and node3 and could give
  // node3, but Slurm keeps no accounting and would refuse a second update: it gives
  // nothing, ends no process.
  ranks = {"node1", "node3"};
  in.world_size = 2;
  slurm.jobs["9"] = {"node2"};
  slurm.idle.clear();
  slurm.pending = "10|PENDING|1||rigid|Resources\n";
  clock += 2.1;
  d = a.decide(in);
  EXPECT_EQ(d.action, Action::None) << d.reason;
  EXPECT_NE(d.reason.find("cannot-give"), std::string::npos) << d.reason;
  int updates = 0;
  for (const auto& c : slurm.commands) updates += c.find(" NodeList=") != std::string::npos;
  EXPECT_EQ(updates, 1);
}

TEST(SlurmArbiter, AccountingStorageTypeNoneMeansOneUpdate) {
  EXPECT_TRUE(updates_once("AccountingStorageType   = accounting_storage/none\nClusterName = c\n"));
  EXPECT_FALSE(updates_once("AccountingStorageType   = accounting_storage/slurmdbd\n"));
  EXPECT_TRUE(updates_once("ClusterName = c\n"));
}
