// SPDX-License-Identifier: BSD-3-Clause
// Slurm's order in the arbiter, on recorded snapshots (squeue and sinfo in the formats
// the views ask for, as Slurm 22.05 prints them): waiting jobs by priority, not submit
// order; growth only onto idle nodes of the job's partition, within its MaxNodes, never
// onto a node in a reservation or one the backfill plan starts a waiting job on. And the
// shared directory's file modes. QOS limits on recorded snapshots: qos_test.cpp. The
// single-job decision with the session's growth model in Slurm's order:
// tests/resize/policy/resize_slurm_order_test.cpp.
#include <gtest/gtest.h>
#include <grp.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "malleable/cluster/cluster.hpp"
#include "slurm_order_fixture_util.hpp"
#include "slurm_snapshot_util.hpp"

using namespace cluster::slurm;
using namespace slurm_snapshot;
using namespace slurm_order_fixture;

TEST(SlurmOrder, ParsesPrioritySubmitPartitionAndTheBackfillPlan) {
  const auto jobs = parse_squeue(slurm_snapshot::records(line("7", "RUNNING", 2, "node[1-2]", "4000", "2026-11-26T10:00:00", "batch",
                                      "2026-11-26T10:00:05", "(null)") +
                                 line("21", "PENDING", 2, "", "9000", "2026-11-26T10:05:00", "batch",
                                      "2026-11-26T11:00:00", "node[5-6]", "Resources", "min_nodes=1|x")));
  ASSERT_EQ(jobs.size(), 2u);
  EXPECT_EQ(jobs[0].priority, 4000);
  EXPECT_EQ(jobs[0].partition, "batch");
  EXPECT_EQ(jobs[0].planned_start, 0);  // a running job's %S is its start, not a plan
  EXPECT_EQ(jobs[1].priority, 9000);
  EXPECT_EQ(jobs[1].submit, 1795687500);  // 2026-11-26T10:05:00 UTC
  EXPECT_EQ(jobs[1].planned_start, 1795690800);
  EXPECT_EQ(jobs[1].planned_nodes, (std::vector<std::string>{"node5", "node6"}));
  EXPECT_EQ(jobs[1].nodes, 1);  // the comment (with a '|') still names the minimum
  EXPECT_EQ(jobs[1].reason, "Resources");
  // Epoch seconds (the cached view) and no plan.
  const auto e = parse_squeue(slurm_snapshot::records("5|PENDING|1||a|Priority|prio=|submit=1700000000|part=|start=Unknown|plan=|\n"));
  EXPECT_EQ(e[0].submit, 1700000000);
  EXPECT_EQ(e[0].priority, 0);
  EXPECT_TRUE(e[0].planned_nodes.empty());
  // The older formats still read.
  EXPECT_EQ(parse_squeue(slurm_snapshot::records("12|PENDING|2|\n13|RUNNING|1|node3|x|None|c|d\n")).size(), 2u);
  // A bad field: the error names the job and the field; read_squeue keeps the others.
  for (const std::string bad : {"5|PENDING|1||a|Priority|prio=high|submit=|part=|start=|plan=|\n",
                                "5|PENDING|1||a|Priority|prio=1|submit=yesterday|part=|start=|plan=|\n",
                                "5|PENDING|1||a|Priority|prio=1|submit=|part=|start=|plan=n[1-|\n"}) {
    try {
      parse_squeue(slurm_snapshot::records(bad));
      ADD_FAILURE() << "accepted " << bad;
    } catch (const cluster::Error& err) {
      EXPECT_EQ(std::string(err.what()).rfind("squeue: job 5: ", 0), 0u) << err.what();
    }
    const JobList l = read_squeue(slurm_snapshot::records(bad + "6|RUNNING|1|n2\n"));
    ASSERT_EQ(l.jobs.size(), 1u) << bad;
    EXPECT_EQ(l.jobs[0].id, "6");
    EXPECT_EQ(l.unreadable.count("5"), 1u);
  }
  // Text that is not records of kSqueueFormat at all: an Error.
  EXPECT_THROW(read_squeue("5|PENDING|1||a|Priority\n"), cluster::Error);
  EXPECT_THROW(read_squeue(slurm_snapshot::records("5|PENDING|1|").substr(0, 100)), cluster::Error);
  EXPECT_EQ(parse_time_left("1-02:03:04"), 93784);
  EXPECT_EQ(parse_time_left("03:04"), 184);
  EXPECT_EQ(parse_time_left("UNLIMITED"), -1);
  EXPECT_THROW(parse_time_left("1-2-3"), cluster::Error);
  EXPECT_EQ(parse_slurm_time("N/A"), 0);
  EXPECT_EQ(parse_slurm_time("1970-01-02T00:00:00"), 86400);
  EXPECT_THROW(parse_slurm_time("2026-13-01T00:00:00"), cluster::Error);
}

