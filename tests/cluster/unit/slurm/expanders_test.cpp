// SPDX-License-Identifier: BSD-3-Clause
// Expander jobs, pure (malleable/cluster/expander.hpp): the sbatch argv with every field
// checked, Slurm's answers read with bounds, the time limit within the job's own end, and
// the book: a pending expander cancelled at its deadline, one on the wrong node cancelled,
// one that ended leaves the book.
#include <gtest/gtest.h>

#include <algorithm>

#include <string>
#include <vector>

#include "malleable/cluster/expander.hpp"

using namespace cluster;
using namespace cluster::slurm;

namespace {
ExpanderRequest request() {
  ExpanderRequest r;
  r.job_id = "42";
  r.node = "node5";
  r.procs = 4;
  r.partition = "batch";
  r.account = "physics";
  r.qos = "normal";
  r.time_limit_min = 55;
  r.launcher = "/usr/bin/malleable-run";
  r.dir = "/home/u/.malleable/jobs/42";
  r.launch = "exp-42-1";
  return r;
}
bool has(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}
}  // namespace

TEST(Expanders, TheSubmissionIsTheJobsOwnPartitionAccountQosAndNodeNamedAfterTheJob) {
  const auto argv = expander_submit_argv(request());
  ASSERT_GE(argv.size(), 3u);
  EXPECT_EQ(argv.front(), "sbatch");
  for (const char* want : {"--parsable", "--nodes=1", "--nodelist=node5", "--exclusive", "--ntasks=4",
                           "--job-name=malleable-expand-42", "--comment=malleable-expander-of=42", "--time=55",
                           "--no-requeue", "--partition=batch", "--account=physics", "--qos=normal"})
    EXPECT_TRUE(has(argv, want)) << want;
  EXPECT_TRUE(has(argv, "--output=/home/u/.malleable/jobs/42/expanders/%j.out"));
  // The batch script comes last: the job's launcher and its arguments (sbatch --wrap, since
  // the launcher is a program and sbatch runs scripts only): one launch of 4 processes
  // joining the job's directory by its id, ending with job 42.
  EXPECT_EQ(argv.back(), "--wrap=exec /usr/bin/malleable-run --join /home/u/.malleable/jobs/42 --host node5 --id exp-42-1 "
                         "-n 4 --while-job 42");
  // Empty partition, account and QOS: Slurm's defaults, no option.
  ExpanderRequest r = request();
  r.partition = r.account = r.qos = "";
  for (const auto& a : expander_submit_argv(r)) {
    EXPECT_NE(a.rfind("--partition", 0), 0u);
    EXPECT_NE(a.rfind("--account", 0), 0u);
    EXPECT_NE(a.rfind("--qos", 0), 0u);
  }
  EXPECT_EQ(expander_of("malleable-expand-42"), "42");
  EXPECT_EQ(expander_of("malleable-expand-4x"), "");
  EXPECT_EQ(expander_of("myjob"), "");
}

// Names from Slurm or a reply never become an option or a second word: each bad field is
// refused with its name.
TEST(Expanders, EveryFieldThatIsNotAPlainNameIsRefused) {
  const auto refused = [](void (*change)(ExpanderRequest&), const std::string& field) {
    ExpanderRequest r = request();
    change(r);
    try {
      expander_submit_argv(r);
      ADD_FAILURE() << field << " accepted";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(field), std::string::npos) << e.what();
    }
  };
  refused([](ExpanderRequest& r) { r.job_id = "42;rm"; }, "job id");
  refused([](ExpanderRequest& r) { r.node = "node5 --uid=0"; }, "node");
  refused([](ExpanderRequest& r) { r.node = "--wrap=id"; }, "node");
  refused([](ExpanderRequest& r) { r.node = "node5\nnode6"; }, "node");
  refused([](ExpanderRequest& r) { r.partition = "batch,debug"; }, "partition");
  refused([](ExpanderRequest& r) { r.account = "$(id)"; }, "account");
  refused([](ExpanderRequest& r) { r.qos = "a b"; }, "QOS");
  refused([](ExpanderRequest& r) { r.procs = 0; }, "process count");
  refused([](ExpanderRequest& r) { r.time_limit_min = 0; }, "time limit");
  refused([](ExpanderRequest& r) { r.launcher = "relative/malleable-run"; }, "launcher");
  refused([](ExpanderRequest& r) { r.launcher = "/tmp/a b"; }, "launcher");
  refused([](ExpanderRequest& r) { r.dir = "/tmp/$(id)"; }, "job directory");
  refused([](ExpanderRequest& r) { r.launch = "--help"; }, "launch");
  refused([](ExpanderRequest& r) { r.launch = ".hidden"; }, "launch");
  refused([](ExpanderRequest& r) { r.launch = "x;y"; }, "launch");
}

