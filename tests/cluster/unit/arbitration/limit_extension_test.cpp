// SPDX-License-Identifier: BSD-3-Clause
// The arbiter's --extend-limits: a give-back the arbiter decided, once Slurm's
// view shows it done, raises the job's TimeLimit by the simulator's rule (one function,
// cluster::limits::extend_with_size, which sim/src/time_limit.hpp names for the simulator),
// within the cap, never shorter, once per give-back, only for a job that asks the arbiter
// about itself, never on another user's word, and not at all with the switch off.
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "daemon/options.hpp"
#include "daemon/state.hpp"
#include "malleable/cluster/expander.hpp"
#include "malleable/cluster/time_limit.hpp"
#include "sim/src/time_limit.hpp"
#include "squeue_render_util.hpp"

using namespace cluster::arbiter;
namespace slurm = cluster::slurm;
namespace limits = cluster::limits;

namespace {

constexpr double kStart = 100000;  // job 7's start (epoch seconds), its limit 30 min
constexpr std::uint32_t kA = 1000, kB = 1001;

std::string clock(double s) {  // squeue's %L
  const long v = std::lround(s);
  char buf[32];
  std::snprintf(buf, sizeof buf, "%02ld:%02ld:%02ld", v / 3600, v / 60 % 60, v % 60);
  return buf;
}

struct Rec {
  std::string id, state, nodes;
  int count;
  double start, left;  // start epoch seconds (0: none), left seconds
  std::uint32_t uid;
  std::string reason = "None";
  std::string name = "job";
};
std::string records(const std::vector<Rec>& jobs) {
  std::string out;
  for (const auto& j : jobs)
    out += squeue_render::render(slurm::kSqueueFormat,
                                 {{'i', j.id}, {'T', j.state}, {'D', std::to_string(j.count)}, {'N', j.nodes},
                                  {'S', j.start > 0 ? std::to_string(static_cast<long>(j.start)) : "N/A"},
                                  {'L', clock(j.left)}, {'U', std::to_string(j.uid)}, {'r', j.reason}, {'j', j.name},
                                  {'k', "(null)"}, {'Q', "100"}, {'V', "90000"}}) +
           "\n";
  return out;
}

// At `t`: job 7 (uid A, 30 min from kStart) on `nodes7`, job 8 (uid B, rigid, never asks) on
// node4, and job 9 (uid B) waiting for a node while `waiting`; no node idle.
slurm::ClusterView view(double t, const std::string& nodes7, int count7, bool waiting = true, double limit7 = 1800,
                        const std::string& nodes8 = "node4", int count8 = 1) {
  std::vector<Rec> jobs{{"7", "RUNNING", nodes7, count7, kStart, kStart + limit7 - t, kA},
                        {"8", "RUNNING", nodes8, count8, kStart, kStart + 1800 - t, kB}};
  if (waiting) jobs.push_back({"9", "PENDING", "", 1, 0, 1800, kB, "Resources"});
  return slurm::make_view(t, records(jobs), "");
}
std::map<std::string, std::uint32_t> owners(const slurm::ClusterView& v) { return owners_of(v.jobs); }

// Job 7's request on node[1-3], 2 ranks each: its iteration measured at t_from on 3 nodes,
// predicted at t_to on 2 (2 t_to on 1), the shrink's cost, `left` iterations.
Request ask7(double t_from, double t_to, double cost, int left, const std::string& hosts = "123") {
  Request r;
  r.challenge = "00112233445566778899aabbccddeeff";
  r.kind = Request::Kind::Arbitrate;
  r.job.id = "7";
  for (char h : hosts) r.job.rank_hosts.insert(r.job.rank_hosts.end(), 2, std::string("node") + h);
  r.job.per_node = 2;
  r.job.min_nodes = 1;
  r.job.max_nodes = 3;
  slurm::Growth g;
  g.pays = false;
  g.why = "model";
  g.measured_iteration = t_from;
  g.predicted_iteration = t_to;
  g.predicted_resize = cost;
  g.iterations_left = left;
  r.growth[-1] = g;
  g.predicted_iteration = 2 * t_to;  // on 1 node (each k the job could give has its entry)
  r.growth[-2] = g;
  return r;
}

StateOptions on() {
  StateOptions so;
  so.extend_limits = true;
  so.qos_interval_s = 0;
  return so;
}

// Decides job 7's give-back of node3 at kStart + 600, and shows it done at kStart + 610.
std::vector<LimitUpdate> give_back(ArbiterState& st, const Request& r, std::string* rule = nullptr) {
  st.set_view(view(kStart + 600, "node[1-3]", 3), owners(view(kStart + 600, "node[1-3]", 3)));
  bool changed = false;
  const Reply rep = st.handle(r, kA, kStart + 601, changed);
  EXPECT_TRUE(rep.ok) << rep.error;
  if (rule) *rule = rep.arbitration.rule;
  st.set_view(view(kStart + 610, "node[1-2]", 2, false), owners(view(kStart + 610, "node[1-2]", 2, false)));
  return st.take_limit_updates();
}

}  // namespace