TEST(SlurmOrder, SinfoPartitionsReservationsAndPlannedNodes) {
  // Reserved (resv) and planned (plnd: held by the backfill plan) nodes are not idle; a node
  // of two partitions is listed once.
  EXPECT_EQ(idle_nodes(std::string(kSinfo) + "all idle 1-infinite node[7-8,10]\nbatch* plnd 1-6 node11\n"),
            (std::vector<std::string>{"node5", "node7", "node8", "node10"}));
  const auto parts = parse_partitions(kSinfo);
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_EQ(parts[0].name, "batch");  // without the default's '*'
  EXPECT_EQ(parts[0].max_nodes, 6);
  EXPECT_EQ(parts[0].nodes.size(), 8u);
  EXPECT_EQ(parts[1].max_nodes, 0);  // infinite
  EXPECT_TRUE(in_partition(parts, "gpu,batch", "node6"));
  EXPECT_FALSE(in_partition(parts, "gpu", "node6"));
  EXPECT_TRUE(in_partition(parts, "hidden", "node6"));  // a partition sinfo does not list: unknown
  EXPECT_EQ(partition_max_nodes(parts, "batch"), 6);
  EXPECT_EQ(partition_max_nodes(parts, "batch,gpu"), 0);
  EXPECT_TRUE(parse_partitions("idle node[1-2]\n").empty());  // the older format: no partitions
  EXPECT_THROW(parse_partitions("batch idle 1-4 node1 extra\n"), cluster::Error);
  EXPECT_THROW(idle_nodes("batch idle node1\n"), cluster::Error);  // three words: which is which?
  EXPECT_THROW(parse_partitions("batch idle 1-many node1\n"), cluster::Error);
}

TEST(SlurmOrder, RecordedFromSlurm2205) {
  // Slurm 22.05 on the emulated cluster (cluster.sh up 3 --slurm --no-accounting; sbatch
  // -N 2 "sleep 120", then -N 3 and -N 1 --dependency=afterany:1), with the policy's
  // commands (SLURM_TIME_FORMAT=standard squeue -h --sort=V -o kSqueueFormat; sinfo -h
  // -o '%P %t %s %N'), then `scontrol create reservation ... Nodes=node3`. The backfill
  // plan starts job 2 on node[1-3]; node3, idle, is listed plnd, then resv.
  const std::string squeue =
      "2|PENDING|3||waiter|Resources|prio=4294901758|submit=2026-11-26T14:09:33|part=box|start=2026-11-26T14:14:34|"
      "plan=node[1-3]|(null)\n"
      "1|RUNNING|2|node[1-2]|runner|None|prio=4294901759|submit=2026-11-26T14:09:33|part=box|start=2026-11-26T14:09:34|"
      "plan=(null)|(null)\n"
      "3|PENDING|1||after|Dependency|prio=4294901757|submit=2026-11-26T14:09:33|part=box|start=N/A|plan=(null)|(null)\n";
  const ClusterView v = view(squeue, "box* plnd 1-infinite node3\nbox* alloc 1-infinite node[1-2]");
  ASSERT_EQ(v.jobs.size(), 3u);
  EXPECT_EQ(v.jobs[0].priority, 4294901758.0);
  EXPECT_EQ(v.jobs[0].planned_nodes, (std::vector<std::string>{"node1", "node2", "node3"}));
  EXPECT_GT(v.jobs[0].planned_start, v.jobs[0].submit);
  EXPECT_EQ(v.jobs[2].planned_start, 0);
  EXPECT_TRUE(v.idle.empty());  // plnd: held for job 2
  ASSERT_EQ(v.partitions.size(), 1u);
  EXPECT_EQ(v.partitions[0].name, "box");
  EXPECT_EQ(v.partitions[0].nodes.size(), 3u);
  const Snapshot s = snapshot_of(v, "1");
  ASSERT_EQ(s.pending.size(), 1u);  // job 3 waits for a dependency
  EXPECT_EQ(s.pending[0].id, "2");
  EXPECT_TRUE(idle_nodes("box* resv 1-infinite node3\nbox* alloc 1-infinite node[1-2]\n").empty());
  // Had Slurm listed node3 idle (an older Slurm has no plnd state): still not grown onto.
  Snapshot t = s;
  t.idle = {"node3"};
  EXPECT_TRUE(growable_idle(t, t.idle).empty());
}

