// SPDX-License-Identifier: BSD-3-Clause
// The arbiter's --extend-limits at a job's start (cluster/src/daemon/start_limit.hpp), no
// Slurm: fake answers of `scontrol show job -o`, `scontrol write batch_script` and sacct's
// SubmitLine. A job of the recipe that Slurm started below the top of its node range gets
// one raise by the simulator's rule (limits::raise_at_start); at the top, a job that never
// asks, the switch off, or a record that cannot be read (garbage, oversized, a field named
// twice): none, a refusal said in one line.
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "daemon/start_limit.hpp"
#include "daemon/state.hpp"
#include "malleable/cluster/time_limit.hpp"
#include "squeue_render_util.hpp"

using namespace cluster::arbiter;
namespace slurm = cluster::slurm;
namespace limits = cluster::limits;

namespace {

constexpr double kStart = 100000;  // job 7's start (epoch seconds)
constexpr std::uint32_t kA = 1000;
using Kind = StartDecision::Kind;

std::string clock(double s) {
  const long v = std::lround(s);
  char buf[32];
  std::snprintf(buf, sizeof buf, "%02ld:%02ld:%02ld", v / 3600, v / 60 % 60, v % 60);
  return buf;
}

// Slurm's view at `t`: job 7 (uid A) running on `count` nodes since kStart, its limit `limit`.
slurm::ClusterView view(double t, int count, double limit) {
  const std::string nodes = count == 1 ? "node1" : "node[1-" + std::to_string(count) + "]";
  const std::string rec = squeue_render::render(
      slurm::kSqueueFormat, {{'i', "7"}, {'T', "RUNNING"}, {'D', std::to_string(count)}, {'N', nodes},
                             {'S', std::to_string(static_cast<long>(kStart))}, {'L', clock(kStart + limit - t)},
                             {'U', std::to_string(kA)}, {'r', "None"}, {'j', "job"}, {'k', "(null)"}, {'Q', "100"},
                             {'V', "90000"}});
  return slurm::make_view(t, rec + "\n", "");
}

// `scontrol show job -o 7` as Slurm prints it (the fields read, among others).
std::string record(int nodes, const std::string& limit = "00:04:00", const std::string& name = "job",
                   const std::string& start = "100000", const std::string& command = "/home/u/job.sh") {
  return "JobId=7 JobName=" + name + " UserId=u(1000) GroupId=u(1000) JobState=RUNNING RunTime=00:00:20 TimeLimit=" + limit +
         " TimeMin=N/A SubmitTime=99990 StartTime=" + start + " EndTime=Unknown NodeList=node[1-2] NumNodes=" +
         std::to_string(nodes) + " NumCPUs=2 Command=" + command + " WorkDir=/home/u StdOut=/home/u/out\n";
}

StartRead read(const std::string& rec, const std::string& script = "#!/bin/bash\n#SBATCH -N 2-3\n#SBATCH -t 4\nrun\n",
               const std::string& submit = "sbatch job.sh\n", int sacct_status = 0) {
  return StartRead{"7", slurm::Command{0, rec}, slurm::Command{0, script}, slurm::Command{sacct_status, submit}};
}

// The facts: squeue at its first request (2 nodes, 4 min), its model (3 s an iteration on
// 2 nodes, 2 s on 3).
StartFacts facts(int start_nodes = 2, double t_start = 3, double t_top = 2) {
  slurm::Growth g;
  g.measured_iteration = t_start;
  g.predicted_iteration = t_top;
  return StartFacts{std::string(1, '7'), limits::LimitBook{kStart, 240, start_nodes, 0}, {{1, g}}, start_nodes, false};
}

Request ask7(int nodes) {
  Request r;
  r.challenge = "00112233445566778899aabbccddeeff";
  r.kind = Request::Kind::Arbitrate;
  r.job.id = "7";
  for (int n = 1; n <= nodes; ++n) r.job.rank_hosts.push_back("node" + std::to_string(n));
  r.job.per_node = 1;
  r.job.min_nodes = 2;
  r.job.max_nodes = 3;
  slurm::Growth g;
  g.why = "model";
  g.measured_iteration = 3;
  g.predicted_iteration = 2;
  r.growth[1] = g;
  return r;
}

StateOptions opts(bool extend) {
  StateOptions so;
  so.extend_limits = extend;
  so.qos_interval_s = 0;
  return so;
}

// Job 7 asks at kStart + 20 (`nodes` held, 4 min): the starts the state then wants read.
std::vector<std::string> asked(ArbiterState& st, int nodes, bool ask = true) {
  st.set_view(view(kStart + 20, nodes, 240), owners_of(view(kStart + 20, nodes, 240).jobs));
  if (ask) {
    bool changed = false;
    const Reply r = st.handle(ask7(nodes), kA, kStart + 20, changed);
    EXPECT_TRUE(r.ok) << r.error;
  }
  return st.take_start_reads();
}

}  // namespace

