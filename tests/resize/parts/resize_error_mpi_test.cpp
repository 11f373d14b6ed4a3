// SPDX-License-Identifier: BSD-3-Clause
// Errors in one form from blacs-dyn up through resize (malleable/error.hpp), on 2 processes:
// a call the session makes to blacs-dyn (a respawn's retire, with no expansion to retire)
// fails in blacs-dyn, and the session's caller catches it as resize::Error with the code,
// part and message blacs-dyn raised (the object thrown, where the session met it before
// its message); the C APIs report the same: blacs-dyn's status and message, and resize's
// status with the code and part of the one form. A user's policy whose state() throws
// while world rank 0 plans a shrink (before the plan's broadcast): every process gets the
// refusal with the code and part raised, through the C++ result and resize_remap_point's
// C status, and the job stays on its grid; the same where it throws when world rank 0
// reads its carry for a respawn (after the plan's broadcast, before the spawn).
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdlib>
#include <memory>
#include <optional>
#include <string>

#include "malleable/blacs_dyn/blacs_dyn.h"
#include "malleable/error.h"
#include "malleable/resize/resize.h"
#include "malleable/resize/session.hpp"
#include "parts/blacs_dyn_error.hpp"

namespace {

// What blacs-dyn's level stack says when asked to retire a world that did not expand.
const std::string kNoExpansion =
    "a respawn replaces the world by the processes of its last expansion, but the current level is no expansion";

TEST(ResizeError, BlacsDynsErrorReachesTheSessionsCallerAsRaised) {
  try {
    resize::detail::or_session_error("respawn: ", [] { return blacs_dyn::World::retire(); });
    FAIL() << "a world that did not expand was retired";
  } catch (const resize::Error& e) {
    const auto* raised = dynamic_cast<const blacs_dyn::Error*>(&e);
    ASSERT_NE(raised, nullptr) << "re-wrapped: " << e.what();
    EXPECT_EQ(raised->code(), BLACS_DYN_ERR_STATE);
    EXPECT_EQ(e.errc(), malleable::Errc::State);
    EXPECT_EQ(e.part(), malleable::Part::BlacsDyn);
    EXPECT_EQ(std::string(blacs_dyn_last_error()), kNoExpansion);  // as blacs-dyn raised it
    EXPECT_EQ(std::string(e.what()), "respawn: " + kNoExpansion);
  }
  // A refused resize's record says it in one line, its status first.
  EXPECT_EQ(resize::detail::blacs_dyn_failure([] { blacs_dyn::World::retire(); }),
            "call out of order: " + kNoExpansion);
  EXPECT_EQ(blacs_dyn::World::size(), 2);  // the world as it was
}

TEST(ResizeError, BlacsDynsCApiReportsTheCodeAndMessageRaised) {
  int leaving = -1, n = 0;
  EXPECT_EQ(blacs_dyn_retire(&leaving), BLACS_DYN_ERR_STATE);
  EXPECT_EQ(std::string(blacs_dyn_last_error()), kNoExpansion);
  EXPECT_EQ(blacs_dyn_level_size(7, &n), BLACS_DYN_ERR_ARG);
  EXPECT_EQ(std::string(blacs_dyn_last_error()), "level 7 does not exist (depth 1)");
}

TEST(ResizeError, ResizesCApiReportsTheCodeAndPart) {
  int action = -1, step = -1;
  EXPECT_EQ(resize_remap_point(nullptr, &action), RESIZE_ERR_STATE);
  EXPECT_EQ(resize_last_error_code(), MALLEABLE_ERR_STATE);
  EXPECT_EQ(resize_last_error_part(), MALLEABLE_PART_RESIZE);
  EXPECT_EQ(std::string(resize_last_error()), "resize_remap_point: session is NULL");

  char name[] = "resize_error_mpi_test";
  char* argv[] = {name, nullptr};
  resize_session* s = nullptr;
  ASSERT_EQ(resize_create(1, argv, "errors", "fixed", nullptr, &s), RESIZE_OK) << resize_last_error();
  EXPECT_EQ(resize_remap_or_restart(s, 7, &step, &action), RESIZE_ERR_ARG);
  EXPECT_EQ(resize_last_error_code(), MALLEABLE_ERR_ARG);
  EXPECT_EQ(resize_last_error_part(), MALLEABLE_PART_RESIZE);
  EXPECT_NE(std::string(resize_last_error()).find("got 7"), std::string::npos) << resize_last_error();
  resize_destroy(s);

  // A bad schedule entry: the session's own error, its code kept where the entry is named.
  EXPECT_EQ(resize_create(1, argv, "errors", "scripted", "2:expand:3x3:sideways", &s), RESIZE_ERR_ARG);
  EXPECT_EQ(resize_last_error_code(), MALLEABLE_ERR_ARG);
  EXPECT_EQ(std::string(resize_last_error()),
            "schedule entry '2:expand:3x3:sideways': placement: expected global, local1, local2 or optimal, got "
            "'sideways'");
}

// Decides a shrink onto 1x1 at every remap point; its state cannot be handed over (world
// rank 0 asks for it while planning: can the shrink respawn?).
class StateThrows : public resize::Policy {
 public:
  resize::Decision decide(const resize::PolicyInput&) override {
    resize::Decision d;
    d.action = resize::Action::Shrink;
    d.procs = 1;
    d.nprow = d.npcol = 1;
    return d;
  }
  std::optional<std::string> state() const override {
    throw resize::Error("this policy's state cannot be handed over", malleable::Errc::Inconsistent);
  }
  std::string name() const override { return "state-throws"; }
};

// A quiet session of this test's on 1x2 under `policy`, started.
std::unique_ptr<resize::Session> started_on_1x2(std::unique_ptr<resize::Policy> policy) {
  char name[] = "resize_error_mpi_test";
  char* argv[] = {name, nullptr};
  resize::SessionOptions o;
  o.app = "errors";
  o.progress = false;
  o.persist_history = false;
  o.policy = std::move(policy);
  auto s = std::make_unique<resize::Session>(1, argv, std::move(o));
  s->start(resize::Grid{1, 2, {}});
  return s;
}

// A session on 1x2 under `policy` whose shrink world rank 0 cannot carry out: at each of
// two remap points every process gets the refusal, its code and part the policy's, its
// message holding `said`, and the job stays as it was (where rank 0 threw before the
// broadcast that follows, the other process would wait there: the test would time out).
void refused_on_every_process(std::unique_ptr<resize::Policy> policy, const std::string& said) {
  const auto session = started_on_1x2(std::move(policy));
  resize::Session& s = *session;
  for (int k = 0; k < 2; ++k) {
    s.begin_iteration();
    s.end_iteration();
    const resize::RemapResult r = s.remap_point();
    EXPECT_FALSE(r.ok);
    EXPECT_EQ(r.action, resize::Action::Shrink);
    EXPECT_EQ(r.code, malleable::Errc::Inconsistent);
    EXPECT_EQ(r.part, malleable::Part::Resize);
    EXPECT_NE(r.message.find(said), std::string::npos) << r.message;
    EXPECT_EQ(s.grid().nprow * s.grid().npcol, 2);
    EXPECT_EQ(s.world_size(), 2);
  }
}

TEST(ResizeError, WhatRankZerosPlanningRaisesRefusesOnEveryProcess) {
  refused_on_every_process(std::make_unique<StateThrows>(), "this policy's state cannot be handed over");
}

// Decides a shrink onto 1x1 at every remap point; its state can be handed over when world
// rank 0 plans (the shrink may respawn), but not when world rank 0 reads its carry for the
// new rank 0, after the plan's broadcast and before the respawn's spawn.
class StateThrowsForTheCarry : public StateThrows {
 public:
  std::optional<std::string> state() const override {
    if (++calls_ % 2 == 1) return std::string("planned");
    throw resize::Error("this policy's state cannot be carried", malleable::Errc::Inconsistent);
  }