// (b) One rule, one code: the simulator's path (clustersim::extend_with_size, as
// sim/src/sim_run.cpp calls it at a give-back) and the daemon's give the same extension
// for the same job: 30 min from its start, at 610 s a give-back from 3 nodes (10 s an
// iteration) to 2 (14 s), the shrink 5 s.
TEST(ArbiterLimits, TheSimulatorAndTheDaemonGiveTheSameExtension) {
  const double now = kStart + 610, deadline = kStart + 1800;
  // the simulator: its cap (the limit on the job's minimum, 1 node: 3 x 30 min, plus the
  // resize) does not bind here, as the daemon's (start + 1800 x 3 / 2 + 5) does not
  const clustersim::LimitExtension sim = clustersim::extend_with_size(now, deadline, kStart + 5400 + 5, 10, 14, 5);
  EXPECT_DOUBLE_EQ(sim.by_s, 5 + 1190 * 0.4);
  EXPECT_DOUBLE_EQ(sim.cut_s, 0);
  ArbiterState st(on());
  const auto due = give_back(st, ask7(10, 14, 5, 60));
  ASSERT_EQ(due.size(), 1u);
  EXPECT_EQ(due[0].job, "7");
  EXPECT_EQ(due[0].old_min, 30);
  EXPECT_EQ(due[0].new_min, static_cast<long>(std::ceil((1800 + sim.by_s) / 60)));  // Slurm's whole minutes, up: 39
  EXPECT_EQ(due[0].new_min, 39);
  EXPECT_EQ(slurm::command_line(due[0].argv), "scontrol update JobId=7 TimeLimit=39");
  EXPECT_FALSE(due[0].capped);
  // the library's arbiter-side function, fed the same job, says the same
  const auto raise = limits::raise_for_give_back(limits::LimitBook{kStart, 1800, 3, 0}, 1800, now, 2, 10, 14, 3, 2, 5);
  ASSERT_TRUE(raise.has_value());
  EXPECT_DOUBLE_EQ(raise->by_s, sim.by_s);
}