TEST(SlurmOrder, ArbiterServesTheHigherPriorityJobFirst) {
  // Job 20 was submitted first, job 21 has the higher priority; no idle node in batch.
  const ClusterView v =
      view(line("7", "RUNNING", 4, "node[1-4]", "100", "2026-11-26T09:00:00", "batch") +
               line("20", "PENDING", 3, "", "500", "2026-11-26T10:00:00", "batch") +
               line("21", "PENDING", 1, "", "900", "2026-11-26T10:30:00", "batch"),
           "batch* alloc 1-infinite node[1-8]\n");
  const Snapshot s = snapshot_of(v, "7");
  ASSERT_EQ(s.pending.size(), 2u);
  EXPECT_EQ(s.pending[0].id, "21");
  const auto a = arbitrate(v, {}, job("7", {"node1", "node2", "node3", "node4"}), saving(1), 100, opts());
  EXPECT_EQ(a.rule, "give-back") << a.plan.why;
  EXPECT_EQ(a.for_job, "21");
  EXPECT_EQ(a.plan.nodes.size(), 1u);  // by submit order it would have been 3 for job 20
  // Equal priorities: the earlier submit first; no priority at all: the view's order.
  std::vector<Job> same{Job{"1", "PENDING", 1, {}, "", "", 5, 300}, Job{"2", "PENDING", 1, {}, "", "", 5, 200},
                        Job{"3", "PENDING", 1, {}, "", "", 0, 0}, Job{"4", "PENDING", 1, {}, "", "", 0, 0}};
  sort_slurm_order(same);
  EXPECT_EQ(same[0].id, "2");
  EXPECT_EQ(same[2].id, "3");
  EXPECT_EQ(same[3].id, "4");
}

TEST(SlurmOrder, GrowthNeverTakesANodeTheBackfillPlanStartsAWaitingJobOn) {
  // Job 21 (higher priority than any growth request, a new job behind it) waits for 1
  // node; Slurm's backfill plan starts it on node8, idle now, once it has been eligible.
  // Counting idle nodes in list order would give it node5 and leave node8 to the growth.
  const ClusterView v = view(line("7", "RUNNING", 4, "node[1-4]", "100", "2026-11-26T09:00:00", "batch") +
                                 line("21", "PENDING", 1, "", "900", "2026-11-26T10:30:00", "batch",
                                      "2026-11-26T11:00:00", "node8"),
                             "batch* alloc 1-infinite node[1-4,6]\nbatch* idle 1-infinite node[5,7-8]\n");
  const auto a = grow_round(v, job("7", {"node1", "node2", "node3", "node4"}));
  ASSERT_EQ(a.rule, "acquire") << a.plan.why;
  EXPECT_EQ(a.plan.nodes, (std::vector<std::string>{"node5", "node7"}));
  // The plan holds the node even when the job's count is covered otherwise (two planned
  // nodes, one needed): neither is grown onto.
  const ClusterView w = view(line("7", "RUNNING", 4, "node[1-4]", "100", "2026-11-26T09:00:00", "batch") +
                                 line("21", "PENDING", 1, "", "900", "2026-11-26T10:30:00", "batch",
                                      "2026-11-26T11:00:00", "node[7-8]"),
                             "batch* alloc 1-infinite node[1-4,6]\nbatch* idle 1-infinite node[5,7-8]\n");
  const auto b = grow_round(w, job("7", {"node1", "node2", "node3", "node4"}));
  ASSERT_EQ(b.rule, "acquire") << b.plan.why;
  EXPECT_EQ(b.plan.nodes, (std::vector<std::string>{"node5"}));
  // The single-job policy: the same nodes left out, the rest named for salloc -w.
  Snapshot s = snapshot_of(v, "7");
  s.pending.clear();  // decide() grows only when nobody waits: the plan of a job not waiting
  s.pending.push_back(Job{"30", "PENDING", 1, {}, "", "JobHeldUser"});
  s.pending.back().planned_nodes = {"node5"};
  std::string why;
  EXPECT_EQ(growable_idle(s, s.idle, &why), (std::vector<std::string>{"node7", "node8"}));
  EXPECT_NE(why.find("node5 planned by the backfill plan"), std::string::npos) << why;
}