// One rule: the simulator's limit at a start below the request (Cluster::limit_on calls
// limits::limit_at_start; tests/clustersim/time_limit_test.cpp feeds it the same job) and
// the daemon's raise: 4 min x 3/2 = 6 min on 2 of -N 2-3.
TEST(ArbiterStartLimit, StartedBelowItsRangeOneRaiseByTheRule) {
  const StartDecision d = decide_start_limit(facts(), read(record(2)));
  ASSERT_EQ(d.kind, Kind::Raise) << d.why;
  EXPECT_EQ(d.raise->old_min, 4);
  EXPECT_EQ(d.raise->new_min, 6);
  EXPECT_DOUBLE_EQ(d.raise->by_s, limits::limit_at_start(240, 2, 3, 3, 2).limit_s - 240);
  EXPECT_EQ(d.why.rfind("start-below-range: -N 2-3 (the batch script)", 0), 0u) << d.why;
  // the model claims 2 nodes 10x slower: the cap (perfect scaling from the top, 6 min)
  const StartDecision capped = decide_start_limit(facts(2, 30, 2), read(record(2)));
  ASSERT_EQ(capped.kind, Kind::Raise);
  EXPECT_EQ(capped.raise->new_min, 6);
  EXPECT_GT(capped.raise->cut_s, 0);
  // no model for the range's top: perfect scaling, the dearest case (the cap)
  StartFacts none = facts();
  none.growth.clear();
  EXPECT_EQ(decide_start_limit(none, read(record(2))).raise->new_min, 6);
  // the sbatch line's -N wins over the script's
  const StartDecision line = decide_start_limit(facts(), read(record(2), "#SBATCH -N 2\n", "sbatch -N 2-3 job.sh -N 9\n"));
  ASSERT_EQ(line.kind, Kind::Raise) << line.why;
  EXPECT_NE(line.why.find("(the sbatch command line)"), std::string::npos);
  // a job without a script (sbatch --wrap: Command=(null)): its options end at --wrap
  const std::string wrap_record = record(2, "00:04:00", "job", "100000", "(null)");
  EXPECT_EQ(decide_start_limit(facts(), read(wrap_record, "#!/bin/sh\n", "sbatch -N 2-3 --wrap 'run -N 9'\n")).kind, Kind::Raise);
  EXPECT_EQ(decide_start_limit(facts(), read(wrap_record, "#!/bin/sh\n", "sbatch -N 2-3 run.sh\n")).kind, Kind::Refused);
}

