// SPDX-License-Identifier: BSD-3-Clause
// Merge or respawn (resize/src/policy/reconfigure.hpp) and the rank-0 carry a respawn
// hands from the old world rank 0 to the new one (RankZeroCarry, parts/handover.hpp):
// the setting, the model's choice, its pieces (mixed pairs, kept share, spawn and move
// prices, the respawn's layout) and the carry's round trip and refusals. Pure, no MPI.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "malleable_internal/wire.hpp"
#include "parts/handover.hpp"
#include "policy/reconfigure.hpp"

#include "core_test_util.hpp"

namespace {

using resize::Action;
using resize::Grid;
using resize::ResizeEvent;
using namespace resize::detail;

using resize_test::refusal;

// A job grown 2x2 -> 3x3 on one node by merge: 4 of one launch, 5 of another.
ReconfigureInput grown_on_one_node(int remaining) {
  ReconfigureInput in;
  in.remaining = remaining;
  in.iteration_s = 0.5;
  in.comm_share = 0.4;
  const std::vector<int> launch = {0, 0, 0, 0, 1, 1, 1, 1, 1};
  in.mixed_merge = mixed_pair_fraction(launch, std::vector<std::string>(9, "n1"));
  in.mixed_respawn = 0;
  in.extra_spawn_s = spawn_seconds({}, 9) - spawn_seconds({}, 5);
  in.extra_move_s = move_seconds({}, 2 * 8.0 * 1000 * 1000 * kept_share(Grid{2, 2, {}}, Grid{3, 3, {}}));
  return in;
}

}  // namespace

TEST(Reconfigure, TheSettingIsParsedAndAnythingElseRefused) {
  EXPECT_EQ(parse_reconfigure(std::nullopt), Reconfigure::Auto);
  EXPECT_EQ(parse_reconfigure(std::string()), Reconfigure::Auto);
  EXPECT_EQ(parse_reconfigure(std::string("auto")), Reconfigure::Auto);
  EXPECT_EQ(parse_reconfigure(std::string("merge")), Reconfigure::Merge);
  EXPECT_EQ(parse_reconfigure(std::string("respawn")), Reconfigure::Respawn);
  for (const char* bad : {"Respawn", "respawn ", "1", "merge,respawn"})
    EXPECT_EQ(refusal([&] { parse_reconfigure(std::string(bad)); }),
              std::string("RESIZE_RECONFIGURE must be auto, merge or respawn, got '") + bad + "'");
}

TEST(Reconfigure, MixedPairsCountOnlyPairsOfOneNode) {
  // 4 + 5 on one node: 36 pairs, 6 + 10 of one launch.
  EXPECT_DOUBLE_EQ(mixed_pair_fraction({0, 0, 0, 0, 1, 1, 1, 1, 1}, std::vector<std::string>(9, "n")), 20.0 / 36);
  // One launch per node: nothing mixed, however many nodes.
  EXPECT_DOUBLE_EQ(mixed_pair_fraction({0, 0, 1, 1}, {"a", "a", "b", "b"}), 0.0);
  // Pairs across nodes do not count: two launches, each alone on its node.
  EXPECT_DOUBLE_EQ(mixed_pair_fraction({0, 1}, {"a", "b"}), 0.0);
  EXPECT_DOUBLE_EQ(mixed_pair_fraction({}, {}), 0.0);
  EXPECT_NE(refusal([] { mixed_pair_fraction({0}, {}); }), "");
}

TEST(Reconfigure, KeptShareFollowsTheBlockCyclicOwners) {
  EXPECT_DOUBLE_EQ(kept_share(Grid{2, 2, {}}, Grid{3, 3, {}}), 4.0 / 36);
  EXPECT_DOUBLE_EQ(kept_share(Grid{3, 3, {}}, Grid{2, 2, {}}), 4.0 / 36);
  EXPECT_DOUBLE_EQ(kept_share(Grid{2, 2, {}}, Grid{2, 4, {}}), 0.5);
  EXPECT_DOUBLE_EQ(kept_share(Grid{2, 2, {}}, Grid{2, 2, {}}), 1.0);
}