namespace {
unsigned mode_of(const std::string& path) {
  struct stat st {};
  EXPECT_EQ(::stat(path.c_str(), &st), 0) << path;
  return st.st_mode & 07777;
}
gid_t group_of(const std::string& path) {
  struct stat st {};
  EXPECT_EQ(::stat(path.c_str(), &st), 0) << path;
  return st.st_gid;
}
Runner fake_slurm() {
  return [](const Argv& argv) {
    const std::string cmd = command_line(argv);
    if (cmd.rfind("squeue", 0) == 0) return Command{0, slurm_snapshot::records("7|RUNNING|1|node1\n")};
    return Command{0, "batch idle 1-infinite node2\n"};
  };
}
// Every file under `dir`: none world-writable, each with mode `mode`.
void expect_files(const std::string& dir, unsigned mode, int at_least) {
  int n = 0;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir)) {
    if (!e.is_regular_file()) continue;
    ++n;
    EXPECT_EQ(mode_of(e.path()), mode) << e.path();
    EXPECT_EQ(mode_of(e.path()) & 0002, 0u) << e.path();
  }
  EXPECT_GE(n, at_least);
}
void use(SharedDir& d) {
  bool queried = false;
  d.view(fake_slurm(), 100, 2, "7", queried);
  EXPECT_TRUE(queried);
  d.update([](const Ledger&) {
    Ledger l;
    l.entries.push_back(LedgerEntry{LedgerEntry::Kind::Bid, "7", "", {}, 1, 1, 100, 200});
    return l;
  });
  d.log("7", "{}");
}
}  // namespace

TEST(SlurmOrder, SharedDirectoryNeverWorldWritable) {
  std::string tmpl = (std::filesystem::temp_directory_path() / "resize_shared_modes_XXXXXX").string();
  ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
  const std::string root = tmpl;
  const mode_t old = ::umask(0);  // the modes must not depend on the umask
  {
    // Per-user: an older version's 0666 file is narrowed.
    std::filesystem::create_directories(root + "/home/.malleable/slurm/c1");
    std::ofstream(root + "/home/.malleable/slurm/c1/ledger") << "";
    ::chmod((root + "/home/.malleable/slurm/c1/ledger").c_str(), 0666);
    ::chmod((root + "/home/.malleable/slurm/c1").c_str(), 0777);
    SharedDir d(root + "/home/.malleable/slurm/c1");
    EXPECT_EQ(d.access(), SharedAccess::PerUser);
    EXPECT_EQ(mode_of(d.dir()), 0700u);
    EXPECT_EQ(mode_of(d.dir() + "/log"), 0700u);
    use(d);
    expect_files(d.dir(), 0600, 6);  // view, view.lock, queries.log, ledger, ledger.lock, log/7.jsonl
    SharedDir fresh(root + "/home2/c2");
    EXPECT_EQ(mode_of(fresh.dir()), 0700u);
  }
  {
    // Shared-group: created setgid, files 0660 in the directory's group.
    SharedDir g(root + "/common/cluster", SharedAccess::Group);
    EXPECT_EQ(std::string(to_string(g.access())), "shared-group");
    EXPECT_EQ(mode_of(g.dir()), 02770u);
    EXPECT_EQ(mode_of(g.dir() + "/log"), 02770u);
    use(g);
    expect_files(g.dir(), 0660, 6);
    EXPECT_EQ(group_of(g.dir() + "/ledger"), group_of(g.dir()));
    EXPECT_EQ(group_of(g.dir() + "/log/7.jsonl"), group_of(g.dir()));
    // An administrator's directory keeps its mode.
    std::filesystem::create_directories(root + "/admin");
    ::chmod((root + "/admin").c_str(), 02775);
    SharedDir a(root + "/admin", SharedAccess::Group);
    EXPECT_EQ(mode_of(a.dir()), 02775u);
    use(a);
    expect_files(a.dir(), 0660, 6);
  }
  ::umask(old);
  std::filesystem::remove_all(root);
}
