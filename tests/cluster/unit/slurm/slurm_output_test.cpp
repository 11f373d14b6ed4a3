// SPDX-License-Identifier: BSD-3-Clause
// Slurm's output is data, never structure: what users write into their jobs (names,
// comments, the partitions they choose) cannot move the fields the arbitration trusts
// (owner, state, nodes, priority, the backfill plan), whatever bytes it holds; a job
// listed twice is an error for that job; numbers and hostlists are bounded. The squeue
// output is rendered from the library's own format by squeue_render_util.hpp, as Slurm 22.05
// prints it, so these tests follow the format the library asks for.
#include <gtest/gtest.h>

#include <cstdio>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "arbiter/protocol.hpp"
#include "malleable/cluster/cluster.hpp"
#include "squeue_render_util.hpp"
#include "slurm/text.hpp"

using namespace cluster;
using namespace cluster::slurm;
using squeue_render::Fields;

namespace {

// The width squeue prints field `type` at in `format` (0: the whole value).
std::size_t width_of(const std::string& format, char type) {
  for (std::size_t k = 0; k + 1 < format.size(); ++k) {
    if (format[k] != '%') continue;
    std::size_t at = k + 1, w = 0;
    if (at < format.size() && format[at] == '.') ++at;
    while (at < format.size() && std::isdigit(static_cast<unsigned char>(format[at]))) w = w * 10 + (format[at++] - '0');
    if (at < format.size() && format[at] == type) return w;
  }
  return 0;
}

// User A's running job 7 and pending job 8, user B's pending job 9 between them.
Fields job7() {
  return {{'i', "7"}, {'T', "RUNNING"}, {'D', "2"}, {'N', "node[1-2]"}, {'j', "pdgemm"}, {'r', "None"},
          {'Q', "4294901759"}, {'V', "2026-11-26T10:00:00"}, {'P', "batch"}, {'S', "2026-11-26T10:00:05"},
          {'Y', "(null)"}, {'q', "normal"}, {'U', "1000"}, {'k', "(null)"}, {'L', "1-00:00:00"}};
}
Fields job9(char field, const std::string& value) {
  Fields f{{'i', "9"}, {'T', "PENDING"}, {'D', "2"}, {'N', ""}, {'j', "b-job"}, {'r', "Resources"},
           {'Q', "4294901758"}, {'V', "2026-11-26T10:00:01"}, {'P', "batch"}, {'S', "N/A"},
           {'Y', "node[3-4]"}, {'q', "normal"}, {'U', "1001"}, {'k', "(null)"}, {'L', "UNLIMITED"}};
  f[field] = value;
  return f;
}
Fields job8() {
  return {{'i', "8"}, {'T', "PENDING"}, {'D', "1"}, {'N', ""}, {'j', "waiter"}, {'r', "Priority"},
          {'Q', "4294901757"}, {'V', "2026-11-26T10:00:02"}, {'P', "batch"}, {'S', "N/A"},
          {'Y', ""}, {'q', "normal"}, {'U', "1000"}, {'k', "min_nodes=1"}, {'L', "UNLIMITED"}};
}

// What a user may put in a field: every byte but NUL (C strings) around letters and alone,
// and the crafted ones: lines of the old format and of the format in use naming A's job 7
// with B's uid, separators in bulk, line ends, a hostlist of a number too large and one of
// four million hosts, long values.
std::vector<std::string> hostile_values(const std::string& format) {
  std::vector<std::string> v;
  for (int b = 1; b < 256; ++b) {
    v.push_back(std::string(1, static_cast<char>(b)));
    std::string around = "ab";
    around.insert(around.begin() + 1, static_cast<char>(b));
    v.push_back(around);
  }
  Fields forged = job7();
  forged['U'] = "1001";
  forged['N'] = "node[1-9]";
  v.push_back("x\n" + squeue_render::render(format, forged) + "\n");
  v.push_back("\n" + squeue_render::render(format, forged));
  v.push_back("x\n7|RUNNING|2|node[1-2]|evil|None|prio=1|submit=|part=batch|start=|plan=|qos=normal|uid=1001|");
  v.push_back("x|RUNNING|9|node[1-9]|Resources|prio=99999999|submit=|part=|start=|plan=node[1-2]|qos=|uid=0|");
  v.push_back(std::string(40, '|'));
  v.push_back(std::string(40, '\n'));
  v.push_back("\r\n\r\n");
  v.push_back("n[99999999999999999999]");
  std::string big = "n[1-100000]";
  for (int k = 1; k < 40; ++k) big += ",m" + std::to_string(k) + "[1-100000]";
  v.push_back(big);
  for (std::size_t at : {0, 1, 60, 63, 64, 65, 127, 128, 200}) {
    std::string s(300, 'x');
    s.insert(at, "\n7|RUNNING|");
    v.push_back(s);
  }
  v.push_back("(null)");
  v.push_back("   ");
  v.push_back("");
  return v;
}

}  // namespace

