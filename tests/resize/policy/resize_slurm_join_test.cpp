// SPDX-License-Identifier: BSD-3-Clause
// The Slurm policy growing by expander jobs (cluster/expander.hpp, docs/guide/joining.md,
// "Under Slurm"): a plan that acquires a node submits one batch job for it, the job stays
// at its size until that expander's launch waits to join, then grows by joining exactly
// that launch; a waiting job makes it give the node back by a shrink off it, and Slurm is
// never asked to change the job's own allocation. Against a scripted Slurm.
#include <gtest/gtest.h>

#include "malleable/cluster/cluster.hpp"
#include "slurm_policy_util.hpp"

using namespace resize;
using namespace cluster::slurm;

using slurm_snapshot::input_on;
using slurm_snapshot::ranks_on;

namespace {
using Scripted = slurm_snapshot::ScriptedJob7;
using slurm_snapshot::logged;
Options joining() {
  Options o;
  o.interval_s = 0;
  o.max_nodes = 2;
  o.launch.join.dir = "/home/u/.malleable/jobs/7";
  o.launch.join.launcher = "/usr/bin/malleable-run";
  o.launch.join.start_deadline_s = 1e6;
  return o;
}
}  // namespace

TEST(SlurmJoin, AGrowthSubmitsAnExpanderJoinsItsLaunchAndGivesTheNodeBackByAShrink) {
  Scripted f;
  f.remap_point("node1", "idle node2");
  f.script.push_back({"squeue -h -j 7", {0, slurm_snapshot::own_record("7", "node1", "batch", "normal")}});
  f.script.push_back({"sbatch --parsable --nodes=1 --nodelist=node2", {0, "31\n"}});
  SlurmPolicy pol(std::make_unique<Client>(f.runner(), "7"), joining());
  const auto ranks = ranks_on({{"node1", 2}});
  PolicyInput in = input_on(ranks);
  std::vector<PolicyInput::Launch> none;
  in.waiting = &none;
  // 1. Acquire: an expander for node2, the job stays at its size meanwhile.
  Decision d = pol.decide(in);
  EXPECT_EQ(d.action, Action::None) << d.reason;
  EXPECT_TRUE(logged(pol, "submitted expander job(s) 31 on node2")) << pol.log().back();
  ASSERT_GE(f.seen.size(), 5u);
  const std::string sbatch = f.seen.back();
  for (const char* want : {"--partition=batch", "--qos=normal", "--job-name=malleable-expand-7",
                           "/usr/bin/malleable-run --join /home/u/.malleable/jobs/7 --host node2 --id slurm-7-1 -n 2 --while-job 7"})
    EXPECT_NE(sbatch.find(want), std::string::npos) << want << " in " << sbatch;
  // 2. Slurm runs it, but its launch does not wait yet: no growth, no new expander.
  f.script.push_back({"squeue -h -o '%i|%T|%N' -j 31", {0, "31|RUNNING|node2\n"}});
  f.remap_point("node1", "");
  d = pol.decide(in);
  EXPECT_EQ(d.action, Action::None) << d.reason;
  // 3. A launch of another id on node2 is not taken; the expander's own one is, alone.
  std::vector<PolicyInput::Launch> waiting{{"stranger", "node2", 2}, {"slurm-7-1", "node2", 2}};
  in.waiting = &waiting;
  f.script.push_back({"squeue -h -o '%i|%T|%N' -j 31", {0, "31|RUNNING|node2\n"}});
  d = pol.decide(in);
  ASSERT_EQ(d.action, Action::Expand) << d.reason;
  EXPECT_EQ(d.by, ExpandBy::Waiting);
  EXPECT_EQ(d.launches, (std::vector<std::string>{"slurm-7-1"}));
  ASSERT_EQ(d.hosts.size(), 1u);
  EXPECT_EQ(d.hosts[0].host, "node2");
  EXPECT_EQ(d.procs, 4);
  pol.completed(d, 4, true);
  // 4. A rigid job waits for a node: the job gives node2 back by a shrink off it; Slurm's
  // own allocation of the job is left alone (no scontrol update of job 7).
  in.waiting = &none;
  const auto grown = ranks_on({{"node1", 2}, {"node2", 2}});
  PolicyInput in2 = input_on(grown);
  in2.waiting = &none;
  f.script.push_back({"squeue -h -o '%i|%T|%N' -j 31", {0, "31|RUNNING|node2\n"}});
  f.remap_point("node1", "", "9|PENDING|1||rigid|Resources");
  d = pol.decide(in2);
  ASSERT_EQ(d.action, Action::Shrink) << d.reason;
  ASSERT_EQ(d.hosts.size(), 1u);
  EXPECT_EQ(d.hosts[0].host, "node2");
  pol.completed(d, 2, true);
  EXPECT_TRUE(logged(pol, "gave back node2: its launch left, expander job 31 ends")) << pol.log().back();
  for (const auto& c : f.seen) EXPECT_EQ(c.find("scontrol update"), std::string::npos) << c;
  for (const auto& l : pol.log()) EXPECT_EQ(l.find("failed"), std::string::npos) << l;
  EXPECT_TRUE(f.script.empty()) << f.script.front().first;
}

TEST(SlurmJoin, AnExpanderNotStartedInTimeIsCancelledAndTheJobStaysAsItIs) {
  Scripted f;
  f.remap_point("node1", "idle node2");
  f.script.push_back({"squeue -h -j 7", {0, slurm_snapshot::own_record("7", "node1")}});
  f.script.push_back({"sbatch --parsable", {0, "31\n"}});
  Options o = joining();
  double clock = 0;
  o.clock = [&] { return clock; };
  o.launch.join.start_deadline_s = 90;
  SlurmPolicy pol(std::make_unique<Client>(f.runner(), "7"), o);
  const auto ranks = ranks_on({{"node1", 2}});
  PolicyInput in = input_on(ranks);
  std::vector<PolicyInput::Launch> none;
  in.waiting = &none;
  EXPECT_EQ(pol.decide(in).action, Action::None);
  clock = 100;  // past the deadline, still pending: cancelled; nothing else asked of Slurm
  f.script.push_back({"squeue -h -o '%i|%T|%N' -j 31", {0, "31|PENDING|\n"}});
  f.script.push_back({"scancel 31", {0, ""}});
  f.remap_point("node1", "");
  EXPECT_EQ(pol.decide(in).action, Action::None);
  EXPECT_TRUE(logged(pol, "cancelled expander job(s) 31")) << [&] { std::string a; for (auto& l : pol.log()) a += l + "\n"; return a; }();
  EXPECT_TRUE(f.script.empty()) << f.script.front().first;
}

TEST(SlurmJoin, WithoutAJobDirectoryOrWithJoinOffTheJobGrowsAsBefore) {
  config::Slurm env;
  Options o;
  join_options(env, o);
  EXPECT_TRUE(o.launch.join.dir.empty());
  env.job_dir = "/home/u/.malleable/jobs/7";
  env.launcher = "/usr/bin/malleable-run";
  join_options(env, o);
  EXPECT_EQ(o.launch.join.dir, "/home/u/.malleable/jobs/7");
  Options off;
  env.join = "off";
  join_options(env, off);
  EXPECT_TRUE(off.launch.join.dir.empty());
  env.join = "maybe";
  EXPECT_THROW(join_options(env, off), Error);
  env.join = "auto";
  env.launcher = "malleable-run";  // not absolute: a clear error, not a guess
  EXPECT_THROW(join_options(env, off), Error);
}
