// SPDX-License-Identifier: BSD-3-Clause
// QOS node limits on a recorded-format table (sacctmgr --parsable2 --noheader, Slurm 22.05
// TRES strings): several QOS, each of the three limits binding, a limit without node=
// ignored, empty fields unlimited, malformed lines named.
#include <gtest/gtest.h>

#include "policy/slurm.hpp"
#include "policy/slurm_qos.hpp"

using namespace resize;
using namespace resize::slurm;

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