TEST(Reconfigure, SpawnAndMovePricesComeFromTheHistory) {
  EXPECT_DOUBLE_EQ(spawn_seconds({}, 10), 10 * kDefaultSpawnPerProcess);
  EXPECT_DOUBLE_EQ(move_seconds({}, 1e9), 1e9 / kDefaultMoveBytesPerSecond);
  std::vector<ResizeEvent> h(3);
  h[0] = {Action::Expand, 4, 9, 0, 1.0, 0.5, 0.1, 1e8};   // 0.2 s a process, 2e8 B/s
  h[1] = {Action::Expand, 4, 6, 0, 0.6, 0.25, 0.1, 1e8};  // 0.3 s a process, 4e8 B/s
  h[2] = {Action::Shrink, 9, 4, 0, 0.05, 0.5, 0.1, 1e8};  // an exit: no spawn
  h[2].respawn = false;
  EXPECT_DOUBLE_EQ(spawn_seconds(h, 4), 4 * 0.25);  // median of 0.2, 0.3
  EXPECT_DOUBLE_EQ(move_seconds(h, 2e8), 2e8 / 2e8);  // median of 2e8, 4e8, 2e8
  ResizeEvent r{Action::Shrink, 9, 4, 0, 2.0, 0.5, 0.1, 1e8};
  r.respawn = true;  // a respawn spawned its 4 processes: 0.5 s each
  h.push_back(r);
  EXPECT_DOUBLE_EQ(spawn_seconds(h, 1), 0.3);  // median of 0.2, 0.3, 0.5
}

// The choice the issue asks for: respawn when the remaining iterations make one launch per
// node pay, merge when they do not.
TEST(Reconfigure, AutoRespawnsWhenTheRemainingIterationsPayAndMergesWhenNot) {
  const ReconfigureInput few = grown_on_one_node(2);
  const ReconfigureChoice c1 = choose_reconfiguration(few);
  EXPECT_FALSE(c1.respawn) << c1.why;
  EXPECT_LT(c1.gain_s, c1.cost_s);
  EXPECT_EQ(c1.why.rfind("merge (auto: one launch per node saves", 0), 0u) << c1.why;
  const ReconfigureInput many = grown_on_one_node(1000);
  const ReconfigureChoice c2 = choose_reconfiguration(many);
  EXPECT_TRUE(c2.respawn) << c2.why;
  EXPECT_GT(c2.gain_s, c2.cost_s);
  EXPECT_EQ(c2.why.rfind("respawn (auto:", 0), 0u) << c2.why;
  EXPECT_NE(c2.why.find("over 1000 iterations"), std::string::npos) << c2.why;
  // The break-even: gain = remaining * 0.5 s * 0.4 * mixed * (factor - 1) against the cost.
  const double per = 0.5 * 0.4 * many.mixed_merge * (kMixedPairFactor - 1);
  const int even = static_cast<int>(c2.cost_s / per);
  EXPECT_FALSE(choose_reconfiguration(grown_on_one_node(even)).respawn);
  EXPECT_TRUE(choose_reconfiguration(grown_on_one_node(even + 2)).respawn);
}

TEST(Reconfigure, NothingMixedOrNothingKnownMerges) {
  ReconfigureInput in = grown_on_one_node(1000000);
  in.mixed_merge = 0;  // a job of one launch per node already: no gain
  EXPECT_FALSE(choose_reconfiguration(in).respawn);
  in = grown_on_one_node(-1);
  const ReconfigureChoice c = choose_reconfiguration(in);
  EXPECT_FALSE(c.respawn);
  EXPECT_EQ(c.why, "merge (auto: the remaining iterations are not known)");
  in = grown_on_one_node(1000);
  in.comm_share = -1;  // not measured: the assumed share, said
  const ReconfigureChoice d = choose_reconfiguration(in);
  EXPECT_NE(d.why.find("communication 25% assumed"), std::string::npos) << d.why;
}

