// SPDX-License-Identifier: BSD-3-Clause
// The Slurm policy's pure parts: decisions from snapshots, and the command sequence
// against a scripted stand-in for Slurm (no Slurm needed). Slurm's output parsed:
// tests/cluster/unit/slurm/slurm_nodes_test.cpp.
#include <gtest/gtest.h>

#include <tuple>

#include "malleable/cluster/cluster.hpp"
#include "slurm_policy_util.hpp"

using namespace resize;
using namespace cluster::slurm;
using slurm_snapshot::decide_in;
using slurm_snapshot::input_on;
using slurm_snapshot::ranks_on;
using slurm_snapshot::ScriptedSlurm;

namespace {
Snapshot snap(std::vector<std::string> mine, std::vector<std::string> idle, std::vector<Job> pending = {}) {
  Snapshot s;
  s.mine = Job{"7", "RUNNING", static_cast<int>(mine.size()), mine};
  s.idle = std::move(idle);
  s.pending = std::move(pending);
  return s;
}
}  // namespace

TEST(Slurm, GivesBackTheLastJoinedNodesWhenAJobWaitsForThem) {
  Options o;
  o.max_nodes = 4;
  PolicyInput in;
  in.world_size = 16;
  const auto ranks = ranks_on({{"node1", 4}, {"node2", 4}, {"node3", 4}, {"node4", 4}});
  const auto p = decide_in(snap({"node1", "node2", "node3", "node4"}, {}, {Job{"9", "PENDING", 2, {}}}), ranks, o, in);
  EXPECT_EQ(p.kind, Plan::Kind::GiveBack);
  EXPECT_EQ(p.nodes, (std::vector<std::string>{"node4", "node3"}));
  // One idle node already: only one more is needed.
  EXPECT_EQ(decide_in(snap({"node1", "node2", "node3", "node4"}, {"node5"}, {Job{"9", "PENDING", 2, {}}}), ranks, o, in).nodes,
            (std::vector<std::string>{"node4"}));
  // Never below min_nodes, never rank 0's node.
  o.min_nodes = 3;
  EXPECT_EQ(decide_in(snap({"node1", "node2", "node3", "node4"}, {}, {Job{"9", "PENDING", 2, {}}}), ranks, o, in).kind,
            Plan::Kind::None);
  o.min_nodes = 1;
  EXPECT_EQ(decide_in(snap({"node1"}, {}, {Job{"9", "PENDING", 1, {}}}), ranks_on({{"node1", 4}}), o, in).kind,
            Plan::Kind::None);
}

TEST(Slurm, GrowsOntoHeldNodesFirstThenAsksForIdleOnesOnlyIfItPays) {
  Options o;
  o.max_nodes = 4;
  PolicyInput in;
  in.world_size = 4;
  // The allocation has 4 nodes, the processes run on node1 only: use the others.
  auto p = decide_in(snap({"node1", "node2", "node3", "node4"}, {}), ranks_on({{"node1", 4}}), o, in);
  EXPECT_EQ(p.kind, Plan::Kind::UseHeld);
  EXPECT_EQ(p.nodes, (std::vector<std::string>{"node2", "node3", "node4"}));
  // Two nodes, two idle, nothing waits: acquire them (job length unknown).
  in.world_size = 8;
  p = decide_in(snap({"node1", "node2"}, {"node3", "node4"}), ranks_on({{"node1", 4}, {"node2", 4}}), o, in);
  EXPECT_EQ(p.kind, Plan::Kind::Acquire);
  EXPECT_EQ(p.acquire, 2);
  // Somebody waits for more than the idle nodes plus what the job could give: no growing
  // (its nodes stay idle for the waiting job); one node short: give it one.
  EXPECT_EQ(decide_in(snap({"node1", "node2"}, {"node3", "node4"}, {Job{"9", "PENDING", 5, {}}}),
                   ranks_on({{"node1", 4}, {"node2", 4}}), o, in)
                .kind,
            Plan::Kind::None);
  EXPECT_EQ(decide_in(snap({"node1", "node2"}, {"node3", "node4"}, {Job{"9", "PENDING", 3, {}}}),
                   ranks_on({{"node1", 4}, {"node2", 4}}), o, in)
                .nodes,
            (std::vector<std::string>{"node2"}));
  // Payoff: measured 16 processes slower than 8 -> not worth it.
  Metrics m;
  for (int i = 1; i <= 4; ++i) m.add_iteration(IterationSample{i, 16, "4x4", 0.1, 0.1, 0.05});
  for (int i = 5; i <= 8; ++i) m.add_iteration(IterationSample{i, 8, "2x4", 0.1, 0.1, 0.04});
  in.metrics = &m;
  in.iteration = 8;
  o.total_iterations = 100;
  p = decide_in(snap({"node1", "node2"}, {"node3", "node4"}), ranks_on({{"node1", 4}, {"node2", 4}}), o, in);
  EXPECT_EQ(p.kind, Plan::Kind::None);
  EXPECT_NE(p.why.find("does not pay"), std::string::npos) << p.why;
}

