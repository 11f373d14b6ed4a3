// SPDX-License-Identifier: BSD-3-Clause
// The communicator stack bookkeeping (pure), the thesis §3.3.5: levels, spawn groups and
// who exits or parks on a shrink.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "malleable/blacs_dyn/error.hpp"
#include "protocol/level_stack.hpp"

using blacs_dyn::Departure;
using blacs_dyn::Error;
using blacs_dyn::LevelStack;
using blacs_dyn::ProcState;

namespace {
// 2 -> 4 -> 6 -> 9, as in the MPI test.
LevelStack grown() {
  LevelStack s(2);
  s.push_expansion(2);
  s.push_expansion(2);
  s.push_expansion(3);
  return s;
}
int code_of(auto&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.code();
  }
  return BLACS_DYN_OK;
}
}  // namespace

TEST(blacsDynLevelStack, ExpansionKeepsRanksAndAppendsNewcomers) {
  const auto s = grown();
  ASSERT_EQ(s.depth(), 4);
  EXPECT_EQ(s.world_size(), 9);
  EXPECT_EQ(s.level(1).members, (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(s.top().members, (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7, 8}));
  EXPECT_EQ(s.group_of(0), 0);
  EXPECT_EQ(s.group_of(3), 1);
  EXPECT_EQ(s.group_of(5), 2);
  EXPECT_EQ(s.group_of(8), 3);
  EXPECT_EQ(s.joined_level(6), 3);
  EXPECT_EQ(s.rank_at(7, 3), 7);
  EXPECT_EQ(s.rank_at(7, 2), -1);
  EXPECT_EQ(s.alive(), 9);
}

TEST(blacsDynLevelStack, PoppingASpawnedLevelExitsItsWholeGroup) {
  auto s = grown();
  const auto plan = s.plan_shrink_to_level(2);
  EXPECT_EQ(plan.new_members.size(), 6u);
  EXPECT_EQ(plan.exit_now, (std::vector<int>{6, 7, 8}));
  EXPECT_TRUE(plan.park_now.empty());
  EXPECT_EQ(plan.groups_exiting, (std::vector<int>{3}));
  EXPECT_EQ(LevelStack::departure(plan, 7), Departure::Exit);
  EXPECT_EQ(LevelStack::departure(plan, 5), Departure::Stay);
  s.apply(plan);
  EXPECT_EQ(s.depth(), 3);
  EXPECT_EQ(s.state(8), ProcState::Exited);
  EXPECT_EQ(s.alive(), 6);
}

TEST(blacsDynLevelStack, PoppingSeveralLevelsAtOnceExitsEveryGroupAbove) {
  auto s = grown();
  const auto plan = s.plan_shrink_to_level(0);
  EXPECT_EQ(plan.exit_now.size(), 7u);
  EXPECT_EQ(plan.groups_exiting, (std::vector<int>{1, 2, 3}));
  s.apply(plan);
  EXPECT_EQ(s.world_size(), 2);
  EXPECT_EQ(s.exited(), 7);
}

TEST(blacsDynLevelStack, OriginalsPark) {
  LevelStack s(4);
  const int keep[] = {0, 2};
  const auto plan = s.plan_shrink_to_ranks(keep);
  EXPECT_EQ(plan.new_members, (std::vector<int>{0, 2}));
  EXPECT_EQ(plan.park_now, (std::vector<int>{1, 3}));
  EXPECT_TRUE(plan.exit_now.empty());
  s.apply(plan);
  EXPECT_EQ(s.depth(), 2);
  EXPECT_EQ(s.top().kind, blacs_dyn::LevelKind::Subset);
  EXPECT_EQ(s.parked(), 2);
  EXPECT_EQ(s.alive(), 4);
}

TEST(blacsDynLevelStack, PartOfASpawnedGroupParksAndExitsWithItsLastSibling) {
  LevelStack s(2);
  s.push_expansion(2);  // group 1 = {2, 3}
  const int keep1[] = {0, 2};  // 1 (original) and 3 (sibling 2 stays) park
  const auto p1 = s.plan_shrink_to_ranks(keep1);
  EXPECT_EQ(p1.park_now, (std::vector<int>{1, 3}));
  s.apply(p1);
  const int keep2[] = {0};  // 2 leaves: group 1 has nobody left, so 2 exits and 3 is woken
  const auto p2 = s.plan_shrink_to_ranks(keep2);
  EXPECT_EQ(p2.exit_now, (std::vector<int>{2}));
  EXPECT_EQ(p2.wake_to_exit, (std::vector<int>{3}));
  EXPECT_EQ(p2.groups_exiting, (std::vector<int>{1}));
  s.apply(p2);
  EXPECT_EQ(s.state(3), ProcState::Exited);
  EXPECT_EQ(s.state(1), ProcState::Parked);
  EXPECT_EQ(s.alive(), 2);
}

// blacs-dyn's error is the one form (malleable/error.hpp): its status and the common code
// one to one, the part blacs-dyn, the message as raised.
TEST(blacsDynLevelStack, ErrorsAreTheOneForm) {
  for (int status = BLACS_DYN_OK; status <= BLACS_DYN_ERR_JOIN; ++status) {
    const Error e(status, "m");
    EXPECT_EQ(e.code(), status);
    EXPECT_EQ(blacs_dyn::status_of(blacs_dyn::errc_of_status(status)), status);
    EXPECT_EQ(e.part(), malleable::Part::BlacsDyn);
  }
  EXPECT_EQ(Error(BLACS_DYN_ERR_SPAWN, "m").errc(), malleable::Errc::Spawn);
  EXPECT_EQ(Error(BLACS_DYN_ERR_UNSUPPORTED, "m").errc(), malleable::Errc::SpawnUnsupported);
  EXPECT_EQ(Error(99, "m").code(), BLACS_DYN_ERR_MPI);  // no status: a failure blacs-dyn did not name
  try {
    LevelStack(2).plan_shrink_to_level(0);
    ADD_FAILURE() << "a shrink of level 0 was planned";
  } catch (const malleable::Error& e) {
    EXPECT_EQ(e.errc(), malleable::Errc::InvalidArgument);
    EXPECT_EQ(e.part(), malleable::Part::BlacsDyn);
    EXPECT_STREQ(e.what(), "cannot shrink to level 0: the stack holds only level 0, nothing to pop");
  }
}

TEST(blacsDynLevelStack, ImpossibleShrinksAreRejected) {
  const auto s = grown();
  EXPECT_EQ(code_of([&] { s.plan_shrink_to_level(3); }), BLACS_DYN_ERR_ARG);   // the current level
  EXPECT_EQ(code_of([&] { s.plan_shrink_to_level(-1); }), BLACS_DYN_ERR_ARG);
  EXPECT_EQ(code_of([&] { s.plan_shrink_to_level(7); }), BLACS_DYN_ERR_ARG);
  EXPECT_EQ(code_of([&] { LevelStack(2).plan_shrink_to_level(0); }), BLACS_DYN_ERR_ARG);
  const int dup[] = {0, 1, 1};
  EXPECT_EQ(code_of([&] { s.plan_shrink_to_ranks(dup); }), BLACS_DYN_ERR_ARG);
  const int out[] = {0, 9};
  EXPECT_EQ(code_of([&] { s.plan_shrink_to_ranks(out); }), BLACS_DYN_ERR_ARG);
  const int no_root[] = {1, 0};
  EXPECT_EQ(code_of([&] { s.plan_shrink_to_ranks(no_root); }), BLACS_DYN_ERR_ARG);
  EXPECT_EQ(code_of([&] { s.plan_shrink_to_ranks(std::span<const int>()); }), BLACS_DYN_ERR_ARG);
  std::vector<int> too_many(10);
  for (int i = 0; i < 10; ++i) too_many[static_cast<size_t>(i)] = i;
  EXPECT_EQ(code_of([&] { s.plan_shrink_to_ranks(too_many); }), BLACS_DYN_ERR_ARG);
  EXPECT_EQ(code_of([&] { LevelStack(2).push_expansion(0); }), BLACS_DYN_ERR_ARG);
}

TEST(blacsDynLevelStack, CannotPopBackToALevelWhoseMembersLeft) {
  LevelStack s(2);
  s.push_expansion(2);
  const int keep[] = {0, 1, 2};
  s.apply(s.plan_shrink_to_ranks(keep));  // 3 leaves (parks: sibling 2 stays)
  EXPECT_EQ(code_of([&] { s.plan_shrink_to_level(1); }), BLACS_DYN_ERR_STATE);
  EXPECT_EQ(s.plan_shrink_to_level(0).new_members, (std::vector<int>{0, 1}));
}

// 4 -> keep 2 (originals 2, 3 park) -> +4 -> back to 4 processes. Level 0 cannot
// be popped to (2 and 3 left), but any 4 live processes can form the new world.
TEST(blacsDynLevelStack, ShrinkBelowTheStartGrowAndShrinkBackKeepsLiveProcesses) {
  LevelStack s(4);
  const int two[] = {0, 1};
  s.apply(s.plan_shrink_to_ranks(two));
  EXPECT_EQ(s.parked(), 2);
  s.push_expansion(4);  // group 1 = {4, 5, 6, 7}; world {0, 1, 4, 5, 6, 7}
  EXPECT_EQ(code_of([&] { s.plan_shrink_to_level(0); }), BLACS_DYN_ERR_STATE);
  const int four[] = {0, 1, 2, 3};
  const auto plan = s.plan_shrink_to_ranks(four);
  EXPECT_EQ(plan.pop_to, -1);
  EXPECT_EQ(plan.new_members, (std::vector<int>{0, 1, 4, 5}));
  EXPECT_EQ(plan.park_now, (std::vector<int>{6, 7}));  // siblings 4, 5 stay
  s.apply(plan);
  EXPECT_EQ(s.world_size(), 4);
  EXPECT_EQ(s.alive(), 8);
  // ... and down to the two originals again: a pop to level 1, the whole group exits,
  // its parked members woken to exit with it.
  const auto back = s.plan_shrink_to_ranks(two);
  EXPECT_EQ(back.pop_to, 1);
  EXPECT_EQ(back.exit_now, (std::vector<int>{4, 5}));
  EXPECT_EQ(back.wake_to_exit, (std::vector<int>{6, 7}));
  s.apply(back);
  EXPECT_EQ(s.depth(), 2);
  EXPECT_EQ(s.alive(), 4);
}

TEST(blacsDynLevelStack, KeepingExactlyALowerLevelPopsToItInsteadOfGrowingTheStack) {
  auto s = grown();  // 2 -> 4 -> 6 -> 9
  const int four[] = {0, 1, 2, 3};
  const auto plan = s.plan_shrink_to_ranks(four);
  EXPECT_EQ(plan.pop_to, 1);
  EXPECT_EQ(plan.groups_exiting, (std::vector<int>{2, 3}));
  EXPECT_TRUE(plan.park_now.empty());
  s.apply(plan);
  EXPECT_EQ(s.depth(), 2);
  // Same processes in another order are not that level: a Subset level is pushed.
  auto t = grown();
  const int swapped[] = {0, 2, 1, 3};
  EXPECT_EQ(t.plan_shrink_to_ranks(swapped).pop_to, -1);
}

TEST(blacsDynLevelStack, AnEndlessWalkOfResizesKeepsTheStackBounded) {
  // expand +2 / keep 0..2 / keep 0..1, forever: every cycle ends on a level that already
  // exists, so the depth (one communicator pair per level in the MPI layer) stays bounded.
  LevelStack s(2);
  for (int cycle = 0; cycle < 50; ++cycle) {
    s.push_expansion(2);
    const int three[] = {0, 1, 2};
    s.apply(s.plan_shrink_to_ranks(three));
    const int two[] = {0, 1};
    s.apply(s.plan_shrink_to_ranks(two));
    ASSERT_EQ(s.depth(), 1) << "cycle " << cycle;
  }
  EXPECT_EQ(s.alive(), 2);
  EXPECT_EQ(s.exited(), 100);
}

TEST(blacsDynLevelStack, GridShapesAreRecordedPerLevel) {
  auto s = grown();
  s.set_grid(3, 3, 3);
  s.set_grid(1, 2, 2);
  EXPECT_EQ(s.level(3).nprow, 3);
  EXPECT_EQ(s.level(1).npcol, 2);
  EXPECT_EQ(s.level(0).nprow, 0);
}

TEST(blacsDynLevelStack, EncodeDecodeRoundTrips) {
  auto s = grown();
  s.set_grid(2, 2, 3);
  const int keep[] = {0, 4, 5};
  s.apply(s.plan_shrink_to_ranks(keep));
  const auto t = LevelStack::decode(s.encode());
  EXPECT_EQ(t.encode(), s.encode());
  EXPECT_EQ(t.depth(), 5);
  EXPECT_EQ(t.level(2).npcol, 3);
  EXPECT_EQ(t.state(1), s.state(1));
  auto bad = s.encode();
  bad.pop_back();
  EXPECT_EQ(code_of([&] { LevelStack::decode(bad); }), BLACS_DYN_ERR_MPI);
}

// after a spawned level was popped and pushed again, the new spawn reused the
// popped group's number, so a group mixed exited processes with live ones and a later
// shrink addressed a parked process by the wrong index (MPI_ERR_RANK in MPI_Send).
TEST(blacsDynLevelStack, GroupIdsAreNeverReusedAfterAPop) {
  LevelStack s(4);
  s.push_expansion(5);                              // 4..8, group 1
  const int keep6[] = {0, 1, 2, 3, 4, 5};
  s.apply(s.plan_shrink_to_ranks(keep6));           // 6, 7, 8 park
  s.apply(s.plan_shrink_to_level(0));               // group 1 leaves whole: 4, 5 exit, 6-8 woken
  EXPECT_EQ(s.exited(), 5);
  const auto again = s.push_expansion(5);           // 9..13
  const int g = s.group_of(again.front());
  EXPECT_NE(g, 1);
  EXPECT_EQ(s.group_members(g), again);
  s.apply(s.plan_shrink_to_ranks(keep6));           // 11, 12, 13 park in group g
  const auto plan = s.plan_shrink_to_level(0);      // g leaves whole
  EXPECT_EQ(plan.groups_exiting, (std::vector<int>{g}));
  EXPECT_EQ(plan.wake_to_exit, (std::vector<int>{11, 12, 13}));
  // The parked process's index inside its own spawn group (what the MPI layer sends to).
  const auto members = s.group_members(g);
  EXPECT_EQ(std::find(members.begin(), members.end(), 13) - members.begin(), 4);
}

TEST(blacsDynLevelStack, OneLevelCanHoldOneSpawnGroupPerNode) {
  LevelStack s(2);
  const int counts[] = {3, 2};
  const std::string hosts[] = {"node2", "node3"};
  const auto ids = s.push_expansion(counts, hosts);
  ASSERT_EQ(ids.size(), 2u);
  EXPECT_EQ(s.depth(), 2);
  EXPECT_EQ(s.top().members, (std::vector<int>{0, 1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(s.group_members(ids[0]), (std::vector<int>{2, 3, 4}));
  EXPECT_EQ(s.group_members(ids[1]), (std::vector<int>{5, 6}));
  EXPECT_EQ(s.host_of(4), "node2");
  EXPECT_EQ(s.host_of(6), "node3");
  EXPECT_EQ(s.joined_level(6), 1);
  EXPECT_EQ(s.group(ids[1]).host, "node3");
  // Popping the level ends both groups.
  EXPECT_EQ(s.plan_shrink_to_level(0).groups_exiting, ids);
}

TEST(blacsDynLevelStack, ReleasingAHostEndsEveryProcessOnIt) {
  LevelStack s(2);
  s.set_host(0, "node1");
  s.set_host(1, "node1");
  const int counts[] = {2, 2};
  const std::string hosts[] = {"node2", "node3"};
  const auto ids = s.push_expansion(counts, hosts);
  const std::string node2[] = {"node2"};
  const auto plan = s.plan_release_hosts(node2);
  EXPECT_EQ(plan.new_members, (std::vector<int>{0, 1, 4, 5}));
  EXPECT_EQ(plan.exit_now, (std::vector<int>{2, 3}));
  EXPECT_TRUE(plan.park_now.empty());
  EXPECT_EQ(plan.groups_exiting, (std::vector<int>{ids[0]}));
  const std::string both[] = {"node3", "node2"};
  EXPECT_EQ(s.plan_release_hosts(both).new_members, (std::vector<int>{0, 1}));
  // Rank 0's node, a node the world does not use, an empty name: refused.
  const std::string node1[] = {"node1"}, node9[] = {"node9"}, empty[] = {""};
  EXPECT_EQ(code_of([&] { s.plan_release_hosts(node1); }), BLACS_DYN_ERR_ARG);
  EXPECT_EQ(code_of([&] { s.plan_release_hosts(node9); }), BLACS_DYN_ERR_ARG);
  EXPECT_EQ(code_of([&] { s.plan_release_hosts(empty); }), BLACS_DYN_ERR_ARG);
}

TEST(blacsDynLevelStack, AHostSharedWithAStayingGroupMemberCannotBeReleasedWhole) {
  // One spawn group spread over two nodes (a single MPI_Comm_spawn with a host list):
  // releasing one node would park its processes, not end them.
  LevelStack s(1);
  s.set_host(0, "node1");
  s.push_expansion(4);
  s.set_host(1, "node2");
  s.set_host(2, "node2");
  s.set_host(3, "node3");
  s.set_host(4, "node3");
  const std::string node2[] = {"node2"};
  try {
    s.plan_release_hosts(node2);
    FAIL() << "expected a refusal";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), BLACS_DYN_ERR_STATE);
    EXPECT_NE(std::string(e.what()).find("process 1 on node2 is in spawn group 1"), std::string::npos) << e.what();
  }
  // The original processes can never give their node back (rank 0's MPI_COMM_WORLD).
  LevelStack o(4);
  for (int p = 0; p < 4; ++p) o.set_host(p, p < 2 ? "node1" : "node2");
  EXPECT_EQ(code_of([&] { o.plan_release_hosts(node2); }), BLACS_DYN_ERR_STATE);
}

TEST(blacsDynLevelStack, EncodeDecodeKeepsGroupsAndHosts) {
  LevelStack s(2);
  s.set_host(1, "node1");
  const int counts[] = {1, 2};
  const std::string hosts[] = {"node2", "node-3.example"};
  s.push_expansion(counts, hosts);
  s.apply(s.plan_shrink_to_level(0));
  s.push_expansion(2);
  const auto t = LevelStack::decode(s.encode());
  EXPECT_EQ(t.encode(), s.encode());
  EXPECT_EQ(t.ngroups(), 4);
  EXPECT_EQ(t.group(2).host, "node-3.example");
  EXPECT_EQ(t.host_of(1), "node1");
  EXPECT_EQ(t.group_of(5), 3);
}

// Growing by joining: a job started on node1 (2 processes) and joined at its start by
// node2's launch (level 1), then by node3's and node4's launches in one expansion (level
// 2, one group each, in that order). Giving back node2 and node4 ends those launches
// whole; the levels that held them are dead (their communicators must be freed
// everywhere), the others are not, and the launches' ids survive the encoding.
TEST(blacsDynLevelStack, JoinedLaunchesAreGroupsAndTheirLevelsDieWithThem) {
  LevelStack s(2);
  for (int p = 0; p < 2; ++p) s.set_host(p, "node1");
  const int one[] = {2};
  const std::string n2[] = {"node2"}, l2[] = {"s1"};
  EXPECT_EQ(s.push_joined(one, n2, l2), (std::vector<int>{1}));
  const int two[] = {2, 2};
  const std::string n34[] = {"node3", "node4"}, l34[] = {"j1", "j2"};
  EXPECT_EQ(s.push_joined(two, n34, l34), (std::vector<int>{2, 3}));
  EXPECT_EQ(s.group(3).launch, "j2");
  EXPECT_EQ(s.host_of(6), "node4");
  EXPECT_TRUE(s.dead_levels().empty());
  const std::string back[] = {"node2", "node4"};
  const auto plan = s.plan_release_hosts(back);
  EXPECT_EQ(plan.new_members, (std::vector<int>{0, 1, 4, 5}));
  EXPECT_EQ(plan.groups_exiting, (std::vector<int>{1, 3}));
  EXPECT_TRUE(plan.park_now.empty());
  s.apply(plan);
  EXPECT_EQ(s.dead_levels(), (std::vector<int>{1, 2}));  // level 0 and the new level 3 live on
  const auto t = LevelStack::decode(s.encode());
  EXPECT_EQ(t.group(2).launch, "j1");
  EXPECT_EQ(t.group(1).launch, "s1");
  EXPECT_EQ(t.group(0).launch, "");
  EXPECT_EQ(code_of([&] { s.push_joined(one, n2, l34); }), BLACS_DYN_ERR_ARG);  // 2 ids for 1 group
}

// A respawn: the last expansion's processes replace the world, everybody else ends (the
// parked included), and the stayers go on with a stack as if the job had started so.
TEST(blacsDynLevelStack, ARespawnKeepsTheLastExpansionAloneAsAFreshJob) {
  LevelStack s(4);
  s.push_expansion(2);                                  // 4 -> 6 (group 1: processes 4, 5)
  const int keep[] = {0, 1, 4};
  s.apply(s.plan_shrink_to_ranks(keep));                // 2, 3 park; 5 parks (4 stays in group 1)
  ASSERT_EQ(s.parked(), 3);
  s.push_expansion(4);                                  // the respawn's spawn: processes 6..9
  const auto plan = s.plan_retire();
  EXPECT_EQ(plan.stay, (std::vector<int>{6, 7, 8, 9}));
  EXPECT_EQ(plan.exit_now, (std::vector<int>{0, 1, 4}));
  EXPECT_EQ(plan.wake_to_exit, (std::vector<int>{2, 3, 5}));
  EXPECT_EQ(plan.new_groups, (std::vector<int>{2}));
  const LevelStack fresh = s.after_retire(plan);
  EXPECT_EQ(fresh.depth(), 1);
  EXPECT_EQ(fresh.world_size(), 4);
  EXPECT_EQ(fresh.ngroups(), 1);
  EXPECT_EQ(fresh.top().members, (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(fresh.parked() + fresh.exited(), 0);
}

TEST(blacsDynLevelStack, ARespawnOnSeveralNodesKeepsOneGroupPerNode) {
  LevelStack s(2);
  s.set_host(0, "n1");
  s.set_host(1, "n1");
  const int counts[] = {3, 2};
  const std::string hosts[] = {"n1", "n2"};
  s.push_expansion(counts, hosts);
  const auto plan = s.plan_retire();
  EXPECT_EQ(plan.stay, (std::vector<int>{2, 3, 4, 5, 6}));
  EXPECT_EQ(plan.new_groups, (std::vector<int>{1, 2}));
  const LevelStack fresh = s.after_retire(plan);
  ASSERT_EQ(fresh.depth(), 2);                          // n1's group, then n2's as one expansion
  EXPECT_EQ(fresh.level(0).members, (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(fresh.world_size(), 5);
  EXPECT_EQ(fresh.group_of(3), 1);
  EXPECT_EQ(fresh.host_of(0), "n1");
  EXPECT_EQ(fresh.host_of(4), "n2");
  // n2 can be given back whole later: its group has no member elsewhere.
  const std::string n2[] = {"n2"};
  EXPECT_EQ(fresh.plan_release_hosts(n2).exit_now, (std::vector<int>{3, 4}));
}

TEST(blacsDynLevelStack, ARespawnNeedsAnExpansionOnTop) {
  LevelStack s(4);
  EXPECT_EQ(code_of([&] { s.plan_retire(); }), BLACS_DYN_ERR_STATE);
  s.push_expansion(2);
  const int keep[] = {0, 1, 2, 3};
  s.apply(s.plan_shrink_to_ranks(keep));                // popped back to level 0
  EXPECT_EQ(code_of([&] { s.plan_retire(); }), BLACS_DYN_ERR_STATE);
}
