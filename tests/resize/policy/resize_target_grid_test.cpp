// SPDX-License-Identifier: BSD-3-Clause
// A decision validated into the target grid (resize/src/policy/grid_choice.hpp): pure,
// no MPI. Session::Impl::act broadcasts the decision and calls this on every rank.
#include <gtest/gtest.h>

#include <string>

#include "policy/grid_choice.hpp"

#include "core_test_util.hpp"

using namespace resize;
using resize::detail::NodePlan;
using resize::detail::TargetInput;
using resize::detail::target_grid;
using resize_test::decision;

namespace {

TargetInput job(Grid shape, int world_size) {
  TargetInput in;
  in.shape = std::move(shape);
  in.world_size = world_size;
  in.spawn_supported = [](std::string&) { return true; };
  return in;
}

NodePlan nodes(std::vector<std::string> hosts) {
  NodePlan np;
  np.hosts_before = std::move(hosts);
  return np;
}

// The message of the Error target_grid throws, or "" if it does not throw.
std::string refusal(Decision d, const TargetInput& in, NodePlan np = {}) {
  try {
    target_grid(d, in, np);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(TargetGrid, ExpandPlansLocal2AndNamesTheSpawnedHosts) {
  Decision d = decision(Action::Expand, 9);
  d.hosts = {HostShare{"n2", 0}};
  NodePlan np = nodes({"n1", "n1", "n1", "n1"});
  const Grid g = target_grid(d, job(Grid{2, 2, {}}, 4), np);
  EXPECT_EQ(g.shape(), "3x3");
  EXPECT_EQ(g.size(), 9);
  ASSERT_EQ(np.spawn.size(), 1u);
  EXPECT_EQ(np.spawn[0], (std::pair<std::string, int>{"n2", 5}));
  EXPECT_EQ(d.placement, Placement::Local2);
}

TEST(TargetGrid, ExpandWithThePolicysRankMapKeepsIt) {
  Decision d = decision(Action::Expand, 6, 2, 3);
  d.ranks = {5, 4, 3, 2, 1, 0};
  NodePlan np;
  const Grid g = target_grid(d, job(Grid{2, 2, {}}, 4), np);
  EXPECT_EQ(g.ranks, d.ranks);
  EXPECT_EQ(d.placement, Placement::Given);
  d.ranks = {0, 1, 2, 3, 4, 6};
  EXPECT_NE(refusal(d, job(Grid{2, 2, {}}, 4)).find("the policy's rank map is not a 2x3 grid of ranks 0..5"),
            std::string::npos);
}

TEST(TargetGrid, ExpandRefusals) {
  EXPECT_EQ(refusal(decision(Action::Expand, 4), job(Grid{2, 2, {}}, 4)),
            "expand to 4 processes: the grid already has 4");
  TargetInput no_spawn = job(Grid{2, 2, {}}, 4);
  no_spawn.spawn_supported = [](std::string& why) {
    why = "this MPI cannot spawn";
    return false;
  };
  EXPECT_EQ(refusal(decision(Action::Expand, 6), no_spawn), "this MPI cannot spawn");
  // Idle processes already in the world: no spawn, so no question asked.
  EXPECT_EQ(refusal(decision(Action::Expand, 6), [&] { auto in = no_spawn; in.world_size = 6; return in; }()), "");
  Decision both = decision(Action::Expand, 6);
  both.schema = "schema.txt";
  both.hosts = {HostShare{"n2", 2}};
  EXPECT_EQ(refusal(both, job(Grid{2, 2, {}}, 4)),
            "expand: a schema file and hosts cannot both say where processes go");
}

TEST(TargetGrid, ShrinkKeepsTheFirstRanksOrEveryProcessOffTheGivenBackNodes) {
  Decision d = decision(Action::Shrink, 4);
  NodePlan np;
  Grid g = target_grid(d, job(Grid{3, 3, {}}, 9), np);
  EXPECT_EQ(g.size(), 4);
  EXPECT_EQ(np.keep, (std::vector<int>{0, 1, 2, 3}));

  Decision give = decision(Action::Shrink, 5);
  give.hosts = {HostShare{"b", 0}};
  NodePlan by_node = nodes({"a", "b", "a", "b", "a", "b", "a", "a"});
  g = target_grid(give, job(Grid{2, 4, {}}, 8), by_node);
  EXPECT_EQ(g.size(), 5);
  EXPECT_EQ(by_node.keep, (std::vector<int>{0, 2, 4, 6, 7}));
  EXPECT_EQ(by_node.release, (std::vector<std::string>{"b"}));
}

TEST(TargetGrid, ShrinkRefusals) {
  EXPECT_EQ(refusal(decision(Action::Shrink, 4), job(Grid{2, 2, {}}, 4)),
            "shrink to 4 processes: the grid has only 4");
  Decision d = decision(Action::Shrink, 4);
  d.hosts = {HostShare{"z", 0}};
  EXPECT_EQ(refusal(d, job(Grid{2, 3, {}}, 6), nodes({"a", "a", "a", "b", "b", "b"})),
            "shrink: no process runs on host z");
  d.hosts = {HostShare{"b", 0}};
  EXPECT_EQ(refusal(d, job(Grid{2, 3, {}}, 6), nodes({"a", "a", "a", "b", "b", "b"})),
            "shrink: giving back the node(s) leaves 3 processes, but the target grid holds 4");
  Decision powers = decision(Action::Shrink, 2);
  powers.powers = {1, 1, 1, 1};
  EXPECT_EQ(refusal(powers, job(Grid{2, 2, {}}, 4)), "shrink: a decision cannot set powers (the world is renumbered)");
}

TEST(TargetGrid, RegridTakesAnySubsetOfTheWorld) {
  Decision d = decision(Action::Regrid, 0, 1, 3);
  d.ranks = {0, 2, 3};
  NodePlan np;
  const Grid g = target_grid(d, job(Grid{2, 2, {}}, 4), np);
  EXPECT_EQ(g.ranks, (std::vector<int>{0, 2, 3}));
  EXPECT_EQ(d.placement, Placement::Given);
  Decision dup = decision(Action::Regrid, 0, 1, 2);
  dup.ranks = {1, 1};
  EXPECT_EQ(refusal(dup, job(Grid{2, 2, {}}, 4)), "regrid: the ranks must be distinct world ranks 0..3");
  Decision count = decision(Action::Regrid, 0, 2, 2);
  count.ranks = {0, 1, 2};
  EXPECT_EQ(refusal(count, job(Grid{2, 2, {}}, 4)), "regrid: 3 ranks for a 2x2 grid");
  EXPECT_EQ(refusal(decision(Action::Regrid, 0, 0, 2), job(Grid{2, 2, {}}, 4)), "regrid: the grid must be at least 1x1");
}

TEST(TargetGrid, ExpandOrShrinkNeedsRanksFromZeroAfterARegrid) {
  EXPECT_EQ(refusal(decision(Action::Expand, 6), job(Grid{1, 3, {0, 2, 3}}, 4)),
            "expand: the grid holds world ranks other than 0..2 after a regrid; regrid onto those first");
}

TEST(TargetGrid, PowersMustCoverTheWorldAfterTheResize) {
  Decision d = decision(Action::Expand, 6);
  d.powers = {1, 1, 1, 1};
  EXPECT_EQ(refusal(d, job(Grid{2, 2, {}}, 4)), "expand: the decision gives 4 powers, the world will have 6 processes");
  Decision r = decision(Action::Regrid, 0, 2, 2);
  r.powers = {1, 1, 0, 1};
  EXPECT_NE(refusal(r, job(Grid{2, 2, {}}, 4)).find("regrid: power of world rank 2 is 0"), std::string::npos);
}
