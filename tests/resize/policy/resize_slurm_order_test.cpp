// SPDX-License-Identifier: BSD-3-Clause
// Slurm's order in the Slurm policy's single-job decision (decide() with the session's
// growth model), on recorded snapshots: the job's partition, its MaxNodes, and waiting
// jobs by priority as the single-job client reads them. The arbiter's side, and the
// shared directory's file modes: tests/cluster/unit/arbitration/slurm_order_test.cpp.
#include <gtest/gtest.h>

#include <string>

#include "malleable/cluster/cluster.hpp"
#include "slurm_order_fixture_util.hpp"
#include "slurm_policy_util.hpp"

using namespace resize;
using namespace cluster::slurm;
using namespace slurm_snapshot;
using namespace slurm_order_fixture;

TEST(SlurmOrder, PartitionsReservationAndMaxNodes) {
  // Job 7 runs in batch; node6 is reserved (resv), node10 idle in gpu; job 22 waits in
  // gpu for 3 nodes (gpu has 2): it does not compete with job 7, which grows onto batch's
  // idle nodes up to batch's MaxNodes (6: 2 more).
  const ClusterView v = view(line("7", "RUNNING", 4, "node[1-4]", "100", "2026-11-26T09:00:00", "batch") +
                                 line("8", "RUNNING", 1, "node9", "100", "2026-11-26T09:00:00", "gpu") +
                                 line("22", "PENDING", 3, "", "900", "2026-11-26T10:30:00", "gpu"),
                             kSinfo);
  EXPECT_EQ(v.idle, (std::vector<std::string>{"node5", "node7", "node8", "node10"}));
  const Snapshot s = snapshot_of(v, "7");
  EXPECT_TRUE(s.pending.empty());
  ASSERT_EQ(snapshot_of(v, "8").pending.size(), 1u);  // job 8 is in gpu
  const auto a = grow_round(v, job("7", {"node1", "node2", "node3", "node4"}));
  ASSERT_EQ(a.rule, "acquire") << a.plan.why;
  EXPECT_EQ(a.plan.nodes, (std::vector<std::string>{"node5", "node7"}));
  // The cached view keeps partitions and the plan.
  const ClusterView back = parse_view(format_view(v));
  ASSERT_EQ(back.partitions.size(), 2u);
  EXPECT_EQ(back.partitions[0].max_nodes, 6);
  EXPECT_EQ(back.partitions[1].nodes, v.partitions[1].nodes);
  EXPECT_EQ(back.jobs[2].priority, 900);
  EXPECT_EQ(back.jobs[2].partition, "gpu");
  EXPECT_EQ(back.jobs[2].submit, v.jobs[2].submit);
  // decide() (one job): the same nodes, named, within MaxNodes.
  Options o;
  o.max_nodes = 8;
  const auto ranks = ranks_on({{"node1", 2}, {"node2", 2}, {"node3", 2}, {"node4", 2}});
  const Plan p = decide_in(s, ranks, o, input_on(ranks));
  ASSERT_EQ(p.kind, Plan::Kind::Acquire) << p.why;
  EXPECT_EQ(p.acquire, 2);
  EXPECT_EQ(p.nodes, (std::vector<std::string>{"node5", "node7"}));
  // At the partition's MaxNodes: no growth.
  const auto six = ranks_on({{"node1", 1}, {"node2", 1}, {"node3", 1}, {"node4", 1}, {"node5", 1}, {"node7", 1}});
  Snapshot full = s;
  full.mine.node_list = {"node1", "node2", "node3", "node4", "node5", "node7"};
  full.idle = {"node8", "node10"};
  const Plan q = decide_in(full, six, o, input_on(six));
  EXPECT_EQ(q.kind, Plan::Kind::None);
  EXPECT_NE(q.why.find("partition"), std::string::npos) << q.why;
}

TEST(SlurmOrder, SingleJobClientReadsSlurmsOrder) {
  ScriptedSlurm f;
  f.script = {{"squeue -h -j 7", {0, slurm_snapshot::own_record("7", "node[1-4]", "batch")}},
              {"sinfo -h -o '%P %t %s %N'", {0, kSinfo}},
              {std::string("squeue -h -t PD --sort=V -o '") + kSqueueFormat + "'",
               {0, slurm_snapshot::records(line("20", "PENDING", 3, "", "500", "2026-11-26T10:00:00", "batch") +
                                           line("21", "PENDING", 1, "", "900", "2026-11-26T10:30:00", "batch") +
                                           line("22", "PENDING", 3, "", "990", "2026-11-26T10:40:00", "gpu"))}}};
  Client c(f.runner(), "7");
  const Snapshot s = c.snapshot();
  EXPECT_EQ(s.mine.partition, "batch");
  ASSERT_EQ(s.pending.size(), 2u);  // 22 waits in gpu
  EXPECT_EQ(s.pending[0].id, "21");
  EXPECT_EQ(s.pending[1].id, "20");
  Options o;
  o.max_nodes = 6;
  const auto ranks = ranks_on({{"node1", 2}, {"node2", 2}, {"node3", 2}, {"node4", 2}});
  const Plan p = decide_in(s, ranks, o, input_on(ranks));
  // 3 idle nodes in batch cover job 21, the first in Slurm's order: it starts without us.
  EXPECT_EQ(p.kind, Plan::Kind::None) << p.why;
  // The expansion is asked for in the job's partition.
  f.script = {{"squeue -h -j 7", {0, slurm_snapshot::own_record("7", "node[1-4]", "batch")}},
              {"salloc -N 1 -w node5", {1, "salloc: error: refused"}}};
  EXPECT_THROW(c.acquire(std::vector<std::string>{"node5"}), cluster::Error);
  ASSERT_EQ(f.seen.size(), 5u);
  EXPECT_NE(f.seen.back().find(" -p batch"), std::string::npos) << f.seen.back();
  EXPECT_EQ(f.seen.back().find("--qos"), std::string::npos) << f.seen.back();
  // And in the job's QOS (Slurm refuses an expansion in another, "Job dependency
  // problem"); none without accounting (QOS=(null)).
  for (const std::string qos : {"small", "(null)"}) {
    f.script = {{"squeue -h -j 7",
                 {0, slurm_snapshot::own_record("7", "node[1-4]", "batch", qos)}},
                {"salloc -N 1 -w node5", {1, "salloc: error: refused"}}};
    EXPECT_THROW(c.acquire(std::vector<std::string>{"node5"}), cluster::Error);
    EXPECT_EQ(f.seen.back().find("--qos") != std::string::npos, qos == "small") << f.seen.back();
    if (qos == "small") {
      EXPECT_NE(f.seen.back().find(" --qos=small"), std::string::npos) << f.seen.back();
    }
  }
}
