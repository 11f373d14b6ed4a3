// SPDX-License-Identifier: BSD-3-Clause
// Slurm's node lists as cluster/src/slurm reads them (no Slurm needed): hostlists expanded
// and compressed, squeue's records parsed, the idle nodes without drained and unresponsive
// ones, the held nodes no process runs on, and the nodes beyond the launcher's daemons.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "malleable/cluster/cluster.hpp"
#include "slurm_snapshot_util.hpp"

using namespace cluster::slurm;
using slurm_snapshot::ranks_on;

TEST(Slurm, HostlistsExpandAndCompress) {
  EXPECT_EQ(expand_hostlist("node[1-3,5],gpu7"), (std::vector<std::string>{"node1", "node2", "node3", "node5", "gpu7"}));
  EXPECT_EQ(expand_hostlist("n[08-10]"), (std::vector<std::string>{"n08", "n09", "n10"}));
  EXPECT_TRUE(expand_hostlist("(null)").empty());
  EXPECT_TRUE(expand_hostlist("").empty());
  EXPECT_THROW(expand_hostlist("node[1-"), cluster::Error);
  EXPECT_THROW(expand_hostlist("node[3-1]"), cluster::Error);
  EXPECT_THROW(expand_hostlist("node[a-b]"), cluster::Error);
  EXPECT_EQ(compress_hostlist({"node1", "node2", "node3", "node5"}), "node[1-3,5]");
  EXPECT_EQ(compress_hostlist({"node4"}), "node4");
  EXPECT_EQ(compress_hostlist({"n08", "n09", "n10"}), "n[08-10]");
  EXPECT_EQ(compress_hostlist({"head", "node2", "node1"}), "node[1-2],head");
  for (const char* l : {"node[1-3,5]", "n[08-10]", "a1,b2"}) EXPECT_EQ(compress_hostlist(expand_hostlist(l)), l);
}

TEST(Slurm, ParsesSqueue) {
  const auto jobs = parse_squeue(slurm_snapshot::records("12|PENDING|2|\n\n13|RUNNING|3|node[2-4]\n"));
  ASSERT_EQ(jobs.size(), 2u);
  EXPECT_EQ(jobs[0].id, "12");
  EXPECT_EQ(jobs[0].nodes, 2);
  EXPECT_TRUE(jobs[0].node_list.empty());
  EXPECT_EQ(jobs[1].node_list, (std::vector<std::string>{"node2", "node3", "node4"}));
  EXPECT_THROW(parse_squeue(slurm_snapshot::records("12|PENDING|two|")), cluster::Error);
}

TEST(SlurmPlacement, IdleNodesLeaveOutDrainedAndUnresponsiveOnes) {
  // sinfo -h -t idle -o '%t %N' on the emulated cluster with node3 drained (scontrol
  // update State=DRAIN): Slurm lists it under -t idle.
  EXPECT_EQ(idle_nodes("idle node[1-2]\ndrain node3\nidle* node4\nidle~ node5\n"),
            (std::vector<std::string>{"node1", "node2"}));
  EXPECT_EQ(idle_nodes("node[2-3]\n"), (std::vector<std::string>{"node2", "node3"}));  // -o %N alone
  EXPECT_TRUE(idle_nodes("").empty());
  EXPECT_THROW(idle_nodes("idle node1 node2\n"), cluster::Error);
  EXPECT_THROW(idle_nodes("idle node[1-\n"), cluster::Error);
}

TEST(SlurmPlacement, UnplacedNodesAreHeldNodesTheProcessesPutThereDoNotRunOn) {
  const auto ranks = ranks_on({{"node1", 8}});
  EXPECT_EQ(unplaced_nodes({"node1", "node2"}, ranks, {"node1", "node2"}), (std::vector<std::string>{"node2"}));
  EXPECT_TRUE(unplaced_nodes({"node1"}, ranks, {"node1", "node2"}).empty());  // node2 no longer held
  EXPECT_TRUE(unplaced_nodes({"node1", "node2"}, ranks_on({{"node1", 4}, {"node2", 4}}), {"node1", "node2"}).empty());
  Plan p;
  p.kind = Plan::Kind::UseHeld;
  p.nodes = {"node2", "node3"};
  p.why = "2 node(s) of the allocation run nothing";
  EXPECT_TRUE(without_nodes(p, {"node2"}));
  EXPECT_EQ(p.kind, Plan::Kind::UseHeld);
  EXPECT_EQ(p.nodes, (std::vector<std::string>{"node3"}));
  EXPECT_TRUE(without_nodes(p, {"node3"}));
  EXPECT_EQ(p.kind, Plan::Kind::None);
  EXPECT_NE(p.why.find("not growing onto node3"), std::string::npos) << p.why;
  EXPECT_FALSE(without_nodes(p, {"node3"}));
}

// Open MPI 4.1.4 on the emulated cluster: a spawn that adds a daemon on a new node ends the
// job once the launcher runs a daemon on another node than its own (routed_radix "Not
// found"); while it runs only its own, add-host works.
TEST(SlurmPlacement, NodesBeyondTheLauncherAreThoseWithoutADaemonOnceItHasRemoteOnes) {
  EXPECT_TRUE(beyond_launcher({"node1"}, "node1", {"node2"}).empty());  // only its own: add-host works, once
  EXPECT_TRUE(beyond_launcher({"node1"}, "node1", {"node1", "node2"}).empty());
  EXPECT_EQ(beyond_launcher({"node1"}, "node1", {"node2", "node3"}), (std::vector<std::string>{"node2", "node3"}));
  EXPECT_EQ(beyond_launcher({"node1", "node2"}, "node1", {"node2", "node3", "node3"}),
            (std::vector<std::string>{"node3"}));
  EXPECT_TRUE(beyond_launcher({"node1", "node2"}, "node1", {"node2"}).empty());  // a daemon there already
  EXPECT_EQ(beyond_launcher({"node2"}, "node1", {"node3"}), (std::vector<std::string>{"node3"}));
}