// (a) The decision -> the raise, once; its journal line; the cap; never shorter.
TEST(ArbiterLimits, AGiveBackRaisesTheLimitOnceAndTheJournalSaysSo) {
  ArbiterState st(on());
  std::string rule;
  auto due = give_back(st, ask7(10, 14, 5, 60), &rule);
  EXPECT_EQ(rule, "give-back");
  ASSERT_EQ(due.size(), 1u);
  // the same give-back in later views, and the job asking again: never raised twice
  for (int k = 0; k < 3; ++k) {
    st.set_view(view(kStart + 612 + k, "node[1-2]", 2, false), owners(view(kStart + 612 + k, "node[1-2]", 2, false)));
    bool changed = false;
    (void)st.handle(ask7(14, 20, 5, 59, "12"), kA, kStart + 612 + k, changed);
  }
  EXPECT_TRUE(st.take_limit_updates().empty());
  bool changed = false;
  const auto log = st.limit_updates_done({{due[0], slurm::Command{0, ""}}}, kStart + 612, changed);
  EXPECT_TRUE(changed);
  ASSERT_EQ(log.size(), 1u);
  EXPECT_NE(log[0].find("job 7: TimeLimit 30 -> 39 min"), std::string::npos) << log[0];
  const auto journal = nlohmann::json::parse(st.journal());
  int lines = 0;
  for (const auto& l : journal["recent"]) {
    const auto d = nlohmann::json::parse(l.get<std::string>());
    if (d.value("rule", "") != "limit-extended") continue;
    ++lines;
    EXPECT_EQ(d["job"], "7");
    EXPECT_EQ(d["old_min"], 30);
    EXPECT_EQ(d["new_min"], 39);
    EXPECT_EQ(d["capped"], false);
    EXPECT_EQ(d["owner"], kA);
    EXPECT_NE(d["why"].get<std::string>().find("its model"), std::string::npos) << d["why"];
  }
  EXPECT_EQ(lines, 1);
  // the book survives a restart: the limit as submitted stays 30 min
  ArbiterState back(on());
  back.restore(st.journal());
  EXPECT_NE(back.journal().find("\"submitted\":1800"), std::string::npos) << back.journal();
}

TEST(ArbiterLimits, AClaimBeyondTheCapGetsTheCapOnly) {
  // the model claims 2 nodes are 100x slower: the rule would give ~33 h; the cap is the
  // limit as submitted on 3 nodes scaled to 2 (2700 s) plus the claimed resize (at most
  // 600 s). (One iteration left, and a site that gives whatever the loss: give-gain share 0.)
  StateOptions so = on();
  so.arbiter.give_gain_share = 0;
  ArbiterState st(so);
  const auto due = give_back(st, ask7(10, 1000, 600, 1));
  ASSERT_EQ(due.size(), 1u);
  EXPECT_TRUE(due[0].capped);
  EXPECT_EQ(due[0].new_min, static_cast<long>(std::floor((1800.0 * 3 / 2 + limits::kMaxResizeCostS) / 60)));  // 55
  EXPECT_LE(due[0].new_min * 60, 1800 * 3 / 2 + limits::kMaxResizeCostS);
}

// A job that gives back one node at a time, each raise under a minute: rounded up, each
// reaches Slurm (floored, none did: j2396 of KTH 2380, 11 -> 6 nodes in its first 20 s on a
// 3-minute limit, was killed at it), and never past the cap.
TEST(ArbiterLimits, RaisesUnderAMinuteReachSlurmWithinTheCap) {
  const limits::LimitBook book{kStart, 180, 11, 0};
  double limit = 180;
  long last = 3;
  for (int n = 10; n >= 6; --n) {
    const double now = kStart + 4.0 * (11 - n);
    const auto r = limits::raise_for_give_back(book, limit, now, n, 0, 0, n + 1, n, 0);
    if (!r) continue;
    EXPECT_GT(r->by_s, 0);
    EXPECT_LT(r->by_s, 60);  // each step alone is under a minute
    EXPECT_GT(r->new_min, last);
    EXPECT_LE(r->new_min * 60, 180.0 * 11 / n);  // the cap: the limit on 11 nodes scaled to n
    last = r->new_min;
    limit = 60.0 * r->new_min;
  }
  EXPECT_GE(last, 5);  // 180 s x 11/6 = 330 s: five whole minutes of it
  EXPECT_LE(last * 60, 330);
}

TEST(ArbiterLimits, NeverShorterNorForNothing) {
  ArbiterState st(on());
  // the smaller size claimed faster: nothing to raise (a limit is never shortened)
  EXPECT_TRUE(give_back(st, ask7(10, 8, 0, 60)).empty());
  // the library: a limit already past the cap (the job grew first) is not raised either
  EXPECT_FALSE(limits::raise_for_give_back(limits::LimitBook{kStart, 1800, 2, 0}, 3000, kStart + 600, 2, 10, 14, 3, 2, 0));
}