// Arefeen's rule (time adaptation) with predicted resize times: 16 processes measured 0.05 s
// per iteration faster than 8, 92 iterations left: a gain of 4.6 s. Growing pays when the
// history predicts a 1 s spawn, not when it predicts 10 s; the plan carries the prediction.
TEST(Slurm, GrowingPaysOnlyWhenThePredictedGainExceedsThePredictedResizeTime) {
  Options o;
  o.min_nodes = 1;
  o.max_nodes = 4;
  o.total_iterations = 100;
  o.use_dedicated = false;
  Metrics m;
  for (int i = 1; i <= 4; ++i) m.add_iteration(IterationSample{i, 16, "4x4", 0.05, 0.05, 0});
  for (int i = 5; i <= 8; ++i) m.add_iteration(IterationSample{i, 8, "2x4", 0.10, 0.10, 0});
  PolicyInput in;
  in.world_size = 8;
  in.iteration = 8;
  in.metrics = &m;
  for (double spawn : {1.0, 10.0}) {
    resize::ResizeHistory h;
    h.add(resize::ResizeEvent{Action::Expand, 8, 16, 2, spawn, 0.1, 0.05, 1e6});
    in.history = &h;
    const Plan p = decide_in(snap({"node1", "node2"}, {"node3", "node4"}), ranks_on({{"node1", 4}, {"node2", 4}}), o, in);
    EXPECT_NEAR(p.predicted_resize, spawn + 0.05, 1e-9) << p.why;  // no expansion measured: redist 0
    EXPECT_NEAR(p.predicted_iteration, 0.05, 1e-12);
    if (spawn < 4.6) {
      EXPECT_EQ(p.kind, Plan::Kind::Acquire) << p.why;
      EXPECT_NE(p.why.find("gain 4.6"), std::string::npos) << p.why;
    } else {
      EXPECT_EQ(p.kind, Plan::Kind::None) << p.why;
      EXPECT_NE(p.why.find("does not pay"), std::string::npos) << p.why;
    }
  }
}