TEST(Expanders, SlurmsAnswersAreReadWithBounds) {
  EXPECT_EQ(parse_sbatch_id("1234\n"), "1234");
  EXPECT_EQ(parse_sbatch_id("1234;cluster\n"), "1234");
  EXPECT_THROW(parse_sbatch_id("sbatch: error: Batch job submission failed: Invalid account"), Error);
  EXPECT_THROW(parse_sbatch_id(""), Error);
  EXPECT_THROW(parse_sbatch_id("99999999999999999999999"), Error);
  EXPECT_EQ(parse_time_left_min("1-02:03:04"), 1440 + 123);
  EXPECT_EQ(parse_time_left_min("02:03:04"), 123);
  EXPECT_EQ(parse_time_left_min("03:04"), 3);
  EXPECT_EQ(parse_time_left_min("UNLIMITED"), -1);
  EXPECT_EQ(parse_time_left_min("NOT_SET"), -1);
  for (const char* bad : {"", "abc", "1-03:04", "99999999999-01:02:03", "1:2:3:4", "12:345", "-1:00"})
    EXPECT_THROW(parse_time_left_min(bad), Error) << bad;
  // To the job's end, never before it (a joined launch lives as long as the job); too
  // little left: no expander; no limit: the cap.
  EXPECT_EQ(expander_time_limit(60, 2, 1440), 60);
  EXPECT_EQ(expander_time_limit(3, 2, 1440), 3);
  EXPECT_EQ(expander_time_limit(2, 2, 1440), 0);
  EXPECT_EQ(expander_time_limit(1, 2, 1440), 0);
  EXPECT_EQ(expander_time_limit(3, 0, 1440), 3);
  EXPECT_EQ(expander_time_limit(-1, 2, 1440), 1440);
  EXPECT_EQ(expander_time_limit(5000, 2, 1440), 1440);
}

TEST(Expanders, TheBookFollowsSlurmAndCancelsLateOrMisplacedExpanders) {
  EXPECT_THROW(parse_expanders("7|RUNNING|node5\n7|PENDING|\n"), Error);  // twice: an error, never last wins
  EXPECT_THROW(parse_expanders("7|RUNNING\n"), Error);
  EXPECT_THROW(parse_expanders("7|RUNNING|node5|x\n"), Error);
  EXPECT_THROW(parse_expanders("7|running|node5\n"), Error);
  EXPECT_THROW(parse_expanders("7|RUNNING|node 5\n"), Error);
  std::vector<Expander> book{{Expander::State::Pending, "7", "node5", "e7", 4, 100, -1},
                             {Expander::State::Pending, "8", "node6", "e8", 4, 100, -1},
                             {Expander::State::Pending, "9", "node7", "e9", 4, 100, -1},
                             {Expander::State::Joined, "10", "node8", "e10", 4, 50, 60}};
  auto u = update_expanders(book, parse_expanders("7|RUNNING|node5\n8|PENDING|\n9|RUNNING|node3\n10|RUNNING|node8\n"), 110, 30);
  EXPECT_EQ(u.started, (std::vector<std::string>{"7"}));
  EXPECT_EQ(u.cancel, (std::vector<std::string>{"9"}));  // on another node than asked
  EXPECT_TRUE(u.vanished.empty());
  ASSERT_EQ(book.size(), 4u);
  EXPECT_EQ(book[0].state, Expander::State::Running);
  EXPECT_EQ(book[0].running_at, 110);
  EXPECT_EQ(book[3].state, Expander::State::Joined);
  // Past the deadline, the pending one is cancelled; one Slurm no longer lists leaves the book.
  u = update_expanders(book, parse_expanders("7|RUNNING|node5\n8|PENDING|\n10|COMPLETED|node8\n"), 131, 30);
  EXPECT_EQ(u.cancel, (std::vector<std::string>{"8"}));
  EXPECT_EQ(u.vanished, (std::vector<std::string>{"9", "10"}));
  ASSERT_EQ(book.size(), 2u);
  EXPECT_EQ(book[0].id, "7");
  EXPECT_EQ(book[1].id, "8");
  EXPECT_EQ(u.why.size(), 3u);
}