TEST(ArbiterLimits, AJobThatNeverAsksIsNeverTouched) {
  ArbiterState st(on());
  // job 8 (rigid, never asks the arbiter) holds fewer nodes from one view to the next
  st.set_view(view(kStart + 600, "node[1-3]", 3, true, 1800, "node[4-5]", 2),
              owners(view(kStart + 600, "node[1-3]", 3, true, 1800, "node[4-5]", 2)));
  st.set_view(view(kStart + 610, "node[1-3]", 3, true, 1800, "node4", 1), owners(view(kStart + 610, "node[1-3]", 3)));
  EXPECT_TRUE(st.take_limit_updates().empty());
}

TEST(ArbiterLimits, AnotherUsersWordRaisesNothing) {
  ArbiterState st(on());
  st.set_view(view(kStart + 600, "node[1-3]", 3), owners(view(kStart + 600, "node[1-3]", 3)));
  bool changed = false;
  const Reply rep = st.handle(ask7(10, 1000, 600, 60), kB, kStart + 601, changed);  // B about A's job
  EXPECT_FALSE(rep.ok);
  st.set_view(view(kStart + 610, "node[1-2]", 2, false), owners(view(kStart + 610, "node[1-2]", 2, false)));
  EXPECT_TRUE(st.take_limit_updates().empty());
}

TEST(ArbiterLimits, SwitchedOffNothingIsRaisedAndAnOverrunIsRefused) {
  StateOptions so = on();
  so.extend_limits = false;
  ArbiterState off(so);
  // 100 iterations of 14 s on 2 nodes overrun the 1190 s left: refused without the rule...
  std::string rule;
  EXPECT_TRUE(give_back(off, ask7(10, 14, 5, 100), &rule).empty());
  EXPECT_EQ(rule, "time-limit");
  EXPECT_EQ(nlohmann::json::parse(off.status_json(kStart + 611, 0))["limits"]["extend"], false);
  // ...given back with it (the cap for 2 nodes, 2700 s from the start, holds them), and raised
  ArbiterState with(on());
  const auto due = give_back(with, ask7(10, 14, 5, 100), &rule);
  EXPECT_EQ(rule, "give-back");
  ASSERT_EQ(due.size(), 1u);
  EXPECT_GE(due[0].new_min * 60, 610 + 100 * 14 + 5);  // the rest of its run fits the new limit
  // the switch from the configuration file and the command line
  EXPECT_TRUE(parse_daemon_options({}, "extend-limits = on\n").state.extend_limits);
  EXPECT_FALSE(parse_daemon_options({"--extend-limits", "off"}, "extend-limits = on\n").state.extend_limits);
  EXPECT_FALSE(parse_daemon_options({}, "").state.extend_limits);  // the default
  EXPECT_THROW(parse_daemon_options({"--extend-limits", "yes"}, ""), cluster::Error);
}

TEST(ArbiterLimits, SlurmsRefusalIsLoggedOnceAndShownInTheStatus) {
  ArbiterState st(on());
  const auto due = give_back(st, ask7(10, 14, 5, 60));
  ASSERT_EQ(due.size(), 1u);
  bool changed = false;
  const slurm::Command denied{1, "", "scontrol: error: Access/permission denied for job 7"};
  EXPECT_EQ(st.limit_updates_done({{due[0], denied}}, kStart + 612, changed).size(), 1u);
  EXPECT_TRUE(st.limit_updates_done({{due[0], denied}}, kStart + 614, changed).empty());  // once
  const auto status = nlohmann::json::parse(st.status_json(kStart + 615, 0));
  EXPECT_EQ(status["limits"]["refused"], 2);
  EXPECT_NE(status["limits"]["error"].get<std::string>().find("AdminLevel=Operator"), std::string::npos);
  EXPECT_NE(st.journal().find("limit-refused"), std::string::npos);
}

