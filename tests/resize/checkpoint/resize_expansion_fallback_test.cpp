// SPDX-License-Identifier: BSD-3-Clause
// The expansion fallback's pure part (checkpoint/fallback/fallback.hpp): a spawn's deadline
// from the session's own spawn times, its settings, and the message that names the
// checkpoint to restart from.
#include "checkpoint/fallback/fallback.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core_test_util.hpp"
#include "malleable/resize/types.hpp"

using resize::Action;
using resize::ResizeEvent;
using resize::detail::DeadlineRule;
using resize::detail::describe;
using resize::detail::spawn_deadline;

namespace {
ResizeEvent spawn(int from, int to, double seconds, Action a = Action::Expand) {
  return resize_test::resize_event(a, from, to, seconds);
}
}  // namespace

TEST(SpawnDeadline, NoSpawnYetGivesTheFloor) {
  const DeadlineRule rule;  // 60 s, x4, at most 150 s
  const auto d = spawn_deadline({}, 5, rule);
  EXPECT_DOUBLE_EQ(d.seconds, 60);
  EXPECT_EQ(d.samples, 0);
  EXPECT_EQ(describe(d, rule), "spawn deadline 60.0 s (the floor: no spawn in the history yet)");
  // shrinks and regrids are no spawns
  const auto s = spawn_deadline({spawn(9, 4, 50, Action::Shrink), spawn(4, 4, 50, Action::Regrid)}, 5, rule);
  EXPECT_EQ(s.samples, 0);
  EXPECT_DOUBLE_EQ(s.seconds, 60);
}

TEST(SpawnDeadline, FactorTimesTheSlowestSpawnAboveTheFloor) {
  const DeadlineRule rule{5, 4, 150};
  // 1.1 s and 2.5 s for 5 newcomers each: the slowest, times 4
  const auto d = spawn_deadline({spawn(4, 9, 1.1), spawn(4, 9, 2.5)}, 5, rule);
  EXPECT_DOUBLE_EQ(d.expected, 2.5);
  EXPECT_DOUBLE_EQ(d.seconds, 10.0);
  EXPECT_EQ(d.samples, 2);
  EXPECT_FALSE(d.floored);
  EXPECT_EQ(describe(d, rule), "spawn deadline 10.0 s (4 x the slowest of 2 spawns: 2.50 s)");
  // below the floor: the floor
  const auto f = spawn_deadline({spawn(4, 9, 0.5)}, 5, rule);
  EXPECT_DOUBLE_EQ(f.seconds, 5.0);
  EXPECT_TRUE(f.floored);
  EXPECT_EQ(describe(f, rule), "spawn deadline 5.0 s (the floor; 4 x the slowest of 1 spawn: 0.50 s)");
}

TEST(SpawnDeadline, MoreNewcomersThanSeenScaleUpNeverDown) {
  const DeadlineRule rule{1, 3, 1000};
  // 2 s for 1 newcomer: 8 newcomers expect 16 s; 2 s for 10: 1 newcomer still expects 2 s
  EXPECT_DOUBLE_EQ(spawn_deadline({spawn(4, 5, 2.0)}, 8, rule).seconds, 48.0);
  EXPECT_DOUBLE_EQ(spawn_deadline({spawn(2, 12, 2.0)}, 1, rule).seconds, 6.0);
}

TEST(SpawnDeadline, TheCapBoundsIt) {
  const DeadlineRule rule{30, 4, 150};
  const auto d = spawn_deadline({spawn(4, 9, 60)}, 5, rule);
  EXPECT_DOUBLE_EQ(d.seconds, 150);
  EXPECT_TRUE(d.capped);
  EXPECT_NE(describe(d, rule).find("the cap; "), std::string::npos);
}

TEST(SpawnDeadline, OnlyTheNewestSamplesCount) {
  const DeadlineRule rule{1, 2, 1000};
  std::vector<ResizeEvent> h{spawn(4, 9, 100)};  // an old slow spawn, then 20 fast ones
  for (std::size_t k = 0; k < resize::detail::kMaxSamples; ++k) h.push_back(spawn(4, 9, 1.0));
  const auto d = spawn_deadline(h, 5, rule);
  EXPECT_DOUBLE_EQ(d.seconds, 2.0);
  EXPECT_EQ(d.samples, static_cast<int>(resize::detail::kMaxSamples));
  // invalid times are skipped, not counted
  EXPECT_EQ(spawn_deadline({spawn(4, 9, 0), spawn(4, 9, -1)}, 5, rule).samples, 0);
}

