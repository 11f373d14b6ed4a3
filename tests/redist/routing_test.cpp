// SPDX-License-Identifier: BSD-3-Clause
// The transport per peer pair (pure): which on-node peers the node window joins when only
// pairs of different MPI jobs take it (an original process and a newcomer), and that both
// ends of every transfer choose alike.
#include <gtest/gtest.h>

#include <vector>

#include "exec/on_node.hpp"
#include "malleable/redist/node_map.hpp"

namespace {

using redist::exec::Route;
using redist::exec::Routing;

// One element per piece, 1 row x 1 column: never read in one copy under SingleCopy::Auto.
redist::Transfer small(int src, int dst) {
  redist::Transfer t;
  t.src = src;
  t.dst = dst;
  t.rows.push_back(redist::Run{0, 1, 1, 1, 0, 0});
  t.cols.push_back(redist::Run{0, 1, 1, 1, 0, 0});
  return t;
}

// Node 0 holds ranks 0-4 (originals 0-2, newcomers 3-4 of one spawn); rank 5 is on another node.
const std::vector<int> kNode = {0, 1, 2, 3, 4};
const std::vector<int> kOriginals = {0, 1, 2, 5}, kSpawned = {3, 4};

Routing routing_of(int me, bool other_jobs_only) {
  Routing r;
  r.node = &kNode;
  r.window = true;
  const std::vector<int>& job = me == 3 || me == 4 ? kSpawned : kOriginals;
  r.window_ranks = redist::exec::joined_by_window(kNode, other_jobs_only ? &job : nullptr, me);
  return r;
}

}  // namespace

TEST(Routing, WindowJoinsOnlyOtherJobsPeersUnderOtherJobs) {
  EXPECT_EQ(redist::exec::joined_by_window(kNode, &kOriginals, 1), (std::vector<int>{1, 3, 4}));
  EXPECT_EQ(redist::exec::joined_by_window(kNode, &kSpawned, 4), (std::vector<int>{0, 1, 2, 4}));
  EXPECT_EQ(redist::exec::joined_by_window(kNode, nullptr, 4), kNode);
  const Routing orig = routing_of(0, true), spawned = routing_of(3, true);
  EXPECT_EQ(orig.route(small(0, 1), 0, 8), Route::Message);  // one job: MPI's shared memory
  EXPECT_EQ(orig.route(small(0, 3), 0, 8), Route::Window);   // original -> newcomer
  EXPECT_EQ(orig.route(small(4, 0), 0, 8), Route::Window);   // newcomer -> original
  EXPECT_EQ(orig.route(small(0, 5), 0, 8), Route::Message);  // another node
  EXPECT_EQ(spawned.route(small(3, 4), 3, 8), Route::Message);
  EXPECT_EQ(spawned.route(small(3, 2), 3, 8), Route::Window);
}

TEST(Routing, AnyPairKeepsTheWindowForEveryOnNodePeer) {
  const Routing orig = routing_of(0, false);
  EXPECT_EQ(orig.route(small(0, 1), 0, 8), Route::Window);
  EXPECT_EQ(orig.route(small(0, 3), 0, 8), Route::Window);
  EXPECT_EQ(orig.route(small(0, 5), 0, 8), Route::Message);
}

TEST(Routing, BothEndsOfEveryTransferChooseAlike) {
  for (bool other : {false, true})
    for (int s = 0; s < 6; ++s)
      for (int d = 0; d < 6; ++d) {
        if (s == d || s == 5 || d == 5) continue;  // rank 5's node map is another node's
        const redist::Transfer t = small(s, d);
        EXPECT_EQ(routing_of(s, other).route(t, s, 8), routing_of(d, other).route(t, d, 8))
            << s << " -> " << d << (other ? " (other jobs only)" : "");
      }
}

TEST(Routing, JobRanksAreTheRanksFoundInTheWorld) {
  EXPECT_EQ(redist::ranks_in_world({0, 1, -1, -1, 2}), (std::vector<int>{0, 1, 4}));
  EXPECT_EQ(redist::ranks_in_world({-1, 0}), (std::vector<int>{1}));
  EXPECT_TRUE(redist::ranks_in_world({}).empty());
}
