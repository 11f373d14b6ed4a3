// SPDX-License-Identifier: BSD-3-Clause
// The node window lets go of its mappings of departed processes' segments
// (redist/src/exec/peer_retention.hpp): over many expansions the mapped peers stay at the
// processes alive, not one more per newcomer ever met.
#include <gtest/gtest.h>

#include <cstdint>
#include <set>
#include <vector>

#include "exec/peer_retention.hpp"

using redist::exec::gone_peers;

TEST(RedistPeerRetention, DropsExactlyTheDeparted) {
  const std::vector<std::int64_t> pids{10, 11, 20, 21, 22};
  const std::set<std::int64_t> alive{11, 21};
  const auto gone = gone_peers(pids, [&](std::int64_t p) { return alive.count(p) > 0; });
  EXPECT_EQ(gone, (std::vector<std::size_t>{0, 2, 4}));
  EXPECT_TRUE(gone_peers(pids, [](std::int64_t) { return true; }).empty());
  EXPECT_TRUE(gone_peers({}, [](std::int64_t) { return false; }).empty());
}

// 200 expansions of 2-4 newcomers each, as the endurance run makes: applying the rule
// before each new mapping (as Store::map_peer does) keeps the list at the live peers plus
// the newcomers of the current expansion; without it the list grows by every newcomer.
TEST(RedistPeerRetention, BoundedOverManyExpansions) {
  std::vector<std::int64_t> peers{1, 2, 3};  // the other originals of the node
  std::set<std::int64_t> alive{1, 2, 3};
  std::int64_t next = 100;
  std::size_t most = 0, never_dropped = 3;
  for (int e = 0; e < 200; ++e) {
    const int k = 2 + e % 3;
    std::vector<std::int64_t> newcomers;
    for (int i = 0; i < k; ++i) newcomers.push_back(next++);
    for (auto p : newcomers) {
      alive.insert(p);
      const auto gone = gone_peers(peers, [&](std::int64_t q) { return alive.count(q) > 0; });
      for (auto i = gone.rbegin(); i != gone.rend(); ++i) peers.erase(peers.begin() + static_cast<std::ptrdiff_t>(*i));
      peers.push_back(p);
      most = std::max(most, peers.size());
      ++never_dropped;
    }
    for (auto p : newcomers) alive.erase(p);  // the shrink: the newcomers leave
  }
  EXPECT_LE(most, 3u + 4u);
  EXPECT_GT(never_dropped, 500u);  // what the list would hold without the rule
}