TEST(Reconfigure, TheSettingOverridesAndABlockedRespawnIsAMergeSaid) {
  ReconfigureInput in = grown_on_one_node(1000);
  in.setting = Reconfigure::Merge;
  EXPECT_FALSE(choose_reconfiguration(in).respawn);
  EXPECT_EQ(choose_reconfiguration(in).why, "merge (RESIZE_RECONFIGURE=merge)");
  in = grown_on_one_node(0);
  in.setting = Reconfigure::Respawn;
  EXPECT_TRUE(choose_reconfiguration(in).respawn);
  EXPECT_EQ(choose_reconfiguration(in).why, "respawn (RESIZE_RECONFIGURE=respawn)");
  in.blocked = "the job grows by joining";
  EXPECT_FALSE(choose_reconfiguration(in).respawn);
  EXPECT_EQ(choose_reconfiguration(in).why, "merge (RESIZE_RECONFIGURE=respawn, but the job grows by joining)");
  in.setting = Reconfigure::Auto;
  in.remaining = 1000000;
  EXPECT_EQ(choose_reconfiguration(in).why, "merge (the job grows by joining)");
  in.blocked.clear();
  in.iteration_s = std::nan("");
  EXPECT_NE(refusal([&] { choose_reconfiguration(in); }).find("iteration_s"), std::string::npos);
}

TEST(Reconfigure, ARespawnPutsOneLaunchOnEachNode) {
  // One node (or not known): one spawn, row-major.
  const RespawnLayout one = respawn_layout(Grid{3, 3, {4, 0, 5, 1, 6, 2, 7, 3, 8}}, std::vector<std::string>(9, "n1"));
  EXPECT_TRUE(one.groups.empty());
  EXPECT_EQ(one.grid.rank_map(), (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7, 8}));
  EXPECT_TRUE(respawn_layout(Grid{1, 2, {}}, {"n1", ""}).groups.empty());
  // Two nodes: a group each, in the order of their first positions; a position's rank
  // is one of its node's group.
  const RespawnLayout two = respawn_layout(Grid{2, 3, {}}, {"b", "a", "b", "a", "b", "a"});
  ASSERT_EQ(two.groups.size(), 2u);
  EXPECT_EQ(two.groups[0], (std::pair<std::string, int>{"b", 3}));
  EXPECT_EQ(two.groups[1], (std::pair<std::string, int>{"a", 3}));
  EXPECT_EQ(two.grid.rank_map(), (std::vector<int>{0, 3, 1, 4, 2, 5}));
  EXPECT_EQ(shifted(two.grid, 6).rank_map(), (std::vector<int>{6, 9, 7, 10, 8, 11}));
  EXPECT_NE(refusal([] { respawn_layout(Grid{1, 2, {}}, {"a"}); }), "");
}

// A respawn onto as many processes as the node has cores busy-polls (Open MPI would see
// the spawn oversubscribed and yield); more processes, several nodes or the user's own
// setting leave Open MPI's choice alone.
TEST(Reconfigure, ARespawnThatFitsTheCoresPollsWithoutYielding) {
  const RespawnLayout one = respawn_layout(Grid{1, 2, {}}, {"n1", "n1"});
  EXPECT_EQ(respawn_spawn_env(one, 2, false), "OMPI_MCA_mpi_yield_when_idle=0");
  EXPECT_EQ(respawn_spawn_env(one, 16, false), "OMPI_MCA_mpi_yield_when_idle=0");
  EXPECT_EQ(respawn_spawn_env(one, 1, false), "");
  EXPECT_EQ(respawn_spawn_env(one, 2, true), "");
  EXPECT_EQ(respawn_spawn_env(respawn_layout(Grid{1, 2, {}}, {"a", "b"}), 16, false), "");
}

