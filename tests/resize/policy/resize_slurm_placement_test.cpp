// SPDX-License-Identifier: BSD-3-Clause
// The Slurm policy against where the job's processes run: no growth, again and again, onto a held node the processes never reach
// (recorded from the emulated cluster: after a relaunch onto node1,node2 every rank ran on
// node1, and the policy grew onto node2 at each remap point, doubling the processes).
// The node lists it reads (idle, unplaced, beyond the launcher): tests/cluster/unit/slurm/slurm_nodes_test.cpp.
#include <gtest/gtest.h>

#include "malleable/cluster/cluster.hpp"
#include "slurm_policy_util.hpp"

using namespace resize;
using namespace cluster::slurm;

using slurm_snapshot::input_on;
using slurm_snapshot::ranks_on;

namespace {
// Slurm's answers in order, by command prefix (every remap point: the job, the idle
// nodes, the waiting jobs).
using Scripted = slurm_snapshot::ScriptedJob7;
using slurm_snapshot::logged;
}  // namespace

// Recorded after the spawn fallback's relaunch (malleable-run --hosts slurm onto
// node1,node2, 2x4): Slurm's job holds node[1-2], every rank runs on node1, the launcher
// placed the job on node1 and node2. Growing onto node2 would put 8 more processes there
// by the same launcher, and they would land on node1 again.
TEST(SlurmPlacement, AfterARelaunchWhoseProcessesAllRanOnOneNodeThePolicyDoesNotGrowOntoTheOther) {
  Scripted f;
  f.remap_point("node[1-2]", "");
  f.remap_point("node[1-2]", "");
  Options o;
  o.interval_s = 0;
  o.max_nodes = 2;
  o.launch.on = {"node1", "node2"};
  SlurmPolicy pol(std::make_unique<Client>(f.runner(), "7"), o);
  const auto ranks = ranks_on({{"node1", 8}});
  PolicyInput in = input_on(ranks);
  const Decision d = pol.decide(in);
  EXPECT_EQ(d.action, Action::None) << d.reason;
  EXPECT_NE(d.reason.find("not growing onto node2"), std::string::npos) << d.reason;
  EXPECT_TRUE(logged(pol, "node node2 runs none of this job's processes")) << pol.log().back();
  EXPECT_EQ(pol.decide(in).action, Action::None);  // and at every later remap point
  EXPECT_TRUE(f.script.empty()) << f.seen.back();
  // Without the launcher's word, a held node running nothing is grown onto (the job
  // holds it and never placed anything there).
  Scripted g;
  g.remap_point("node[1-2]", "");
  o.launch.on.clear();
  SlurmPolicy fresh(std::make_unique<Client>(g.runner(), "7"), o);
  const Decision grow = fresh.decide(in);
  EXPECT_EQ(grow.action, Action::Expand) << grow.reason;
}

// In one run: an expansion onto a held node completes, yet the ranks' nodes still do not
// include it. The policy must not grow onto it again at the next remap point (it did,
// each time, before), and says why once.
TEST(SlurmPlacement, AGrowthThatLeftItsNodeRunningNothingIsNotRepeated) {
  Scripted f;
  for (int i = 0; i < 3; ++i) f.remap_point("node[1-2]", "");
  Options o;
  o.interval_s = 0;
  o.max_nodes = 2;
  SlurmPolicy pol(std::make_unique<Client>(f.runner(), "7"), o);
  const auto ranks = ranks_on({{"node1", 2}});
  PolicyInput in = input_on(ranks);
  const Decision d = pol.decide(in);
  ASSERT_EQ(d.action, Action::Expand) << d.reason;
  EXPECT_EQ(d.hosts, (std::vector<HostShare>{{"node2", 2}}));
  pol.completed(d, 2, true);
  const Decision again = pol.decide(in);  // the ranks still all on node1
  EXPECT_EQ(again.action, Action::None) << again.reason;
  EXPECT_NE(again.reason.find("not growing onto node2"), std::string::npos) << again.reason;
  const auto said = pol.log().size();
  EXPECT_EQ(pol.decide(in).action, Action::None);
  std::size_t notes = 0;
  for (const auto& l : pol.log()) notes += l.find("node node2 runs none") != std::string::npos;
  EXPECT_EQ(notes, 1u);
  EXPECT_LE(pol.log().size(), said + 1);
  EXPECT_TRUE(f.script.empty()) << f.seen.back();
}

