// SPDX-License-Identifier: BSD-3-Clause
// What one job can take of the idle nodes: its claim is bounded by what it can use (its
// max_nodes), its bid's saving by what it can save (the time Slurm leaves it to run), the
// free nodes are shared between the users bidding for them, and a claim left to expire
// unused is not renewed at once. No Slurm needed.
#include <gtest/gtest.h>

#include <set>

#include "daemon/state.hpp"
#include "malleable/cluster/cluster.hpp"
#include "slurm_snapshot_util.hpp"
#include "squeue_render_util.hpp"

using namespace cluster;
using namespace cluster::slurm;
using namespace slurm_snapshot;

namespace {

// A running job's squeue record: its owner's uid and the time Slurm leaves it (%L).
std::string running(const std::string& id, const std::string& node, const std::string& uid, const std::string& left) {
  return squeue_render::render(kSqueueFormat, {{'i', id}, {'T', "RUNNING"}, {'D', "1"}, {'N', node}, {'U', uid},
                                               {'L', left}, {'j', "job" + id}, {'r', "None"}, {'k', "(null)"}}) +
         "\n";
}

// A growth that pays `saving` seconds a node (whatever a job claims).
GrowthModel saves(double per_node) {
  return [=](int n) {
    Growth g;
    g.pays = true;
    g.saving_s = per_node * n;
    g.why = "claimed";
    return g;
  };
}

JobState one_node(const std::string& id, const std::string& node, int max_nodes) {
  JobState j;
  j.id = id;
  j.rank_hosts = {node};
  j.per_node = 1;
  j.max_nodes = max_nodes;
  return j;
}

int claimed_by(const Ledger& l, const std::string& job) {
  int n = 0;
  for (const auto& e : l.entries)
    if (e.kind == LedgerEntry::Kind::Claim && e.job == job) n += static_cast<int>(e.nodes.size());
  return n;
}

}  // namespace

// Users 1000 (job 7, a saving of 10^12 s a node and no node limit to speak of) and 1001
// (job 8, 1,000 s a node, up to 3 more) both bid for node[3-6]: each user's jobs get at
// most half of the free nodes while the other bids.
TEST(ArbiterClaims, TwoUsersBiddingShareTheFreeNodes) {
  const ClusterView v = make_view(100, running("7", "node1", "1000", "1-00:00:00") + running("8", "node2", "1001", "1-00:00:00"),
                                  "batch idle 1-infinite node[3-6]\n");
  Arbitration a = arbitrate(v, {}, one_node("7", "node1", 100), saves(1e12), 100, opts());
  ASSERT_EQ(a.rule, "bid") << a.plan.why;
  Arbitration b = arbitrate(v, a.ledger, one_node("8", "node2", 4), saves(1000), 101, opts());
  ASSERT_EQ(b.rule, "bid") << b.plan.why;
  a = arbitrate(v, b.ledger, one_node("7", "node1", 100), saves(1e12), 105, opts());
  ASSERT_EQ(a.rule, "acquire") << a.plan.why;
  EXPECT_LE(a.plan.nodes.size(), 2u) << "uid 1000's job took " << a.plan.nodes.size() << " of 4 free nodes while uid 1001 bid";
  b = arbitrate(v, a.ledger, one_node("8", "node2", 4), saves(1000), 106, opts());
  EXPECT_EQ(b.rule, "acquire") << b.plan.why;
  EXPECT_EQ(claimed_by(b.ledger, "8"), 2);
}

// A bid's saving is bounded by the time Slurm leaves its job: job 7 (an hour left) says it
// saves 10^9 s on one node, job 8 of the same user (two days left) 5,000 s: job 8's bid is
// the better one and gets the one free node.
TEST(ArbiterClaims, ABidsSavingIsBoundedByTheTimeLeftToItsJob) {
  const ClusterView v = make_view(100, running("7", "node1", "1000", "01:00:00") + running("8", "node2", "1000", "2-00:00:00"),
                                  "batch idle 1-infinite node3\n");
  Arbitration a = arbitrate(v, {}, one_node("7", "node1", 2), saves(1e9), 100, opts());
  Arbitration b = arbitrate(v, a.ledger, one_node("8", "node2", 2), saves(5000), 101, opts());
  a = arbitrate(v, b.ledger, one_node("7", "node1", 2), saves(1e9), 105, opts());
  EXPECT_EQ(a.rule, "outbid") << a.plan.why;
  b = arbitrate(v, a.ledger, one_node("8", "node2", 2), saves(5000), 106, opts());
  EXPECT_EQ(b.rule, "acquire") << b.plan.why;
  EXPECT_EQ(b.plan.nodes, std::vector<std::string>{"node3"});
}

// A claim its job neither used nor settled, left to expire with its nodes still idle (a
// job holding nodes from others for a minute, again and again): no new claim of that job
// for a claim's lifetime; then it may claim again.
TEST(ArbiterClaims, AClaimLeftToExpireUnusedIsNotRenewedAtOnce) {
  arbiter::StateOptions so;
  so.arbiter.bid_window_s = 0;
  arbiter::ArbiterState st(so);
  const auto view_at = [](double t) {
    return make_view(t, running("7", "node1", "1000", "UNLIMITED"), "batch idle 1-infinite node[3-4]\n");
  };
  st.set_view(view_at(100), {{"7", 1000}});
  arbiter::Request q;
  q.kind = arbiter::Request::Kind::Arbitrate;
  q.job = one_node("7", "node1", 3);
  for (int n = 1; n <= 2; ++n) {
    Growth g;
    g.pays = true;
    g.saving_s = 100.0 * n;
    g.why = "model";
    q.growth[n] = g;
  }
  bool changed = false;
  std::string rule;
  for (int k = 0; k < 3 && rule != "acquire"; ++k) rule = st.handle(q, 1000, 101 + k, changed).arbitration.rule;
  ASSERT_EQ(rule, "acquire");
  // The claim (60 s) expires unused at ~161: the nodes are still idle.
  st.set_view(view_at(170), {{"7", 1000}});
  for (int k = 0; k < 4; ++k) {
    const arbiter::Reply r = st.handle(q, 1000, 170 + k, changed);
    ASSERT_TRUE(r.ok) << r.error;
    EXPECT_NE(r.arbitration.rule, "acquire") << "the expired claim was renewed at " << 170 + k;
  }
  // A claim's lifetime later it may claim again.
  st.set_view(view_at(240), {{"7", 1000}});
  rule.clear();
  for (int k = 0; k < 3 && rule != "acquire"; ++k) rule = st.handle(q, 1000, 240 + k, changed).arbitration.rule;
  EXPECT_EQ(rule, "acquire");
}