// A merge's newcomers: the respawn's rule over the grown grid (the originals counted): on
// one node (or placed by the launcher) with no more processes than cores they poll without
// yielding; a grid beyond the cores, over two nodes, or the user's own setting: Open MPI's choice.
TEST(Reconfigure, AMergeThatFitsTheCoresPollsWithoutYielding) {
  const std::string off = "OMPI_MCA_mpi_yield_when_idle=0";
  EXPECT_EQ(merge_spawn_env(Grid{1, 2, {}}, {"n1", "n1"}, 2, false), off);
  EXPECT_EQ(merge_spawn_env(Grid{4, 4, {}}, std::vector<std::string>(16, "n1"), 16, false), off);
  EXPECT_EQ(merge_spawn_env(Grid{1, 3, {}}, {"n1", "", ""}, 4, false), off);  // newcomers placed by the launcher
  EXPECT_EQ(merge_spawn_env(Grid{1, 3, {}}, {"n1", "n1", "n1"}, 2, false), "");  // 3 processes on 2 cores
  EXPECT_EQ(merge_spawn_env(Grid{4, 4, {}}, std::vector<std::string>(16, "n1"), 15, false), "");
  EXPECT_EQ(merge_spawn_env(Grid{1, 2, {}}, {"n1", "n2"}, 16, false), "");  // two nodes
  EXPECT_EQ(merge_spawn_env(Grid{1, 2, {}}, {"n1", "n1"}, 2, true), "");   // OMPI_MCA_mpi_yield_when_idle set
  EXPECT_NE(refusal([] { merge_spawn_env(Grid{1, 2, {}}, {"n1"}, 2, false); }), "");
}