TEST(ArbiterStartLimit, NoneAtTheTopOrWithoutARangeOrRaisedAlready) {
  EXPECT_EQ(decide_start_limit(facts(3), read(record(3))).kind, Kind::None);
  EXPECT_EQ(decide_start_limit(facts(), read(record(2), "#SBATCH -N 2-3\n", "sbatch -N 2 job.sh\n")).kind, Kind::None);
  EXPECT_EQ(decide_start_limit(facts(), read(record(2), "#!/bin/sh\nrun\n", "sbatch job.sh\n")).kind, Kind::None);
  // its TimeLimit above the book's: raised already (before a restart): never twice
  const StartDecision twice = decide_start_limit(facts(), read(record(2, "00:06:00")));
  EXPECT_EQ(twice.kind, Kind::None);
  EXPECT_NE(twice.why.find("never twice"), std::string::npos) << twice.why;
  EXPECT_EQ(decide_start_limit(facts(), read(record(2, "UNLIMITED"))).kind, Kind::None);
  EXPECT_EQ(decide_start_limit(facts(), read(record(3))).kind, Kind::None);  // grew since its start
}

TEST(ArbiterStartLimit, SacctNotThereYetReadsAgainThenTheScriptAlone) {
  EXPECT_EQ(decide_start_limit(facts(), read(record(2), "#SBATCH -N 2-3\n", "")).kind, Kind::Again);
  StartFacts last = facts();
  last.last_try = true;
  EXPECT_EQ(decide_start_limit(last, read(record(2), "#SBATCH -N 2-3\n", "")).kind, Kind::Raise);
  // no accounting at all (sacct fails): the script alone
  EXPECT_EQ(decide_start_limit(facts(), read(record(2), "#SBATCH -N 2-3\n", "no slurmdbd", 1)).kind, Kind::Raise);
}

TEST(ArbiterStartLimit, GarbageOrOversizedRecordsAreRefusedInOneLine) {
  const auto refused = [](const StartRead& r, const std::string& says) {
    const StartDecision d = decide_start_limit(facts(), r);
    EXPECT_EQ(d.kind, Kind::Refused) << says << ": " << d.why;
    EXPECT_FALSE(d.raise.has_value());
    EXPECT_NE(d.why.find(says), std::string::npos) << d.why;
    EXPECT_EQ(d.why.find('\n'), std::string::npos);
  };
  refused(read(record(2, "00:04:00", "x TimeLimit=99-00:00:00")), "TimeLimit= more than once");
  refused(read(record(2, "00:04:00", "x NumNodes=1")), "NumNodes= more than once");
  refused(read(record(2, "00:04:00", "job" + std::string(70000, 'a'))), "over 65536 bytes");
  refused(read(record(2, "00:04:00", "job", std::string(5000, '9'))), "over 4096 bytes");
  refused(read(record(2, "00:04:30")), "is not whole minutes");
  refused(read(record(2, "0x:04:00")), "times cannot be read");
  refused(read(record(2, "00:04:00", "job", "yesterday")), "times cannot be read");
  refused(read(record(2, "00:04:00", "job", "100001")), "not the start squeue showed");
  std::string bad = record(2);
  bad.replace(bad.find("NumNodes=2"), 10, "NumNodes=2x");
  refused(read(bad), "is no node count");
  refused(read("JobId=8 JobName=job\n"), "not job 7's");
  refused(read(record(2), "#SBATCH -N 2-99999999\n"), "cannot be read");
  refused(read(record(2), "#SBATCH -N 3-4\n"), "outside the range");
  refused(read(record(2), "#SBATCH -N 2-3\n", "sbatch -N 2-3 other.sh\n"), "does not name its batch script");
  StartRead gone = read(record(2));
  gone.record = slurm::Command{1, "", "slurm_load_jobs error: Invalid job id specified"};
  StartFacts last = facts();
  last.last_try = true;
  EXPECT_EQ(decide_start_limit(facts(), gone).kind, Kind::Again);
  EXPECT_EQ(decide_start_limit(last, gone).kind, Kind::Refused);
}