// A give-back done while the raise of the job's start below its range is on its way: its
// raise waits for the start's (made after it, from the limit before it, it would lower the
// limit the start's raise set), then starts from the raised limit.
TEST(ArbiterLimits, AGiveBackWaitsForTheRaiseOfItsStart) {
  ArbiterState st(on());
  st.set_view(view(kStart + 600, "node[1-3]", 3), owners(view(kStart + 600, "node[1-3]", 3)));
  bool changed = false;
  ASSERT_TRUE(st.handle(ask7(10, 14, 5, 60), kA, kStart + 601, changed).ok);
  ASSERT_EQ(st.take_start_reads(), std::vector<std::string>{"7"});
  // submitted -N 3-4 --time=30 (no accounting: the script alone), started on 3
  const std::string rec = "JobId=7 JobName=job UserId=a(1000) TimeLimit=00:30:00 StartTime=100000 NumNodes=3 "
                          "Command=/home/a/job.sh WorkDir=/home/a\n";
  const StartRead read{"7", slurm::Command{0, rec}, slurm::Command{0, "#SBATCH -N 3-4\n"}, slurm::Command{1, ""}};
  EXPECT_TRUE(st.start_reads_done({read}, kStart + 602, changed).empty());
  st.set_view(view(kStart + 610, "node[1-2]", 2, false), owners(view(kStart + 610, "node[1-2]", 2, false)));
  auto due = st.take_limit_updates();
  ASSERT_EQ(due.size(), 1u);  // the start's alone: 30 min x 4/3 (perfect scaling: no model for 4)
  EXPECT_EQ(due[0].at, "start-below-range");
  EXPECT_EQ(slurm::command_line(due[0].argv), "scontrol update JobId=7 TimeLimit=40");
  (void)st.limit_updates_done({{due[0], slurm::Command{0, ""}}}, kStart + 611, changed);
  st.set_view(view(kStart + 612, "node[1-2]", 2, false, 2400), owners(view(kStart + 612, "node[1-2]", 2, false, 2400)));
  due = st.take_limit_updates();
  ASSERT_EQ(due.size(), 1u);  // then the give-back's, from the raised 40 min
  EXPECT_EQ(due[0].at, "give-back");
  EXPECT_EQ(due[0].old_min, 40);
  EXPECT_GT(due[0].new_min, 40);
}