TEST(SpawnDeadline, RuleFromTheEnvironmentText) {
  using resize::detail::parse_deadline_rule;
  const auto def = parse_deadline_rule(std::nullopt);
  EXPECT_DOUBLE_EQ(def.floor, 60);
  EXPECT_DOUBLE_EQ(def.factor, 4);
  EXPECT_DOUBLE_EQ(def.cap, 150);
  EXPECT_DOUBLE_EQ(parse_deadline_rule(std::string("")).floor, 60);
  const auto r = parse_deadline_rule(std::string("8:3:60"));
  EXPECT_DOUBLE_EQ(r.floor, 8);
  EXPECT_DOUBLE_EQ(r.factor, 3);
  EXPECT_DOUBLE_EQ(r.cap, 60);
  EXPECT_DOUBLE_EQ(parse_deadline_rule(std::string("12")).factor, 4);
  for (const char* bad : {"x", "0", "-5", "10:0.5", "10:4:5", "1:2:3:4", "10:", "nan", "inf"}) {
    try {
      parse_deadline_rule(std::string(bad));
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const resize::Error& e) {
      EXPECT_NE(std::string(e.what()).find("RESIZE_SPAWN_DEADLINE"), std::string::npos);
      EXPECT_NE(std::string(e.what()).find(std::string("'") + bad + "'"), std::string::npos) << e.what();
    }
  }
}

TEST(SpawnDeadline, FallbackOnUnlessOff) {
  using resize::detail::parse_fallback_enabled;
  EXPECT_TRUE(parse_fallback_enabled(std::nullopt));
  EXPECT_TRUE(parse_fallback_enabled(std::string("")));
  EXPECT_TRUE(parse_fallback_enabled(std::string("on")));
  EXPECT_FALSE(parse_fallback_enabled(std::string("off")));
  EXPECT_FALSE(parse_fallback_enabled(std::string("0")));
  EXPECT_THROW(parse_fallback_enabled(std::string("maybe")), resize::Error);
}

TEST(SpawnDeadline, TheMessageNamesTheCheckpointAndTheTarget) {
  const std::string m = resize::detail::expired_message("pdgemm", 2, "spawn deadline 30.0 s (the floor)", "2x2", 3, 3,
                                                        "ck/pdgemm-000002.h5", "ck/pdgemm.next");
  EXPECT_NE(m.find("after iteration 2 (2x2 -> 3x3)"), std::string::npos) << m;
  EXPECT_NE(m.find("spawn deadline 30.0 s"), std::string::npos) << m;
  EXPECT_NE(m.find("status 4"), std::string::npos) << m;
  EXPECT_NE(m.find("on 9 processes from ck/pdgemm.next"), std::string::npos) << m;
  EXPECT_NE(m.find("-g 3x3 --restart ck/pdgemm-000002.h5"), std::string::npos) << m;
  EXPECT_NE(m.find("the expansion by spawn after iteration 2"), std::string::npos) << m;
}

// A shrink by respawn spawns its whole grid: its fallback names the shrink and its target.
TEST(SpawnDeadline, TheMessageNamesAShrinkByRespawn) {
  const std::string m = resize::detail::expired_message("life", 3, "spawn deadline 5.0 s", "3x2", 2, 2,
                                                        "ck/life-000003.h5", "ck/life.next", "shrink by respawn");
  EXPECT_NE(m.find("[life] the shrink by respawn after iteration 3 (3x2 -> 2x2) did not complete"), std::string::npos) << m;
  EXPECT_NE(m.find("on 4 processes from ck/life.next"), std::string::npos) << m;
  EXPECT_EQ(m.find("expansion"), std::string::npos) << m;
}

// The level that secures the state before a spawn: the local one (node memory) where the
// session keeps levels and the relaunch runs on every node of the job again; else global.
TEST(FallbackLevel, LocalWhereLevelsAndTheNodesStay) {
  using resize::detail::fallback_level;
  using resize::detail::FallbackLevel;
  const std::vector<std::string> now{"n1", "n1", "n2", "n2"};
  EXPECT_EQ(fallback_level(false, now, {}), FallbackLevel::Global);
  EXPECT_EQ(fallback_level(false, now, {"n1", "n2", "n3"}), FallbackLevel::Global);
  EXPECT_EQ(fallback_level(true, now, {}), FallbackLevel::Local);  // the launcher's hosts: the same
  EXPECT_EQ(fallback_level(true, now, {"n1", "n2", "n3"}), FallbackLevel::Local);
  EXPECT_EQ(fallback_level(true, now, {"n2", "n3"}), FallbackLevel::Global);  // n1's copies would be left behind
  EXPECT_STREQ(resize::detail::fallback_level_name(FallbackLevel::Local), "local");
  EXPECT_STREQ(resize::detail::fallback_level_name(FallbackLevel::Global), "global");
}

TEST(FallbackLevel, TheLevelsCheckpointIsRestartedWithRestartLevels) {
  using namespace resize::detail;
  EXPECT_EQ(restart_option("ck/a-000002.h5"), "--restart ck/a-000002.h5");
  EXPECT_EQ(restart_option(kLevelsCheckpoint), "--restart-levels");
  EXPECT_EQ(checkpoint_text("ck/a-000002.h5"), "ck/a-000002.h5");
  EXPECT_EQ(checkpoint_text(kLevelsCheckpoint), "the local checkpoint level (node memory)");
  const std::string m = expired_message("pdgemm", 2, "spawn deadline 5.0 s", "2x2", 3, 3, kLevelsCheckpoint, "ck/pdgemm.next");
  EXPECT_NE(m.find("-g 3x3 --restart-levels"), std::string::npos) << m;
}