TEST(Slurm, PolicyShrinksThenReturnsTheNodesAndSaysWhyWhenSlurmRefuses) {
  ScriptedSlurm f;
  f.script = {{"squeue -h -j 7", {0, slurm_snapshot::own_record("7", "node[1-4]")}},
              {"sinfo", {0, ""}},
              {"squeue", {0, slurm_snapshot::records("9|PENDING|2|\n")}},
              {"scontrol update JobId=7 NodeList=node[1-2]", {0, ""}},
              {"squeue -h -j 7", {0, slurm_snapshot::own_record("7", "node[1-2]")}}};
  Options now;
  now.interval_s = 0;
  SlurmPolicy pol(std::make_unique<Client>(f.runner(), "7"), now);
  const auto ranks = ranks_on({{"node1", 2}, {"node2", 2}, {"node3", 2}, {"node4", 2}});
  PolicyInput in = input_on(ranks);
  const Decision d = pol.decide(in);
  ASSERT_EQ(d.action, Action::Shrink) << d.reason;
  EXPECT_EQ(d.procs, 4);
  EXPECT_EQ(d.hosts, (std::vector<HostShare>{{"node4", 0}, {"node3", 0}}));
  pol.completed(d, 8, true);
  EXPECT_TRUE(f.script.empty()) << f.seen.back();
  EXPECT_NE(pol.log().back().find("now holds node[1-2]"), std::string::npos) << pol.log().back();

  // Slurm refuses to grow: the job stays, the reason is logged.
  ScriptedSlurm g;
  g.script = {{"squeue -h -j 7", {0, slurm_snapshot::own_record("7", "node1")}},
              {"sinfo", {0, "node[2-3]"}},
              {"squeue", {0, ""}},
              {"squeue -h -j 7", {0, slurm_snapshot::own_record("7", "node1")}},
              {"salloc", {1, "salloc: error: Unable to allocate resources: Requested node configuration is not available"}}};
  Options o;
  o.max_nodes = 3;
  o.interval_s = 0;
  SlurmPolicy grow(std::make_unique<Client>(g.runner(), "7"), o);
  const auto one = ranks_on({{"node1", 4}});
  in = input_on(one);
  const Decision none = grow.decide(in);
  EXPECT_EQ(none.action, Action::None);
  EXPECT_NE(none.reason.find("Unable to allocate resources"), std::string::npos) << none.reason;
}

TEST(Slurm, PolicyCountsAWaitingMalleableJobAtTheMinimumInItsComment) {
  // Recorded from the emulated cluster's Slurm 22.05: a pending job submitted with
  // -N 2-4 --comment=min_nodes=2, which squeue lists at its maximum (%D 4). Job 7 holds
  // four nodes and may shrink to one: giving back four is impossible, two are enough.
  const std::string pending = "9|PENDING|4||j009|Resources|min_nodes=2\n";
  ScriptedSlurm f;
  f.script = {{"squeue -h -j 7", {0, slurm_snapshot::own_record("7", "node[1-4]")}},
              {"sinfo", {0, ""}},
              {std::string("squeue -h -t PD --sort=V -o '") + kSqueueFormat + "'", {0, slurm_snapshot::records(pending)}},
              {"scontrol update JobId=7 NodeList=node[1-2]", {0, ""}},
              {"squeue -h -j 7", {0, slurm_snapshot::own_record("7", "node[1-2]")}}};
  Options o;
  o.interval_s = 0;
  o.min_nodes = 1;
  SlurmPolicy pol(std::make_unique<Client>(f.runner(), "7"), o);
  const auto ranks = ranks_on({{"node1", 1}, {"node2", 1}, {"node3", 1}, {"node4", 1}});
  PolicyInput in = input_on(ranks);
  const Decision d = pol.decide(in);
  ASSERT_EQ(d.action, Action::Shrink) << d.reason;
  EXPECT_EQ(d.procs, 2);
  EXPECT_NE(d.reason.find("waits for 2 node(s)"), std::string::npos) << d.reason;
  pol.completed(d, 4, true);
  EXPECT_TRUE(f.script.empty()) << f.seen.back();

  // Without the comment the same job waits for Slurm's 4: no shrink can cover it.
  ScriptedSlurm g;
  g.script = {{"squeue -h -j 7", {0, slurm_snapshot::own_record("7", "node[1-4]")}},
              {"sinfo", {0, ""}},
              {"squeue", {0, slurm_snapshot::records("9|PENDING|4||j009|Resources|\n")}}};
  SlurmPolicy rigid(std::make_unique<Client>(g.runner(), "7"), o);
  const Decision none = rigid.decide(in);
  EXPECT_EQ(none.action, Action::None) << none.reason;
  EXPECT_NE(none.reason.find("waits for 4 nodes"), std::string::npos) << none.reason;
}