 private:
  mutable int calls_ = 0;
};

TEST(ResizeError, WhatReadingRankZerosCarryRaisesRefusesTheRespawnOnEveryProcess) {
  setenv("RESIZE_RECONFIGURE", "respawn", 1);  // read when the session is made
  refused_on_every_process(std::make_unique<StateThrowsForTheCarry>(), "new rank 0: this policy's state cannot be carried");
  unsetenv("RESIZE_RECONFIGURE");
}

// Regrids 1x2 onto 2x1 at every remap point, and raises when told how it ended.
class CompletedThrows : public resize::Policy {
 public:
  resize::Decision decide(const resize::PolicyInput& in) override {
    resize::Decision d;
    d.action = resize::Action::Regrid;
    d.procs = 2;
    d.nprow = in.grid.npcol;
    d.npcol = in.grid.nprow;
    return d;
  }
  void completed(const resize::Decision&, int, bool) override {
    throw resize::Error("this policy's books cannot be kept", malleable::Errc::Internal);
  }
  std::string name() const override { return "completed-throws"; }
};

TEST(ResizeError, WhatThePolicyRaisesInCompletedLeavesTheResizeStanding) {
  const auto session = started_on_1x2(std::make_unique<CompletedThrows>());
  resize::Session& s = *session;
  for (int k = 0; k < 2; ++k) {
    s.begin_iteration();
    s.end_iteration();
    // World rank 0 tells the policy; where its exception left rank 0's remap point, the
    // other process would go on alone into the collective below.
    const resize::RemapResult r = s.remap_point();
    EXPECT_TRUE(r.ok) << r.message;
    EXPECT_EQ(r.action, resize::Action::Regrid);
    EXPECT_EQ(s.grid().nprow, k == 0 ? 2 : 1);
    int ok = r.ok ? 1 : 0, all = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_SUM, s.world());
    EXPECT_EQ(all, 2);
  }
}

TEST(ResizeError, ResizeRemapPointsStatusAndTheRefusalsCode) {
  // The schedule asks to "expand" 1x2 onto 1x1: the planner refuses it by its rules (a bad
  // decision: MALLEABLE_ERR_ARG of resize), resize_remap_point returns RESIZE_ERR_RESIZE.
  char name[] = "resize_error_mpi_test";
  char* argv[] = {name, nullptr};
  resize_session* s = nullptr;
  ASSERT_EQ(resize_create(1, argv, "errors", "scripted", "1:expand:1x1", &s), RESIZE_OK) << resize_last_error();
  ASSERT_EQ(resize_start(s, 1, 2), RESIZE_OK) << resize_last_error();
  int action = -1;
  resize_begin_iteration(s);
  resize_end_iteration(s);
  EXPECT_EQ(resize_remap_point(s, &action), RESIZE_ERR_RESIZE);
  EXPECT_EQ(action, RESIZE_EXPAND);
  EXPECT_EQ(resize_last_error_code(), MALLEABLE_ERR_ARG) << resize_last_error();
  EXPECT_EQ(resize_last_error_part(), MALLEABLE_PART_RESIZE);
  EXPECT_NE(std::string(resize_last_error()).find("the grid already has 2"), std::string::npos) << resize_last_error();
  resize_destroy(s);
}

}  // namespace