TEST(RankZeroCarry, EveryFieldSurvivesTheRoundTrip) {
  RankZeroCarry c;
  c.iterations = {{1, 4, "2x2", 0.5, 0.4, 0.3}, {2, 9, "3x3", 0.25, 0.2, 0}};
  c.rank_samples = {{2, {1, 2}, {0.1, 0.2}, {1, 0.5}}};
  resize::ResizeRecord r = resize_test::resize_record(4, Action::Expand, "2x2", "3x3");
  r.from_procs = 4;
  r.to_procs = 9;
  r.placement = resize::Placement::Optimal;
  r.ok = false;
  r.message = "m";
  r.mechanism = "respawn";
  r.t_spawn = 1.5;
  r.t_redist = 0.25;
  r.t_other = 0.125;
  r.t_total = 2;
  r.predicted.t_spawn = 1;
  r.predicted.redist_by = resize::PredictedBy::History;
  r.predicted.clock = resize::Clock::Compute;
  r.predicted.reasoning = "why";
  r.bytes_moved = 123;
  r.move.bytes_total = 456;
  r.move.batches = 2;
  r.move.phases.exchange_s = 0.5;
  r.other.handover_s = 0.01;
  r.hosts = {{"n2", 4}};
  r.rank_hosts = resize::RankHosts::of({"a", "a", "b"});
  r.background = resize::BackgroundPhase{};
  r.background->t_overlapped = 3;
  r.background->bytes = 7;
  r.reconfigure = "respawn";
  r.reconfigure_why = "respawn (RESIZE_RECONFIGURE=respawn)";
  c.resizes = {r, resize::ResizeRecord{}};
  c.history_json = "{}";
  c.history_path = "/h.json";
  c.history_program = "p-1";
  c.cost_model = true;
  c.cost_params = {1, 2, 3};
  c.checkpoints = {{4, 0.5, "interval", -1, "f.h5"}};
  c.levels = {{4, true, 0.25, 10, 20, "rule", 3}};
  c.clocks.checkpoint_age_s = 1;
  c.clocks.level_partner_cost_s = 2;
  c.first_remap_iteration = 2;
  c.app.problem = "N=4";
  c.app.has_check = true;
  c.app.check_ok = false;
  c.app.check_message = "bad";
  c.has_policy_state = true;
  c.policy_state = "0110";
  c.decision = {'x', 'y'};
  c.record = r;
  c.elapsed_s = 2.5;
  const RankZeroCarry d = unpack_carry(pack(c));
  ASSERT_EQ(d.iterations.size(), 2u);
  EXPECT_EQ(d.iterations[1].grid, "3x3");
  EXPECT_EQ(d.iterations[0].compute, 0.3);
  EXPECT_EQ(d.rank_samples[0].powers, (std::vector<double>{1, 0.5}));
  ASSERT_EQ(d.resizes.size(), 2u);
  EXPECT_FALSE(d.resizes[1].background.has_value());
  const auto& e = d.record;
  EXPECT_EQ(e.after_iteration, 4);
  EXPECT_EQ(e.action, Action::Expand);
  EXPECT_EQ(e.placement, resize::Placement::Optimal);
  EXPECT_FALSE(e.ok);
  EXPECT_EQ(e.mechanism, "respawn");
  EXPECT_EQ(e.t_total, 2);
  EXPECT_EQ(e.predicted.redist_by, resize::PredictedBy::History);
  EXPECT_EQ(e.predicted.clock, resize::Clock::Compute);
  EXPECT_EQ(e.predicted.reasoning, "why");
  EXPECT_EQ(e.move.phases.exchange_s, 0.5);
  EXPECT_EQ(e.other.handover_s, 0.01);
  EXPECT_EQ(e.hosts, r.hosts);
  EXPECT_EQ(e.rank_hosts.expand(), (std::vector<std::string>{"a", "a", "b"}));
  ASSERT_TRUE(e.background.has_value());
  EXPECT_EQ(e.background->t_overlapped, 3);
  EXPECT_EQ(e.background->bytes, 7);
  EXPECT_EQ(e.reconfigure_why, r.reconfigure_why);
  EXPECT_EQ(d.history_path, "/h.json");
  EXPECT_EQ(d.cost_params, (std::vector<double>{1, 2, 3}));
  EXPECT_EQ(d.checkpoints[0].file, "f.h5");
  EXPECT_EQ(d.levels[0].files, 3);
  EXPECT_EQ(d.clocks.checkpoint_age_s, 1);
  EXPECT_EQ(d.clocks.level_partner_cost_s, 2);
  EXPECT_EQ(d.first_remap_iteration, 2);
  EXPECT_FALSE(d.app.check_ok);
  EXPECT_EQ(d.policy_state, "0110");
  EXPECT_EQ(d.decision, (std::vector<char>{'x', 'y'}));
  EXPECT_EQ(d.elapsed_s, 2.5);
}

TEST(RankZeroCarry, AnotherVersionAndEveryTruncationAreRefused) {
  RankZeroCarry c;
  c.iterations = {{1, 4, "2x2", 0.5, 0.4, 0.3}};
  c.record.background = resize::BackgroundPhase{};
  auto bytes = pack(c);
  for (std::size_t n = 0; n < bytes.size(); ++n) {
    const std::vector<char> cut(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(n));
    EXPECT_NE(refusal([&] { unpack_carry(cut); }), "") << n;
  }
  bytes[4] = static_cast<char>(RankZeroCarry::kVersion + 1);
  EXPECT_NE(refusal([&] { unpack_carry(bytes); }).find("rank-0 carry: version"), std::string::npos);
  // A policy's state: the scripted policy's entries, refused when it does not fit.
  resize::ScriptedPolicy p(resize::parse_schedule("2:expand:3x3,4:shrink:2x2"));
  EXPECT_EQ(*p.state(), "00");
  p.restore("10");
  EXPECT_EQ(p.not_run().size(), 1u);
  EXPECT_NE(refusal([&] { p.restore("1"); }), "");
}