// A raised job's expanders (nodes it grew onto, each a Slurm job of its own) end no earlier
// than it: after job 7's give-back raise (30 -> 39 min) its expander 21 (started 300 s after
// it, 25 min: it ended with the job's old limit) is raised to the job's new end, once; jobs
// that are not its expanders in Slurm's record or by owner are not, whatever job 7 reports.
TEST(ArbiterLimits, ARaisedJobsExpandersEndWithIt) {
  ArbiterState st(on());
  Request r = ask7(10, 14, 5, 60);
  r.expanders = {"21", "23", "24", "25"};
  const auto due = give_back(st, r);
  ASSERT_EQ(due.size(), 1u);
  ASSERT_EQ(due[0].new_min, 39);
  const auto later = [&](double t, double limit7, bool answered) {
    const double e = kStart + 300;  // the expanders' start
    const std::string mine = slurm::expander_name("7");
    std::vector<Rec> jobs{{"7", "RUNNING", "node[1-2]", 2, kStart, kStart + limit7 - t, kA},
                          {"21", "RUNNING", "node5", 1, e, e + (answered ? 2040 : 1500) - t, kA, "None", mine},
                          {"23", "RUNNING", "node[6-7]", 2, e, e + 1500 - t, kA, "None", mine},  // two nodes
                          {"24", "RUNNING", "node8", 1, e, e + 1500 - t, kB, "None", mine},       // B's job
                          {"25", "RUNNING", "node9", 1, e, e + 1500 - t, kA, "None", "other"},    // not named so
                          {"26", "RUNNING", "node10", 1, e, e + 1500 - t, kA, "None", mine}};     // not reported
    const auto v = slurm::make_view(t, records(jobs), "");
    st.set_view(v, owners(v));
  };
  // before Slurm made the job's raise: nothing for its expanders
  later(kStart + 611, 1800, false);
  EXPECT_TRUE(st.take_limit_updates().empty());
  bool changed = false;
  (void)st.limit_updates_done({{due[0], slurm::Command{0, ""}}}, kStart + 612, changed);
  later(kStart + 613, 39 * 60, false);
  auto up = st.take_limit_updates();
  ASSERT_EQ(up.size(), 1u);
  EXPECT_EQ(up[0].job, "21");
  EXPECT_EQ(up[0].at, "expander");
  EXPECT_EQ(up[0].old_min, 25);
  EXPECT_EQ(up[0].new_min, 34);  // (39 min - 300 s) rounded up
  EXPECT_EQ(slurm::command_line(up[0].argv), "scontrol update JobId=21 TimeLimit=34");
  later(kStart + 614, 39 * 60, false);  // asked already: not again before Slurm's record shows it
  EXPECT_TRUE(st.take_limit_updates().empty());
  const auto log = st.limit_updates_done({{up[0], slurm::Command{0, ""}}}, kStart + 615, changed);
  ASSERT_EQ(log.size(), 1u);
  EXPECT_NE(log[0].find("job 21: TimeLimit 25 -> 34 min (expander of job 7"), std::string::npos) << log[0];
  later(kStart + 616, 39 * 60, true);
  EXPECT_TRUE(st.take_limit_updates().empty());
  const auto journal = nlohmann::json::parse(st.journal());
  int lines = 0;
  for (const auto& l : journal["recent"]) {
    const auto d = nlohmann::json::parse(l.get<std::string>());
    if (d.value("rule", "") == "limit-extended" && d.value("at", "") == "expander")
      lines += d["job"] == "21" && d["new_min"] == 34 && d["owner"] == kA;
  }
  EXPECT_EQ(lines, 1);
  // across a restart the job is still known as raised: a later end moves its expander again
  ArbiterState back(on());
  back.restore(st.journal());
  const auto v = slurm::make_view(
      kStart + 700,
      records({{"7", "RUNNING", "node[1-2]", 2, kStart, 45 * 60 - 700.0, kA},
               {"21", "RUNNING", "node5", 1, kStart + 300, 300 + 2040 - 700.0, kA, "None", slurm::expander_name("7")}}),
      "");
  back.set_view(v, owners(v));
  bool again = false;
  (void)back.handle(r, kA, kStart + 701, again);  // its report of its expanders, after the restart
  back.set_view(v, owners(v));
  up = back.take_limit_updates();
  ASSERT_EQ(up.size(), 1u);
  EXPECT_EQ(slurm::command_line(up[0].argv), "scontrol update JobId=21 TimeLimit=40");
}

TEST(ArbiterLimits, AnExpandersRaiseIsTheJobsEndRoundedUp) {
  // the job ends at 100000 + 2340; an expander started at 100300 with 25 min
  const auto r = limits::raise_expander(kStart, 2340, kStart + 300, 1500);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->old_min, 25);
  EXPECT_EQ(r->new_min, 34);
  EXPECT_DOUBLE_EQ(r->cap_s, kStart + 2340);
  EXPECT_FALSE(limits::raise_expander(kStart, 2340, kStart + 300, 2040));  // ends with it already
  EXPECT_FALSE(limits::raise_expander(kStart, 2340, kStart + 300, 2100));  // or later: never shortened
  EXPECT_FALSE(limits::raise_expander(kStart, 2340, kStart - 1, 60));      // started before its job
  EXPECT_FALSE(limits::raise_expander(kStart, -1, kStart + 300, 60));      // unknown
  EXPECT_FALSE(limits::raise_expander(kStart, 2340, kStart + 300, std::nan("")));
  // a second past a whole minute is a minute more
  EXPECT_EQ(limits::raise_expander(kStart, 2341, kStart + 301, 60)->new_min, 34);
  EXPECT_EQ(limits::raise_expander(kStart, 2342, kStart + 301, 60)->new_min, 35);
}
