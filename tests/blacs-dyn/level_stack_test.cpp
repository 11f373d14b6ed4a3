// The communicator stack bookkeeping (pure), seed 002 §3.3.5: levels, spawn groups and
// who exits or parks on a shrink.
#include <gtest/gtest.h>

#include <vector>

#include "malleable/blacs_dyn/error.hpp"
#include "malleable/blacs_dyn/level_stack.hpp"

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