// The daemon's state: one raise per start, through the give-backs' path (the update, its
// journal line "at": "start-below-range"); never twice across views or a restart.
TEST(ArbiterStartLimit, TheStateRaisesOncePerStartAndJournalsIt) {
  ArbiterState st(opts(true));
  ASSERT_EQ(asked(st, 2), std::vector<std::string>{"7"});
  EXPECT_TRUE(st.take_start_reads().empty());  // being read
  bool changed = false;
  EXPECT_TRUE(st.start_reads_done({read(record(2))}, kStart + 22, changed).empty());
  EXPECT_FALSE(changed);  // the raise not yet answered: journalled as not judged
  const auto due = st.take_limit_updates();
  ASSERT_EQ(due.size(), 1u);
  EXPECT_EQ(slurm::command_line(due[0].argv), "scontrol update JobId=7 TimeLimit=6");
  EXPECT_EQ(due[0].at, "start-below-range");
  // a restart before Slurm answered: read again, and its record shows the raise made
  ArbiterState early(opts(true));
  early.restore(st.journal());
  ASSERT_EQ(asked(early, 2), std::vector<std::string>{"7"});
  EXPECT_TRUE(early.start_reads_done({read(record(2, "00:06:00"))}, kStart + 30, changed).empty());
  EXPECT_TRUE(changed);
  EXPECT_TRUE(early.take_limit_updates().empty());
  const auto log = st.limit_updates_done({{due[0], slurm::Command{0, ""}}}, kStart + 24, changed);
  ASSERT_EQ(log.size(), 1u);
  EXPECT_NE(log[0].find("job 7: TimeLimit 4 -> 6 min (start-below-range"), std::string::npos) << log[0];
  int lines = 0;
  const auto journal = nlohmann::json::parse(st.journal());
  for (const auto& l : journal["recent"]) {
    const auto d = nlohmann::json::parse(l.get<std::string>());
    if (d.value("rule", "") != "limit-extended") continue;
    ++lines;
    EXPECT_EQ(d["at"], "start-below-range");
    EXPECT_EQ(d["old_min"], 4);
    EXPECT_EQ(d["new_min"], 6);
  }
  EXPECT_EQ(lines, 1);
  // later views and requests, and a restart: never read or raised again for this start
  EXPECT_TRUE(asked(st, 2).empty());
  ArbiterState back(opts(true));
  back.restore(st.journal());
  EXPECT_TRUE(asked(back, 2).empty());
  EXPECT_TRUE(back.take_limit_updates().empty());
}

TEST(ArbiterStartLimit, NoneAtTheTopForAJobThatNeverAsksOrWithTheSwitchOff) {
  ArbiterState top(opts(true));
  ASSERT_EQ(asked(top, 3), std::vector<std::string>{"7"});
  bool changed = false;
  EXPECT_TRUE(top.start_reads_done({read(record(3))}, kStart + 22, changed).empty());
  EXPECT_TRUE(changed);
  EXPECT_TRUE(top.take_limit_updates().empty());
  const auto recent = top.recent();
  ASSERT_FALSE(recent.empty());
  const auto kept = nlohmann::json::parse(recent.back());
  EXPECT_EQ(kept["rule"], "limit-start-kept");
  EXPECT_NE(kept["why"].get<std::string>().find("started at the top of its range -N 2-3"), std::string::npos) << kept;
  ArbiterState never(opts(true));
  EXPECT_TRUE(asked(never, 2, false).empty());  // not a job of the recipe: never asked
  ArbiterState off(opts(false));
  EXPECT_TRUE(asked(off, 2).empty());
  EXPECT_TRUE(off.take_limit_updates().empty());
}

TEST(ArbiterStartLimit, ARefusalIsOneLineAndNoRaise) {
  ArbiterState st(opts(true));
  ASSERT_EQ(asked(st, 2), std::vector<std::string>{"7"});
  bool changed = false;
  const auto log = st.start_reads_done({read(record(2, "00:04:00", "x TimeLimit=99-00:00:00"))}, kStart + 22, changed);
  ASSERT_EQ(log.size(), 1u);
  EXPECT_NE(log[0].find("job 7: no TimeLimit raise at its start: its record names TimeLimit= more than once"),
            std::string::npos)
      << log[0];
  EXPECT_TRUE(changed);
  EXPECT_TRUE(st.take_limit_updates().empty());
  EXPECT_TRUE(asked(st, 2).empty());
}
