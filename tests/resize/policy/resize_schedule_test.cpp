// SPDX-License-Identifier: BSD-3-Clause
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>

#include "malleable/resize/schedule.hpp"

using namespace resize;

TEST(Schedule, ParsesExpandThenShrinkWithPlacementAndGrid) {
  const Schedule s = parse_schedule("3:expand:9:local2, 8:shrink:2x2");
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0].iteration, 3);
  EXPECT_EQ(s[0].decision.action, Action::Expand);
  EXPECT_EQ(s[0].decision.procs, 9);
  EXPECT_EQ(s[0].decision.nprow, 0);
  EXPECT_EQ(s[0].decision.placement, Placement::Local2);
  EXPECT_EQ(s[1].decision.action, Action::Shrink);
  EXPECT_EQ(s[1].decision.nprow, 2);
  EXPECT_EQ(s[1].decision.npcol, 2);
  EXPECT_EQ(s[1].decision.procs, 4);
}

TEST(Schedule, SortsEntriesAndAcceptsCommentsAndNewlines) {
  const Schedule s = parse_schedule("# demo\n8:shrink:4\n3:expand:3x3:global # grow\n");
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0].iteration, 3);
  EXPECT_EQ(s[0].decision.placement, Placement::Global);
  EXPECT_EQ(s[1].iteration, 8);
}

TEST(Schedule, SchemaOptionIsKept) {
  const Schedule s = parse_schedule("2:expand:6:schema=bad.dat");
  EXPECT_EQ(s[0].decision.schema, "bad.dat");
}

TEST(Schedule, ErrorsNameTheFieldAtFault) {
  try {
    parse_schedule("3:grow:9");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("grow"), std::string::npos);
  }
  EXPECT_THROW(parse_schedule("x:expand:9"), Error);
  EXPECT_THROW(parse_schedule("3:expand:0x3"), Error);
  EXPECT_THROW(parse_schedule("3:expand:9:local7"), Error);
  EXPECT_THROW(parse_schedule("3:expand:9,3:shrink:4"), Error);
  EXPECT_THROW(parse_schedule("3:expand"), Error);
}

TEST(Schedule, LoadsFromFileOrText) {
  const std::string path = "resize_schedule_test.sched";
  {
    std::ofstream f(path);
    f << "4:expand:3x3:local1\n";
  }
  const Schedule s = load_schedule(path);
  std::remove(path.c_str());
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0].decision.placement, Placement::Local1);
  EXPECT_EQ(load_schedule("5:shrink:4")[0].iteration, 5);
  EXPECT_THROW(load_schedule("no-such-file"), Error);
}

TEST(Schedule, RoundTripsThroughToString) {
  const Schedule s = parse_schedule("3:expand:3x3:local2");
  EXPECT_EQ(to_string(s[0]), "3:expand:3x3:local2");
}

TEST(Schedule, HostsNameWhereAnExpansionGoesAndWhichNodesAShrinkGivesBack) {
  const auto s = parse_schedule("3:expand:3x3:local2@node2,4:expand:16@node2=6+node3,8:shrink:2x2@node2+node3,"
                                "9:expand:9:@node4");
  ASSERT_EQ(s.size(), 4u);
  EXPECT_EQ(s[0].decision.hosts, (std::vector<HostShare>{{"node2", 0}}));
  EXPECT_EQ(s[0].decision.placement, Placement::Local2);
  EXPECT_EQ(s[0].decision.nprow, 3);
  EXPECT_EQ(s[1].decision.procs, 16);
  EXPECT_EQ(s[1].decision.hosts, (std::vector<HostShare>{{"node2", 6}, {"node3", 0}}));
  EXPECT_EQ(s[2].decision.action, Action::Shrink);
  EXPECT_EQ(s[2].decision.hosts, (std::vector<HostShare>{{"node2", 0}, {"node3", 0}}));
  EXPECT_EQ(s[3].decision.hosts, (std::vector<HostShare>{{"node4", 0}}));
  for (const auto& e : s) EXPECT_EQ(parse_schedule(to_string(e))[0].decision.hosts, e.decision.hosts);
}

TEST(Schedule, BadHostListsAreNamed) {
  const auto msg = [](const char* text) {
    try {
      parse_schedule(text);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_NE(msg("3:expand:9@").find("names no host"), std::string::npos);
  EXPECT_NE(msg("3:expand:9@node2=0").find("count >= 1"), std::string::npos);
  EXPECT_NE(msg("3:expand:9@node2=x").find("count of host node2"), std::string::npos);
  EXPECT_NE(msg("3:expand:9@node2+node2").find("named twice"), std::string::npos);
  EXPECT_NE(msg("3:expand:9@node2:local2@node3").find("given twice"), std::string::npos);
}
