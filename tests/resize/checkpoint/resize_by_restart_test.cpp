// SPDX-License-Identifier: BSD-3-Clause
// Resize by restart (by_restart.hpp): the nodes of the next launch after a shrink that
// gives nodes back and after an expansion onto new nodes, and the launcher's .next text.
#include "checkpoint/by_restart.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

using resize::Action;
using resize::Decision;
using resize::HostShare;

namespace {
const std::vector<std::string> kRanks{"node1", "node1", "node2", "node2", "node3", "node3"};
}

TEST(ByRestart, AShrinkDropsTheNodesItGivesBack) {
  Decision d;
  d.action = Action::Shrink;
  d.procs = 4;
  d.hosts = {HostShare{"node3", 0}};
  EXPECT_EQ(resize::hosts_after_restart(kRanks, d), (std::vector<std::string>{"node1", "node2"}));
  d.hosts = {HostShare{"node2", 0}, HostShare{"node3", 0}};
  EXPECT_EQ(resize::hosts_after_restart(kRanks, d), (std::vector<std::string>{"node1"}));
}

TEST(ByRestart, AnExpansionAddsItsNodesAfterTheCurrentOnes) {
  Decision d;
  d.action = Action::Expand;
  d.procs = 10;
  d.hosts = {HostShare{"node5", 2}, HostShare{"node4", 2}, HostShare{"node2", 2}};
  EXPECT_EQ(resize::hosts_after_restart(kRanks, d),
            (std::vector<std::string>{"node1", "node2", "node3", "node5", "node4"}));
}

TEST(ByRestart, NoNodesNamedMeansTheLauncherKeepsItsHosts) {
  Decision d;
  d.action = Action::Expand;
  d.procs = 8;
  EXPECT_TRUE(resize::hosts_after_restart(kRanks, d).empty());
  d.hosts = {HostShare{"node3", 0}};
  d.action = Action::None;
  EXPECT_TRUE(resize::hosts_after_restart(kRanks, d).empty());
}

TEST(ByRestart, NextLaunchTextHasTheGridTheFileAndTheHosts) {
  EXPECT_EQ(resize::next_launch_text(2, 3, "/ck/pdgemm-000010.h5", {}), "2 3 /ck/pdgemm-000010.h5\n");
  EXPECT_EQ(resize::next_launch_text(1, 2, "/ck/a.h5", {"node1", "node2"}), "1 2 /ck/a.h5\nhosts node1,node2\n");
  EXPECT_THROW(resize::next_launch_text(0, 2, "/ck/a.h5", {}), resize::Error);
  EXPECT_THROW(resize::next_launch_text(1, 2, "/ck/a b.h5", {}), resize::Error);
  EXPECT_THROW(resize::next_launch_text(1, 2, "", {}), resize::Error);
  EXPECT_THROW(resize::next_launch_text(1, 2, "/ck/a.h5", {"node1", "no de"}), resize::Error);
  EXPECT_THROW(resize::next_launch_text(1, 2, "/ck/a.h5", {""}), resize::Error);
}
