// SPDX-License-Identifier: BSD-3-Clause
// The Slurm policy under the arbiter (many malleable jobs under one Slurm): policies that
// share one cluster view per interval through the shared directory, against a small Slurm
// answering their commands. No Slurm needed. arbitrate() alone, on Slurm snapshots:
// tests/cluster/unit/arbitration/slurm_arbiter_test.cpp.
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