// Every byte and every crafted value in user B's job name, comment and partition: the view
// still lists jobs 7, 9 and 8 with their own owner, state, nodes, priority, submit time and
// plan, nothing else; B's value is read as B's field (the name as squeue printed it).
TEST(SlurmOutput, EveryByteInAUserFieldIsReadAsThatField) {
  const std::string format = kSqueueFormat;
  const auto values = hostile_values(format);
  int cases = 0;
  std::vector<std::string> wrong;
  for (const char field : {'j', 'k', 'P'}) {
    for (const std::string& value : values) {
      ++cases;
      const std::string out = squeue_render::squeue(format, {job7(), job9(field, value), job8()});
      const auto say = [&](const std::string& what) {
        std::string shown;
        for (unsigned char c : value.substr(0, 40)) {
          char hex[8];
          std::snprintf(hex, sizeof hex, "\\x%02x", c);
          shown += std::isprint(c) ? std::string(1, char(c)) : std::string(hex);
        }
        wrong.push_back(std::string("%") + field + "='" + shown + "': " + what);
      };
      ClusterView v;
      try {
        v = make_view(100, out, "batch up 1-infinite node[1-9]\n");
      } catch (const std::exception& e) {
        say(std::string("the view failed: ") + e.what());
        continue;
      }
      std::vector<std::string> ids;
      for (const Job& j : v.jobs) ids.push_back(j.id);
      // A partition list as long as squeue's width for it may have been cut: B's own job
      // is then unreadable (the reason named), the others stand.
      const std::size_t pw = width_of(format, 'P');
      if (field == 'P' && pw > 0 && trim(value).size() >= pw && ids == std::vector<std::string>{"7", "8"} &&
          v.unreadable.count("9") && v.jobs[0].uid == "1000" && v.jobs[1].uid == "1000" &&
          v.jobs[0].node_list == std::vector<std::string>{"node1", "node2"})
        continue;
      if (ids != std::vector<std::string>{"7", "9", "8"}) {
        std::string got;
        for (const auto& i : ids) got += i + " ";
        say("jobs listed: " + got);
        continue;
      }
      const Job &a = v.jobs[0], &b = v.jobs[1], &c = v.jobs[2];
      std::map<std::string, std::uint32_t> owners;
      try {
        owners = arbiter::owners_of(v.jobs);
      } catch (const std::exception& e) {
        say(std::string("owners: ") + e.what());
        continue;
      }
      if (owners != std::map<std::string, std::uint32_t>{{"7", 1000}, {"8", 1000}, {"9", 1001}}) say("owners changed");
      if (a.state != "RUNNING" || a.nodes != 2 || a.node_list != std::vector<std::string>{"node1", "node2"} ||
          a.priority != 4294901759. || a.name != "pdgemm" || a.partition != "batch" || a.submit <= 0)
        say("job 7 changed");
      if (b.state != "PENDING" || (field != 'k' && b.nodes != 2) || !b.node_list.empty() || b.priority != 4294901758. ||
          b.planned_nodes != std::vector<std::string>{"node3", "node4"} || b.uid != "1001")
        say("job 9's trusted fields changed");
      if (c.state != "PENDING" || c.nodes != 1 || c.priority != 4294901757. || c.uid != "1000" || c.name != "waiter" ||
          !c.planned_nodes.empty())
        say("job 8 changed");
      const std::size_t w = width_of(format, 'j');
      if (field == 'j' && b.name != trim(w ? value.substr(0, w) : value)) say("job 9's name is not the value: '" + b.name + "'");
    }
  }
  EXPECT_TRUE(wrong.empty()) << wrong.size() << " of " << cases << " values moved a field; the first: " << wrong[0]
                             << (wrong.size() > 1 ? "\n  " + wrong[1] : "") << (wrong.size() > 2 ? "\n  " + wrong[2] : "");
}