// The levers one at a time (the simulator's growth-only and give-back-only arms): with
// give-backs off, a job on four nodes keeps them while another waits for two; with growth
// off, a job on one node asks for none of the two idle ones. Each lever on alone still acts.
TEST(Slurm, WithALeverOffThePolicyNeitherGivesBackNorGrowsAndTheOtherLeverStillActs) {
  const auto four = ranks_on({{"node1", 1}, {"node2", 1}, {"node3", 1}, {"node4", 1}});
  const auto one = ranks_on({{"node1", 4}});
  const auto waiting = [](ScriptedSlurm& f) {
    f.script = {{"squeue -h -j 7", {0, slurm_snapshot::own_record("7", "node[1-4]")}},
                {"sinfo", {0, ""}},
                {"squeue", {0, slurm_snapshot::records("9|PENDING|2|\n")}}};
  };
  const auto idle = [](ScriptedSlurm& f) {
    f.script = {{"squeue -h -j 7", {0, slurm_snapshot::own_record("7", "node1")}},
                {"sinfo", {0, "node[2-3]"}},
                {"squeue", {0, ""}}};
  };
  Options o;
  o.interval_s = 0;
  o.max_nodes = 3;
  for (const bool give_back : {false, true}) {
    for (const bool grow : {false, true}) {
      o.levers.give_back = give_back;
      o.levers.grow = grow;
      ScriptedSlurm f;
      waiting(f);
      SlurmPolicy pol(std::make_unique<Client>(f.runner(), "7"), o);
      PolicyInput in = input_on(four);
      const Decision d = pol.decide(in);
      EXPECT_EQ(d.action, give_back ? Action::Shrink : Action::None) << grow << give_back << ": " << d.reason;
      ScriptedSlurm g;
      idle(g);
      SlurmPolicy up(std::make_unique<Client>(g.runner(), "7"), o);
      in = input_on(one);
      const Decision u = up.decide(in);
      if (grow) {
        // it goes on to ask Slurm for the idle nodes (the scripted Slurm refuses them)
        EXPECT_GT(g.seen.size(), 3u) << u.reason;
      } else {
        EXPECT_EQ(u.action, Action::None) << u.reason;
        EXPECT_EQ(g.seen.size(), 3u) << g.seen.back();
      }
    }
  }
}

// The levers from the environment: on, off, or a clear error.
TEST(Slurm, TheLeversReadOnOrOffFromTheEnvironmentAndRefuseAnythingElse) {
  setenv("SLURM_JOB_ID", "7", 1);
  setenv("RESIZE_SLURM_SHARED", "off", 1);
  setenv("RESIZE_SLURM_EXPANSION", "on", 1);
  for (const char* name : {"RESIZE_SLURM_GROW", "RESIZE_SLURM_GIVE_BACK"}) {
    for (const char* good : {"on", "off", ""}) {
      setenv(name, good, 1);
      EXPECT_NO_THROW(make_slurm_policy(10)) << name << "=" << good;
    }
    for (const char* bad : {"yes", "0", "OFF", "on "}) {
      setenv(name, bad, 1);
      try {
        make_slurm_policy(10);
        ADD_FAILURE() << name << "=" << bad << " was accepted";
      } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find(std::string(name) + " must be on or off, got '" + bad + "'"),
                  std::string::npos)
            << e.what();
      }
    }
    unsetenv(name);
  }
  unsetenv("SLURM_JOB_ID");
  unsetenv("RESIZE_SLURM_SHARED");
  unsetenv("RESIZE_SLURM_EXPANSION");
}

