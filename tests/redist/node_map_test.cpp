// SPDX-License-Identifier: BSD-3-Clause
// The node map's grouping by host name (pure): the ranks named alike, in order, whatever
// job they came from (a merged world lists the originals' and the newcomers' names).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "malleable/redist/node_map.hpp"

TEST(NodeMap, RanksOfOneHostNameInOrder) {
  // Originals on hosts a and b, newcomers spawned onto a and c, interleaved in the world.
  const std::vector<std::string> names = {"a", "b", "a", "b", "a", "c", "a"};
  EXPECT_EQ(redist::ranks_named_alike(names, 0), (std::vector<int>{0, 2, 4, 6}));
  EXPECT_EQ(redist::ranks_named_alike(names, 4), (std::vector<int>{0, 2, 4, 6}));
  EXPECT_EQ(redist::ranks_named_alike(names, 3), (std::vector<int>{1, 3}));
  EXPECT_EQ(redist::ranks_named_alike(names, 5), (std::vector<int>{5}));
}

TEST(NodeMap, NamesDifferingOnlyInAPrefixAreDifferentHosts) {
  const std::vector<std::string> names = {"node1", "node10", "node1", ""};
  EXPECT_EQ(redist::ranks_named_alike(names, 1), (std::vector<int>{1}));
  EXPECT_EQ(redist::ranks_named_alike(names, 2), (std::vector<int>{0, 2}));
  EXPECT_EQ(redist::ranks_named_alike(names, 3), (std::vector<int>{3}));
  EXPECT_TRUE(redist::ranks_named_alike(names, 4).empty());  // no such rank
}