// The job launched on node1,node2 (malleable-run's hosts) holds node3 too (merged later):
// growing onto node3 is a resize by restart, said why; onto a node with a daemon, a spawn.
TEST(SlurmPlacement, GrowthOntoANodeTheLauncherCannotReachIsByRestart) {
  const auto ranks = ranks_on({{"node1", 2}, {"node2", 2}});
  PolicyInput in = input_on(ranks);
  Options o;
  o.interval_s = 0;
  o.max_nodes = 3;
  o.launch.on = {"node1", "node2"};
  {
    Scripted f;
    f.remap_point("node[1-3]", "");
    SlurmPolicy pol(std::make_unique<Client>(f.runner(), "7"), o);
    const Decision d = pol.decide(in);
    ASSERT_EQ(d.action, Action::Expand) << d.reason;
    EXPECT_TRUE(d.by_restart);
    EXPECT_FALSE(d.new_allocation);
    EXPECT_EQ(d.hosts, (std::vector<HostShare>{{"node3", 2}}));
    EXPECT_TRUE(logged(pol, "growing by restart onto node3: the launcher runs daemons on node[1-2]")) << pol.log().back();
  }
  {
    // A launcher that adds daemons late (another MPI): the same growth by spawn.
    Scripted f;
    f.remap_point("node[1-3]", "");
    Options late = o;
    late.launch.late_daemons = true;
    SlurmPolicy pol(std::make_unique<Client>(f.runner(), "7"), late);
    const Decision d = pol.decide(in);
    ASSERT_EQ(d.action, Action::Expand) << d.reason;
    EXPECT_FALSE(d.by_restart);
  }
}

// Launched on node1 alone: the first growth (onto node2) is a spawn, its add-host starting
// node2's daemon; the next, onto node3, would be the late daemon Open MPI cannot add.
TEST(SlurmPlacement, OnlyTheFirstGrowthFromTheLauncherNodeAloneIsBySpawn) {
  Scripted f;
  f.remap_point("node[1-2]", "");
  f.remap_point("node[1-3]", "");
  Options o;
  o.interval_s = 0;
  o.max_nodes = 3;
  o.launch.on = {"node1"};
  SlurmPolicy pol(std::make_unique<Client>(f.runner(), "7"), o);
  const Decision first = pol.decide(input_on(ranks_on({{"node1", 2}})));
  ASSERT_EQ(first.action, Action::Expand) << first.reason;
  EXPECT_FALSE(first.by_restart);
  pol.completed(first, 4, true);
  const Decision second = pol.decide(input_on(ranks_on({{"node1", 2}, {"node2", 2}})));
  ASSERT_EQ(second.action, Action::Expand) << second.reason;
  EXPECT_TRUE(second.by_restart);
  EXPECT_EQ(second.hosts, (std::vector<HostShare>{{"node3", 2}}));
  // Refused (no checkpoint directory): no more requests for nodes.
  pol.completed(second, 4, false);
  EXPECT_TRUE(logged(pol, "growing by restart is not possible here")) << pol.log().back();
  EXPECT_TRUE(f.script.empty()) << f.seen.back();
}

// No launcher relaunches the job (plain mpiexec in the batch script: no MALLEABLE_RUN_HOSTS)
// and it runs on node1,node2: a node it comes to hold later cannot be spawned onto and no
// restart can reach it, so the job stays, said once.
TEST(SlurmPlacement, WithoutARelaunchingLauncherTheJobDoesNotGrowBeyondItsDaemons) {
  Scripted f;
  f.remap_point("node[1-2]", "");
  f.remap_point("node[1-3]", "");
  f.remap_point("node[1-3]", "");
  Options o;
  o.interval_s = 0;
  o.max_nodes = 3;
  SlurmPolicy pol(std::make_unique<Client>(f.runner(), "7"), o);
  const auto ranks = ranks_on({{"node1", 2}, {"node2", 2}});
  PolicyInput in = input_on(ranks);
  EXPECT_EQ(pol.decide(in).action, Action::None);
  const Decision d = pol.decide(in);
  EXPECT_EQ(d.action, Action::None) << d.reason;
  EXPECT_TRUE(logged(pol, "not growing beyond the nodes the launcher runs daemons on (node[1-2])")) << pol.log().back();
  EXPECT_EQ(pol.decide(in).action, Action::None);
  std::size_t notes = 0;
  for (const auto& l : pol.log()) notes += l.find("not growing beyond") != std::string::npos;
  EXPECT_EQ(notes, 1u);
  EXPECT_TRUE(f.script.empty()) << f.seen.back();
}

// The launcher alone on node1 (plain mpiexec, nothing relaunches the job) and node2, node3
// held: the library spawns one group per node, and a second new daemon while the first
// one's runs ends the job (Open MPI 4.1.4). The growth takes node2 only.
TEST(SlurmPlacement, TheLauncherAloneGrowsOntoOneNewNodeAtATime) {
  Scripted f;
  f.remap_point("node1", "");
  f.remap_point("node[1-3]", "");
  Options o;
  o.interval_s = 0;
  o.max_nodes = 3;
  SlurmPolicy pol(std::make_unique<Client>(f.runner(), "7"), o);
  const auto ranks = ranks_on({{"node1", 2}});
  PolicyInput in = input_on(ranks);
  EXPECT_EQ(pol.decide(in).action, Action::None);
  const Decision d = pol.decide(in);
  ASSERT_EQ(d.action, Action::Expand) << d.reason;
  EXPECT_FALSE(d.by_restart);
  EXPECT_EQ(d.hosts, (std::vector<HostShare>{{"node2", 2}}));
  EXPECT_TRUE(f.script.empty()) << f.seen.back();
}