TEST(Slurm, AfterARefusalThePolicyWaitsLongerEachTimeBeforeAskingForNodesAgain) {
  // Emulated time: each refused request is followed by a wait of 10 s, then 20 s, capped
  // at 30 s; remap points in between read Slurm's state but send no request; a grant
  // resets the wait.
  ScriptedSlurm f;
  const auto state = [&](bool ask, int answer) {
    f.script.push_back({"squeue -h -j 7", {0, slurm_snapshot::own_record("7", "node1")}});
    f.script.push_back({"sinfo", {0, "node2"}});
    f.script.push_back({"squeue", {0, ""}});
    if (!ask) return;
    f.script.push_back({"squeue -h -j 7", {0, slurm_snapshot::own_record("7", "node1")}});
    if (answer != 0) {
      f.script.push_back({"salloc -N 1", {1, "salloc: error: Unable to allocate resources: Connection timed out"}});
      return;
    }
    f.script.push_back({"salloc -N 1", {0, "salloc: Granted job allocation 12\n"}});
    f.script.push_back({"scontrol update JobId=12 NumNodes=0", {0, ""}});
    f.script.push_back({"scontrol update JobId=7 NumNodes=ALL", {0, ""}});
    f.script.push_back({"squeue -h -j 7", {0, slurm_snapshot::own_record("7", "node[1-2]")}});
  };
  double clock = 100;
  Options o;
  o.max_nodes = 3;
  o.interval_s = 0;
  o.refused.backoff_s = 10;
  o.refused.backoff_max_s = 30;
  o.clock = [&] { return clock; };
  o.launch.late_daemons = true;  // its launcher adds daemons late: the second growth is by spawn too
  SlurmPolicy pol(std::make_unique<Client>(f.runner(), "7"), o);
  const auto one = ranks_on({{"node1", 2}});
  PolicyInput in = input_on(one);
  // (time, whether a request goes out, its answer, what the policy does)
  const std::vector<std::tuple<double, bool, int, Action>> steps = {
      {100, true, 1, Action::None},   // refused: wait 10 s
      {109, false, 0, Action::None},  // 9 s later: no request
      {110, true, 1, Action::None},   // refused again: wait 20 s
      {129, false, 0, Action::None},
      {130, true, 1, Action::None},   // and again: 40 s capped at 30
      {159, false, 0, Action::None},
      {160, true, 0, Action::Expand},  // granted
  };
  for (const auto& [t, ask, answer, want] : steps) {
    clock = t;
    state(ask, answer);
    const Decision d = pol.decide(in);
    EXPECT_EQ(d.action, want) << "at " << t << ": " << d.reason;
    EXPECT_TRUE(f.script.empty()) << "at " << t << " Slurm was not asked what the test expected; last: " << f.seen.back();
    f.script.clear();
    if (!ask) {
      EXPECT_NE(d.reason.find("not asking Slurm for nodes again"), std::string::npos) << d.reason;
    }
    if (want == Action::Expand) pol.completed(d, 2, true);
  }
  EXPECT_NE(pol.log()[0].find("next request in 10 s"), std::string::npos) << pol.log()[0];
  bool saw20 = false, saw30 = false;
  for (const auto& l : pol.log()) saw20 |= l.find("next request in 20 s") != std::string::npos,
                                    saw30 |= l.find("next request in 30 s") != std::string::npos;
  EXPECT_TRUE(saw20 && saw30);
  // After the grant the wait starts again at 10 s.
  clock = 200;
  f.script.push_back({"squeue -h -j 7", {0, slurm_snapshot::own_record("7", "node[1-2]")}});
  f.script.push_back({"sinfo", {0, "node3"}});
  f.script.push_back({"squeue", {0, ""}});
  f.script.push_back({"squeue -h -j 7", {0, slurm_snapshot::own_record("7", "node[1-2]")}});
  f.script.push_back({"salloc -N 1", {1, "salloc: error: Unable to allocate resources: Connection timed out"}});
  const auto two = ranks_on({{"node1", 2}, {"node2", 2}});
  in = input_on(two);
  const Decision d = pol.decide(in);
  EXPECT_EQ(d.action, Action::None) << d.reason;
  EXPECT_NE(pol.log().back().find("next request in 10 s"), std::string::npos) << pol.log().back();
}

