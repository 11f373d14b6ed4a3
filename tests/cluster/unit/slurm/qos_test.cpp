// SPDX-License-Identifier: BSD-3-Clause
// QOS node limits on a recorded-format table (sacctmgr --parsable2 --noheader, Slurm 22.05
// TRES strings): several QOS, each of the three limits binding, a limit without node=
// ignored, empty fields unlimited, malformed lines named. Then the arbitration on
// snapshots in the view's format (squeue kSqueueFormat with qos= and uid=, sinfo): a
// growth capped by each limit, by none, held at a QOS with no room, claims under way
// counted; the view's text keeps the table.
#include <gtest/gtest.h>

#include "malleable/cluster/cluster.hpp"
#include "malleable/cluster/cluster.hpp"
#include "malleable/cluster/qos.hpp"
#include "slurm_snapshot_util.hpp"

using namespace cluster;
using namespace cluster::slurm;
using namespace slurm_snapshot;

namespace {
const char* kTable =
    "normal|||\n"
    "small|node=4|cpu=512,node=6|\n"
    "big|cpu=64||billing=100,node=10\n"
    "cpuonly|cpu=8|cpu=16|mem=1000M\n";
}

TEST(SlurmQos, ParsesNodeLimitsAndIgnoresOtherTres) {
  const auto t = parse_qos(kTable);
  ASSERT_EQ(t.size(), 4u);
  EXPECT_FALSE(t.at("normal").per_job || t.at("normal").per_user || t.at("normal").group);
  EXPECT_EQ(t.at("small").per_job, 4);
  EXPECT_EQ(t.at("small").per_user, 6);
  EXPECT_FALSE(t.at("small").group);
  EXPECT_FALSE(t.at("big").per_job);  // cpu= only
  EXPECT_EQ(t.at("big").group, 10);
  EXPECT_FALSE(t.at("cpuonly").per_job || t.at("cpuonly").per_user || t.at("cpuonly").group);
}

TEST(SlurmQos, EachLimitBindsWithItsReason) {
  const auto t = parse_qos(kTable);
  QosCap c = qos_cap(t, "small", 2, 2, 2, 5);  // per job 4: 2 more
  EXPECT_EQ(c.extra, 2);
  EXPECT_EQ(c.why, "qos small: MaxTRESPerJob node=4");
  c = qos_cap(t, "small", 2, 5, 5, 5);  // per user 6, the user holds 5: 1 more
  EXPECT_EQ(c.extra, 1);
  EXPECT_EQ(c.why, "qos small: MaxTRESPerUser node=6");
  c = qos_cap(t, "big", 3, 3, 9, 4);  // the QOS's group 10, 9 held: 1 more
  EXPECT_EQ(c.extra, 1);
  EXPECT_EQ(c.why, "qos big: GrpTRES node=10");
  c = qos_cap(t, "big", 3, 3, 12, 4);  // already over: none, never negative
  EXPECT_EQ(c.extra, 0);
  c = qos_cap(t, "normal", 3, 3, 100, 4);  // unlimited
  EXPECT_EQ(c.extra, 4);
  EXPECT_EQ(c.why, "");
  c = qos_cap(t, "cpuonly", 3, 3, 100, 4);  // other TRES only: no node limit
  EXPECT_EQ(c.extra, 4);
  c = qos_cap(t, "unknown", 3, 3, 100, 4);  // not in the table: no limit known
  EXPECT_EQ(c.extra, 4);
  c = qos_cap(t, "small", 1, 1, 1, 2);  // room 3 > want 2: the want, no reason
  EXPECT_EQ(c.extra, 2);
  EXPECT_EQ(c.why, "");
}