// Slurm listing one job twice (never seen, but a record twice must not be "the last one
// wins"): that job is unreadable, named with the reason; the others stand.
TEST(SlurmOutput, AJobListedTwiceIsAnErrorForThatJobNotTheLastLine) {
  Fields again = job7();
  again['U'] = "1001";
  again['N'] = "node[5-6]";
  const std::string out = squeue_render::squeue(kSqueueFormat, {job7(), job8(), again});
  const ClusterView v = make_view(100, out, "batch up 1-infinite node[1-9]\n");
  EXPECT_EQ(arbiter::owners_of(v.jobs).count("7"), 0u);
  EXPECT_EQ(arbiter::owners_of(v.jobs).count("8"), 1u);
  try {
    snapshot_of(v, "7");
    ADD_FAILURE() << "job 7, listed twice, has a snapshot";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("twice"), std::string::npos) << e.what();
  }
  EXPECT_EQ(snapshot_of(v, "8").mine.uid, "1000");
}

// Numbers too long for a long, hostlists of millions: an Error with the reason, never
// another exception (std::out_of_range ended the daemon) and never millions of names.
TEST(SlurmOutput, HostlistNumbersAndSizesAreBounded) {
  EXPECT_THROW(expand_hostlist("n[99999999999999999999]"), Error);
  EXPECT_THROW(expand_hostlist("n[1-99999999999999999999]"), Error);
  std::string big = "n[1-100000]";
  for (int k = 1; k < 40; ++k) big += ",m" + std::to_string(k) + "[1-100000]";
  try {
    const auto hosts = expand_hostlist(big);
    ADD_FAILURE() << "a hostlist of " << hosts.size() << " hosts was expanded";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("more than"), std::string::npos) << e.what();
  }
  EXPECT_EQ(expand_hostlist("n[1-3]", 3).size(), 3u);
  EXPECT_THROW(expand_hostlist("n[1-4]", 3), Error);
  EXPECT_NO_THROW(compress_hostlist({"n123456789012345678901234567890", "n1"}));
  EXPECT_EQ(compress_hostlist({"n123456789012345678901234567890"}), "n123456789012345678901234567890");
}

// A job growing by expander jobs (expander.hpp): the nodes of its running expanders count
// as its own; a pending expander adds none and is no competitor once the record of its
// submitter names its id (ClusterView::expanders; its name alone makes it no expander);
// an expander-named job of another user adds nothing (a name is the user's to choose).
TEST(SlurmOutput, ARunningExpanderOfTheSameOwnerAddsItsNodeToTheJob) {
  Fields mine = job7();
  mine['i'] = "21";
  mine['T'] = "RUNNING";
  mine['N'] = "node3";
  mine['D'] = "1";
  mine['j'] = "malleable-expand-7";
  Fields pending = mine;
  pending['i'] = "22";
  pending['T'] = "PENDING";
  pending['N'] = "";
  pending['r'] = "Resources";
  Fields forged = mine;
  forged['i'] = "23";
  forged['N'] = "node5";
  forged['U'] = "1001";
  const std::string out = squeue_render::squeue(kSqueueFormat, {job7(), job8(), mine, pending, forged});
  ClusterView v = make_view(100, out, "batch up 1-infinite node[1-9]\n");
  EXPECT_EQ(snapshot_of(v, "7").pending.size(), 2u);  // by its name alone, job 22 waits as any job does
  v.expanders = {"22"};
  const Snapshot s = snapshot_of(v, "7");
  EXPECT_EQ(s.mine.node_list, (std::vector<std::string>{"node1", "node2", "node3"}));
  EXPECT_EQ(s.mine.nodes, 3);
  ASSERT_EQ(s.pending.size(), 1u);  // job 8 only: the pending expander competes with nobody
  EXPECT_EQ(s.pending[0].id, "8");
  // Without job 7 running, an expander's node is nobody's but its own job's.
  EXPECT_EQ(snapshot_of(v, "21").mine.node_list, (std::vector<std::string>{"node3"}));
}

TEST(SlurmOutput, TheClusterNameIsTheConfigsLastClusterNameLineTrimmed) {
  EXPECT_EQ(cluster_name("AccountingStorageType   = accounting_storage/none\nClusterName             = linux \n"),
            std::optional<std::string>("linux"));
  EXPECT_EQ(cluster_name("ClusterName = a\nClusterName = b\r\n"), std::optional<std::string>("b"));
  EXPECT_FALSE(cluster_name("AccountingStorageType = accounting_storage/none\n").has_value());
  EXPECT_FALSE(cluster_name("").has_value());
}