TEST(Slurm, PolicyAcquiresMergesAndSpawnsOntoTheNewNodes) {
  ScriptedSlurm f;
  f.script = {{"squeue -h -j 7", {0, slurm_snapshot::own_record("7", "node[1-2]")}},
              {"sinfo", {0, "node[3-4]"}},
              {"squeue", {0, ""}},
              {"squeue -h -j 7", {0, slurm_snapshot::own_record("7", "node[1-2]")}},
              {"salloc -N 2", {0, "salloc: Granted job allocation 11\n"}},
              {"scontrol update JobId=11 NumNodes=0", {0, ""}},
              {"scontrol update JobId=7 NumNodes=ALL", {1, "Job update not available right now, the DB index is being set, try again in a bit"}},
              {"squeue -h -j 7", {0, slurm_snapshot::own_record("7", "node[1-4]")}}};
  Options o;
  o.max_nodes = 4;
  o.interval_s = 0;
  // A launcher that adds daemons late (Open MPI 4.1.4's, with daemons on node1 and node2,
  // cannot: then a resize by restart, SlurmPlacement.GrowthOntoANodeTheLauncherCannotReachIsByRestart).
  o.launch.late_daemons = true;
  SlurmPolicy pol(std::make_unique<Client>(f.runner(), "7"), o);
  const auto ranks = ranks_on({{"node1", 2}, {"node2", 2}});
  PolicyInput in = input_on(ranks);
  const Decision d = pol.decide(in);
  ASSERT_EQ(d.action, Action::Expand) << d.reason;
  EXPECT_EQ(d.procs, 8);
  EXPECT_EQ(d.hosts, (std::vector<HostShare>{{"node3", 2}, {"node4", 2}}));
  EXPECT_TRUE(f.script.empty());
  pol.completed(d, 4, true);
}

TEST(Slurm, AFailedExpansionReturnsItsNodesAtTheNextRemapPointNotBefore) {
  ScriptedSlurm f;
  f.script = {{"squeue -h -j 7", {0, slurm_snapshot::own_record("7", "node1")}},
              {"sinfo", {0, "node2"}},
              {"squeue", {0, ""}},
              {"squeue -h -j 7", {0, slurm_snapshot::own_record("7", "node1")}},
              {"salloc -N 1", {0, "salloc: Granted job allocation 11\n"}},
              {"scontrol update JobId=11 NumNodes=0", {0, ""}},
              {"scontrol update JobId=7 NumNodes=ALL", {0, ""}},
              {"squeue -h -j 7", {0, slurm_snapshot::own_record("7", "node[1-2]")}}};
  Options o;
  o.max_nodes = 2;
  o.interval_s = 1e9;  // the second decide asks nothing of the plan: only the return
  SlurmPolicy pol(std::make_unique<Client>(f.runner(), "7"), o);
  const auto ranks = ranks_on({{"node1", 2}});
  PolicyInput in = input_on(ranks);
  const Decision d = pol.decide(in);
  ASSERT_EQ(d.action, Action::Expand) << d.reason;
  ASSERT_TRUE(f.script.empty());
  // The spawn fails: no command yet (a resize by restart may relaunch onto node2 first).
  pol.completed(d, 2, false);
  EXPECT_EQ(f.seen.size(), 8u) << f.seen.back();
  // The job goes on in place: the next remap point returns node2 to Slurm, checked.
  f.script = {{"squeue -h -j 7", {0, slurm_snapshot::own_record("7", "node[1-2]")}},
              {"scontrol update JobId=7 NodeList=node1", {0, ""}},
              {"squeue -h -j 7", {0, slurm_snapshot::own_record("7", "node1")}}};
  EXPECT_EQ(pol.decide(in).action, Action::None);
  EXPECT_TRUE(f.script.empty()) << f.seen.back();
  EXPECT_NE(pol.log().back().find("returned node2 to Slurm"), std::string::npos) << pol.log().back();
}

TEST(Slurm, OutsideASlurmJobThePolicyIsRefused) {
  unsetenv("SLURM_JOB_ID");
  EXPECT_THROW(make_slurm_policy(10), Error);
  setenv("SLURM_JOB_ID", "x1", 1);
  EXPECT_THROW(make_slurm_policy(10), Error);
  unsetenv("SLURM_JOB_ID");
}