TEST(SlurmQos, MalformedLinesAreNamed) {
  const auto why = [](const std::string& text) {
    try {
      parse_qos(text);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(parse_qos("").size(), 0u);
  EXPECT_NE(why("normal|||\nsmall|node=4|\n").find("line 2: 3 fields, not 4"), std::string::npos) << why("normal|||\nsmall|node=4|\n");
  EXPECT_NE(why("|node=1||\n").find("line 1: no name"), std::string::npos);
  EXPECT_NE(why("a|node||\n").find("line 1: TRES entry 'node' is not NAME=VALUE"), std::string::npos);
  EXPECT_NE(why("a|node=x||\n").find("line 1: node='x' is not a whole number"), std::string::npos);
  EXPECT_NE(why("a|node=-1||\n").find("not a whole number"), std::string::npos);
  EXPECT_NE(why("a||||\n").find("5 fields"), std::string::npos);
}

namespace {
// squeue -h --sort=V -o kSqueueFormat, with the QOS and the owner's uid: in batch
// (node[1-8]) jobs 7 (uid 1000, small, node[1-2]) and 8 (uid 1000, small, node3) and 9
// (uid 1001, small, node4) run; job 10 (uid 1001, normal) waits in gpu, which shares no
// node with batch; node[5-8] idle.
std::string qline(const std::string& id, const std::string& state, int nodes, const std::string& list,
                  const std::string& qos, const std::string& uid, const std::string& part = "batch") {
  return id + "|" + state + "|" + std::to_string(nodes) + "|" + list + "|job" + id + "|" +
         (state == "RUNNING" ? "None" : "Resources") + "|prio=100|submit=2026-11-26T10:00:00|part=" + part +
         "|start=N/A|plan=(null)|qos=" + qos + "|uid=" + uid + "|\n";
}
ClusterView qos_view(const std::string& sacctmgr) {
  ClusterView v = view(qline("7", "RUNNING", 2, "node[1-2]", "small", "1000") +
                           qline("8", "RUNNING", 1, "node3", "small", "1000") +
                           qline("9", "RUNNING", 1, "node4", "small", "1001") +
                           qline("10", "PENDING", 2, "", "normal", "1001", "gpu"),
                       "batch* alloc 1-infinite node[1-4]\nbatch* idle 1-infinite node[5-8]\ngpu alloc 1-infinite node9");
  v.qos = parse_qos(sacctmgr);
  return v;
}
GrowthModel pays() {
  return [](int n) {
    Growth g;
    g.pays = true;
    g.saving_s = 10.0 * n;
    g.why = "model";
    return g;
  };
}
// Job 7's decision after its bid window (two rounds), from `ledger`.
Arbitration job7(const ClusterView& v, const Ledger& ledger = {}) {
  const JobState me = job("7", {"node1", "node2"});
  const Arbitration bid = arbitrate(v, ledger, me, pays(), 100, opts());
  return arbitrate(v, bid.ledger, me, pays(), 105, opts());
}
}  // namespace

TEST(SlurmQos, TheViewCarriesEachJobsQosAndOwner) {
  const ClusterView v = qos_view("small|node=5||\n");
  ASSERT_EQ(v.jobs.size(), 4u);
  EXPECT_EQ(v.jobs[0].qos, "small");
  EXPECT_EQ(v.jobs[0].uid, "1000");
  EXPECT_EQ(v.jobs[3].qos, "normal");
  EXPECT_EQ(v.jobs[3].partition, "gpu");
  // Without accounting squeue prints (null): no QOS.
  const auto none = parse_squeue(slurm_snapshot::records("5|RUNNING|1|n1|a|None|prio=1|submit=|part=p|start=|plan=|qos=(null)|uid=0|x|y\n"));
  EXPECT_EQ(none[0].qos, "");
  EXPECT_EQ(none[0].uid, "0");
  // A view recorded before the QOS fields: none known, the comment still last.
  const auto old = parse_squeue(slurm_snapshot::records("5|PENDING|3||a|Resources|prio=1|submit=|part=p|start=|plan=|min_nodes=2\n"));
  EXPECT_EQ(old[0].qos, "");
  EXPECT_EQ(old[0].nodes, 2);
  EXPECT_THROW(parse_squeue(slurm_snapshot::records("5|RUNNING|1|n1|a|None|prio=1|submit=|part=p|start=|plan=|qos=s|uid=root|\n")), Error);
  // The cached view's text keeps the jobs' QOS and owners and the table.
  const ClusterView back = parse_view(format_view(v));
  EXPECT_EQ(back.jobs[1].qos, "small");
  EXPECT_EQ(back.jobs[2].uid, "1001");
  EXPECT_EQ(back.qos, v.qos);
  EXPECT_THROW(parse_view("taken 1\nidle -\nqos small 4 x -\n"), Error);
  EXPECT_THROW(parse_view("taken 1\nidle -\nqos small 4 -\n"), Error);
}

TEST(SlurmQos, ArbitrationCapsAGrowthAtEachLimitWithTheReason) {
  // No QOS limit: all four idle nodes.
  Arbitration a = job7(qos_view("small|||\n"));
  ASSERT_EQ(a.rule, "acquire") << a.plan.why;
  EXPECT_EQ(a.plan.nodes.size(), 4u);
  EXPECT_EQ(a.plan.why.find("qos"), std::string::npos) << a.plan.why;
  // MaxTRESPerJob node=5: job 7 holds 2, 3 more.
  a = job7(qos_view("small|node=5||\n"));
  ASSERT_EQ(a.rule, "acquire") << a.plan.why;
  EXPECT_EQ(a.plan.nodes.size(), 3u);
  EXPECT_NE(a.plan.why.find("3 of 4 free node(s): qos small: MaxTRESPerJob node=5"), std::string::npos) << a.plan.why;
  // MaxTRESPerUser node=5: uid 1000 holds 3 (jobs 7 and 8), 2 more.
  a = job7(qos_view("small||node=5|\n"));
  ASSERT_EQ(a.rule, "acquire") << a.plan.why;
  EXPECT_EQ(a.plan.nodes.size(), 2u);
  EXPECT_NE(a.plan.why.find("qos small: MaxTRESPerUser node=5"), std::string::npos) << a.plan.why;
  // GrpTRES node=5: the QOS holds 4 (job 9 of uid 1001 too), 1 more.
  a = job7(qos_view("small|||node=5\n"));
  ASSERT_EQ(a.rule, "acquire") << a.plan.why;
  EXPECT_EQ(a.plan.nodes.size(), 1u);
  EXPECT_NE(a.plan.why.find("qos small: GrpTRES node=5 (this job 2, its user's jobs 3, the QOS's 4 node(s))"),
            std::string::npos)
      << a.plan.why;
  // The tightest binds: all three.
  a = job7(qos_view("small|node=5|node=5|node=5\n"));
  EXPECT_EQ(a.plan.nodes.size(), 1u);
  EXPECT_NE(a.plan.why.find("GrpTRES"), std::string::npos) << a.plan.why;
  // A QOS with no room: no bid, the reason in the decision's log line.
  a = job7(qos_view("small|node=2||\n"));
  EXPECT_EQ(a.rule, "qos-limit");
  EXPECT_EQ(a.plan.kind, Plan::Kind::None);
  EXPECT_TRUE(a.ledger.entries.empty());
  EXPECT_NE(decision_json(a, "7", 105).find("qos small: MaxTRESPerJob node=2 leaves no room"), std::string::npos)
      << decision_json(a, "7", 105);
  // A QOS the table does not list, or no table (sacctmgr not answering): no limit known.
  EXPECT_EQ(job7(qos_view("other|node=1|node=1|node=1\n")).plan.nodes.size(), 4u);
  EXPECT_EQ(job7(qos_view("")).plan.nodes.size(), 4u);
}

TEST(SlurmQos, NodesClaimedUnderTheQosCountAsHeld) {
  // Job 8 (uid 1000, small) is acquiring node5: uid 1000 holds 3 + 1, so under
  // MaxTRESPerUser node=5 job 7 may add 1 (of node[6-8]); job 9's claim (uid 1001) does
  // not count against uid 1000 but against the QOS's GrpTRES.
  Ledger l;
  l.entries.push_back(LedgerEntry{LedgerEntry::Kind::Claim, "8", "", {"node5"}, 1, 1, 99, 200});
  Arbitration a = job7(qos_view("small||node=5|\n"), l);
  ASSERT_EQ(a.rule, "acquire") << a.plan.why;
  EXPECT_EQ(a.plan.nodes, (std::vector<std::string>{"node6"}));
  l.entries[0].job = "9";
  a = job7(qos_view("small||node=5|\n"), l);
  EXPECT_EQ(a.plan.nodes.size(), 2u) << a.plan.why;
  a = job7(qos_view("small|||node=6\n"), l);  // the QOS: 4 running + 1 claimed
  EXPECT_EQ(a.plan.nodes.size(), 1u) << a.plan.why;
}

TEST(SlurmQos, RecordedFromSlurm2205WithSlurmdbd) {
  // Slurm 22.05 with slurmdbd on the emulated cluster (cluster.sh up 3 --slurm; sacctmgr -i
  // add qos small set MaxTRESPerJob=node=2 MaxTRESPerUser=cpu=64,node=3 GrpTRES=node=4, and
  // cpuonly MaxTRESPerJob=cpu=8; sbatch -N 1 --qos=small, -N 1, -N 3), the daemon's commands
  // as root: squeue (kViewJobsCommand, SLURM_TIME_FORMAT=standard) and kQosCommand.
  const std::string waiter =
      "3|PENDING|3||waiter|Resources|prio=4294901757|submit=2026-11-26T23:10:28|part=box|start=2027-11-26T23:10:28|"
      "plan=(null)|qos=normal|uid=0|(null)\n";
  const std::string running =
      "1|RUNNING|1|node1|small1|None|prio=4294901759|submit=2026-11-26T23:10:28|part=box|start=2026-11-26T23:10:28|"
      "plan=(null)|qos=small|uid=0|(null)\n"
      "2|RUNNING|1|node2|plain|None|prio=4294901758|submit=2026-11-26T23:10:28|part=box|start=2026-11-26T23:10:28|"
      "plan=(null)|qos=normal|uid=0|(null)\n";
  const char* sacctmgr = "normal|||\nsmall|node=2|cpu=64,node=3|node=4\ncpuonly|cpu=8||\n";
  const auto t = parse_qos(sacctmgr);
  EXPECT_EQ(t.at("small"), (QosLimits{2, 3, 4}));
  EXPECT_EQ(t.at("cpuonly"), QosLimits{});
  const std::string sinfo = "box* alloc 1-infinite node[1-2]\nbox* idle 1-infinite node3";  // sinfo's format
  ClusterView v = view(waiter + running, sinfo);
  v.qos = t;
  ASSERT_EQ(v.jobs.size(), 3u);
  EXPECT_EQ(v.jobs[0].qos, "normal");
  EXPECT_EQ(v.jobs[1].qos, "small");
  EXPECT_EQ(v.jobs[1].uid, "0");
  EXPECT_EQ(v.jobs[1].reason, "None");  // the comment (null) after uid= stays the comment
  // The waiter cancelled (scancel 3): job 1 (small, 1 node) grows by node3, within
  // MaxTRESPerJob node=2; with it at node=1 (sacctmgr -i modify qos small set
  // MaxTRESPerJob=node=1, as sacctmgr then prints it) the QOS leaves no room. The
  // daemon gave both answers against this Slurm.
  v = view(running, sinfo);
  v.qos = t;
  const JobState me = job("1", {"node1"});
  Arbitration a = arbitrate(v, arbitrate(v, {}, me, pays(), 100, opts()).ledger, me, pays(), 105, opts());
  ASSERT_EQ(a.rule, "acquire") << a.plan.why;
  EXPECT_EQ(a.plan.nodes, (std::vector<std::string>{"node3"}));
  v.qos = parse_qos("normal|||\nsmall|node=1|cpu=64,node=3|node=4\ncpuonly|cpu=8||\n");
  a = arbitrate(v, {}, me, pays(), 100, opts());
  EXPECT_EQ(a.rule, "qos-limit");
  EXPECT_EQ(a.plan.why,
            "1 free idle node(s), but qos small: MaxTRESPerJob node=1 leaves no room (this job 1, its user's jobs 1, the "
            "QOS's 1 node(s))");
}
