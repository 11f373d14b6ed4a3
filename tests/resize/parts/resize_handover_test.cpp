// SPDX-License-Identifier: BSD-3-Clause
// The typed hand-over (resize/src/parts/handover.hpp): the state an expansion hands
// its newcomers and the broadcast Decision, packed and unpacked by pure code. Random states
// survive the round trip field for field; another version, another kind of buffer, a
// truncated or overlong buffer and impossible counts are refused with an Error naming
// what differs, never read as a wrong field.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "malleable_internal/wire.hpp"
#include "parts/handover.hpp"

#include "core_test_util.hpp"

namespace {

using resize::Action;
using resize::Decision;
using resize::Grid;
using resize::Placement;
using resize::detail::ExpansionState;

Grid random_grid(std::mt19937& g) {
  std::uniform_int_distribution<int> side(1, 5);
  Grid out{side(g), side(g), {}};
  out.ranks = out.rank_map();
  std::shuffle(out.ranks.begin(), out.ranks.end(), g);
  return out;
}

std::vector<double> random_doubles(std::mt19937& g, int max) {
  std::uniform_int_distribution<int> n(0, max);
  std::uniform_real_distribution<double> v(-1e6, 1e6);
  std::vector<double> out(static_cast<std::size_t>(n(g)));
  for (double& x : out) x = v(g);
  return out;
}

std::string random_text(std::mt19937& g, int max) {
  std::uniform_int_distribution<int> n(0, max), c(0, 255);
  std::string s(static_cast<std::size_t>(n(g)), '\0');
  for (char& ch : s) ch = static_cast<char>(c(g));  // any byte, NUL included
  return s;
}

ExpansionState random_state(std::mt19937& g) {
  std::uniform_int_distribution<int> small(0, 1000), type(0, 3), mode(0, 2), coin(0, 1), nm(0, 6);
  ExpansionState s;
  s.iteration = small(g);
  s.mover = coin(g) ? resize::Mover::Pdgemr2d : resize::Mover::Redist;
  s.from = random_grid(g);
  s.to = random_grid(g);
  s.mats.resize(static_cast<std::size_t>(nm(g)));
  for (auto& m : s.mats)
    m = {small(g), small(g), small(g) + 1, small(g) + 1, static_cast<resize::detail::Scalar>(type(g)), coin(g) != 0};
  const std::string app = random_text(g, 300);
  s.app.assign(app.begin(), app.end());
  s.powers_before = random_doubles(g, 9);
  s.powers = random_doubles(g, 9);
  s.background_mode = static_cast<resize::Background>(mode(g));
  s.background_min_iterations = small(g);
  s.background = coin(g) != 0;
  s.move_budget = std::int64_t{small(g)} << 20;
  for (auto* c : {&s.global, &s.levels})
    if ((c->set = coin(g) != 0)) *c = {true, random_text(g, 40), random_text(g, 8), random_text(g, 8), 1.5 * small(g), 0.25 * small(g), small(g)};
  s.respawn_from = coin(g) ? small(g) : 0;
  return s;
}

void expect_same(const ExpansionState& a, const ExpansionState& b) {
  EXPECT_EQ(a.iteration, b.iteration);
  EXPECT_EQ(a.mover, b.mover);
  EXPECT_EQ(a.from, b.from);
  EXPECT_EQ(a.to, b.to);
  EXPECT_EQ(a.mats, b.mats);
  EXPECT_EQ(a.app, b.app);
  EXPECT_EQ(a.powers_before, b.powers_before);
  EXPECT_EQ(a.powers, b.powers);
  EXPECT_EQ(a.background_mode, b.background_mode);
  EXPECT_EQ(a.move_budget, b.move_budget);
  EXPECT_EQ(a.background_min_iterations, b.background_min_iterations);
  EXPECT_EQ(a.background, b.background);
  EXPECT_EQ(a.global, b.global);
  EXPECT_EQ(a.levels, b.levels);
  EXPECT_EQ(a.respawn_from, b.respawn_from);
  EXPECT_EQ(a.check_reach, b.check_reach);
  EXPECT_EQ(a.reach_decided, b.reach_decided);
  EXPECT_EQ(a.reach_factor, b.reach_factor);
}

Decision random_decision(std::mt19937& g) {
  std::uniform_int_distribution<int> act(0, 3), place(0, 4), small(0, 64), nh(0, 3);
  std::uniform_real_distribution<double> t(-1, 10);
  Decision d;
  d.action = static_cast<Action>(act(g));
  d.procs = small(g);
  d.nprow = small(g);
  d.npcol = small(g);
  d.placement = static_cast<Placement>(place(g));
  d.schema = random_text(g, 40);
  for (int k = small(g) % 10; k > 0; --k) d.ranks.push_back(small(g));
  d.hosts.resize(static_cast<std::size_t>(nh(g)));
  for (auto& h : d.hosts) h = {random_text(g, 20), small(g)};
  d.powers = random_doubles(g, 12);
  d.predicted_iteration = t(g);
  d.predicted_resize = t(g);
  d.measured_iteration = t(g);
  d.prediction_clock = random_text(g, 10);
  d.prediction = random_text(g, 80);
  d.reason = random_text(g, 80);
  d.new_allocation = g() % 2 == 0;
  d.by_restart = g() % 2 == 0;
  return d;
}

void expect_same(const Decision& a, const Decision& b) {
  EXPECT_EQ(a.action, b.action);
  EXPECT_EQ(a.procs, b.procs);
  EXPECT_EQ(a.nprow, b.nprow);
  EXPECT_EQ(a.npcol, b.npcol);
  EXPECT_EQ(a.placement, b.placement);
  EXPECT_EQ(a.schema, b.schema);
  EXPECT_EQ(a.ranks, b.ranks);
  EXPECT_EQ(a.hosts, b.hosts);
  EXPECT_EQ(a.powers, b.powers);
  EXPECT_EQ(a.predicted_iteration, b.predicted_iteration);
  EXPECT_EQ(a.predicted_resize, b.predicted_resize);
  EXPECT_EQ(a.measured_iteration, b.measured_iteration);
  EXPECT_EQ(a.prediction_clock, b.prediction_clock);
  EXPECT_EQ(a.prediction, b.prediction);
  EXPECT_EQ(a.reason, b.reason);
  EXPECT_EQ(a.new_allocation, b.new_allocation);
  EXPECT_EQ(a.by_restart, b.by_restart);
  EXPECT_EQ(a.by, b.by);
  EXPECT_EQ(a.launches, b.launches);
}

using resize_test::refusal;

// Header: magic (4 bytes), version (4), payload bytes (8).
constexpr std::size_t kVersionAt = 4;

}  // namespace

TEST(Handover, RandomExpansionStatesSurviveTheRoundTrip) {
  std::mt19937 g(20261124);
  for (int k = 0; k < 200; ++k) {
    const ExpansionState s = random_state(g);
    SCOPED_TRACE(k);
    expect_same(resize::detail::unpack_expansion(resize::detail::pack(s)), s);
  }
}

// A respawn's carry read before the spawn and handed over after the move: the clocks that
// run (the global checkpoint's, the local and partner levels') age by the seconds held,
// the costs and the check stay, and a clock that is not set (< 0) stays unset.
TEST(Handover, TheCarrysClocksAgeByTheSecondsHeld) {
  resize::detail::RankZeroCarry::Clocks c;
  c.checkpoint_age_s = 3.5;
  c.checkpoint_cost_s = 0.25;
  c.checkpoint_check_age_s = 7;
  c.level_local_age_s = 0;
  c.level_partner_age_s = 12;
  c.level_local_cost_s = 0.5;
  c.level_partner_cost_s = 1.5;
  const auto a = resize::detail::aged(c, 2.0);
  EXPECT_DOUBLE_EQ(a.checkpoint_age_s, 5.5);
  EXPECT_DOUBLE_EQ(a.level_local_age_s, 2.0);
  EXPECT_DOUBLE_EQ(a.level_partner_age_s, 14.0);
  EXPECT_DOUBLE_EQ(a.checkpoint_cost_s, 0.25);
  EXPECT_DOUBLE_EQ(a.checkpoint_check_age_s, 7);
  EXPECT_DOUBLE_EQ(a.level_local_cost_s, 0.5);
  EXPECT_DOUBLE_EQ(a.level_partner_cost_s, 1.5);
  const resize::detail::RankZeroCarry::Clocks none;  // no cadence: nothing to age
  const auto n = resize::detail::aged(none, 2.0);
  EXPECT_EQ(n.checkpoint_age_s, -1);
  EXPECT_EQ(n.level_local_age_s, -1);
  EXPECT_EQ(n.level_partner_age_s, -1);
  EXPECT_DOUBLE_EQ(resize::detail::aged(c, 0).checkpoint_age_s, 3.5);
}

TEST(Handover, RandomDecisionsSurviveTheRoundTrip) {
  std::mt19937 g(7);
  for (int k = 0; k < 200; ++k) {
    const Decision d = random_decision(g);
    SCOPED_TRACE(k);
    expect_same(resize::detail::unpack_decision(resize::detail::pack(d)), d);
  }
}

// A resize's plan as world rank 0 broadcasts it: its steps survive field for field; the
// hosts before, the matrices and the costs do not travel.
TEST(Handover, PlansSurviveTheRoundTripWithoutHostsMatricesOrCosts) {
  std::mt19937 g(11);
  for (int k = 0; k < 100; ++k) {
    SCOPED_TRACE(k);
    resize::detail::ResizePlan p;
    p.decision = random_decision(g);
    p.refused = k % 5 == 0 ? "refused " + std::to_string(k) : "";
    p.refused_code = k % 5 == 0 ? (k % 2 ? malleable::Errc::Spawn : malleable::Errc::BatchSystem) : malleable::Errc::Ok;
    p.refused_part = k % 5 == 0 ? (k % 2 ? malleable::Part::BlacsDyn : malleable::Part::Cluster) : malleable::Part::None;
    p.from = random_grid(g);
    p.to = random_grid(g);
    p.how = k % 2 ? "merge" : "respawn";
    p.how_why = "why " + std::to_string(k);
    p.mechanism = k % 3 ? "spawn" : "exit";
    p.reconfigure = {k % 2 == 0, 1.5 * k, 0.25 * k, "clause " + std::to_string(k)};
    p.nodes.keep = {k, 0, 2};
    p.nodes.release = {"n" + std::to_string(k), ""};
    p.nodes.spawn = {{"h1", k}, {"", 2}};
    p.nodes.hosts_before = {"n1", "n2"};
    p.matrices.resize(2);
    p.batches = 3;
    const resize::detail::ResizePlan q = resize::detail::unpack_plan(resize::detail::pack(p));
    expect_same(q.decision, p.decision);
    EXPECT_EQ(q.refused, p.refused);
    EXPECT_EQ(q.refused_code, p.refused_code);
    EXPECT_EQ(q.refused_part, p.refused_part);
    EXPECT_EQ(q.from, p.from);
    EXPECT_EQ(q.to, p.to);
    EXPECT_EQ(q.how, p.how);
    EXPECT_EQ(q.how_why, p.how_why);
    EXPECT_EQ(q.mechanism, p.mechanism);
    EXPECT_EQ(q.reconfigure.respawn, p.reconfigure.respawn);
    EXPECT_EQ(q.reconfigure.gain_s, p.reconfigure.gain_s);
    EXPECT_EQ(q.reconfigure.cost_s, p.reconfigure.cost_s);
    EXPECT_EQ(q.reconfigure.why, p.reconfigure.why);
    EXPECT_EQ(q.nodes.keep, p.nodes.keep);
    EXPECT_EQ(q.nodes.release, p.nodes.release);
    EXPECT_EQ(q.nodes.spawn, p.nodes.spawn);
    EXPECT_TRUE(q.nodes.hosts_before.empty());
    EXPECT_TRUE(q.matrices.empty());
    EXPECT_EQ(q.batches, 0);
  }
  auto bytes = resize::detail::pack(resize::detail::ResizePlan{});
  EXPECT_NE(refusal([&] { resize::detail::unpack_decision(bytes); }).find("decision: not one"), std::string::npos);
  bytes.resize(bytes.size() - 1);
  EXPECT_EQ(refusal([&] { resize::detail::unpack_plan(bytes); }).rfind("resize plan: ", 0), 0u);
}

TEST(Handover, AnotherVersionIsRefusedNamingBoth) {
  std::mt19937 g(1);
  auto bytes = resize::detail::pack(random_state(g));
  bytes[kVersionAt] = static_cast<char>(ExpansionState::kVersion + 1);
  const std::string why = refusal([&] { resize::detail::unpack_expansion(bytes); });
  const std::string versions = "expansion hand-over: version " + std::to_string(ExpansionState::kVersion + 1) +
                               ", this process reads version " + std::to_string(ExpansionState::kVersion);
  EXPECT_NE(why.find(versions), std::string::npos) << why;
  EXPECT_NE(why.find("different builds"), std::string::npos) << why;
  auto dec = resize::detail::pack(random_decision(g));
  dec[kVersionAt] = 9;
  const std::string dwhy = refusal([&] { resize::detail::unpack_decision(dec); });
  EXPECT_NE(dwhy.find("decision: version 9, this process reads version 4"), std::string::npos) << dwhy;
}

TEST(Handover, AnotherKindOfBufferIsRefused) {
  std::mt19937 g(2);
  const auto dec = resize::detail::pack(random_decision(g));
  const std::string why = refusal([&] { resize::detail::unpack_expansion(dec); });
  EXPECT_NE(why.find("expansion hand-over: not one"), std::string::npos) << why;
  const auto st = resize::detail::pack(random_state(g));
  EXPECT_NE(refusal([&] { resize::detail::unpack_decision(st); }).find("decision: not one"), std::string::npos);
}

TEST(Handover, EveryTruncationIsRefused) {
  std::mt19937 g(3);
  ExpansionState s = random_state(g);
  s.mats.resize(2);
  const auto bytes = resize::detail::pack(s);
  // Every prefix: too short for the header, or shorter than the header says.
  for (std::size_t n = 0; n < bytes.size(); ++n) {
    const std::vector<char> cut(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(n));
    const std::string why = refusal([&] { resize::detail::unpack_expansion(cut); });
    ASSERT_FALSE(why.empty()) << "a buffer cut to " << n << " of " << bytes.size() << " bytes was read";
    EXPECT_EQ(why.rfind("expansion hand-over: ", 0), 0u) << why;
  }
  const auto dec = resize::detail::pack(random_decision(g));
  for (std::size_t n = 0; n < dec.size(); ++n) {
    const std::vector<char> cut(dec.begin(), dec.begin() + static_cast<std::ptrdiff_t>(n));
    ASSERT_FALSE(refusal([&] { resize::detail::unpack_decision(cut); }).empty()) << n;
  }
  // Overlong: a byte more than the header says.
  auto more = bytes;
  more.push_back(0);
  EXPECT_NE(refusal([&] { resize::detail::unpack_expansion(more); }).find("truncated or overlong"), std::string::npos);
}

TEST(Handover, ACountTheBufferCannotHoldIsRefusedBeforeAllocating) {
  // A header that agrees with its buffer, but a payload whose first count (the from grid's
  // ranks) claims 2^62 items: truncated, not a 2^62-element allocation.
  malleable::wire::Writer w({0x5453584du, ExpansionState::kVersion, "expansion hand-over"});
  w.put(0);  // iteration
  w.put(0);  // mover
  w.put(2);  // from: nprow
  w.put(2);  //       npcol
  w.put(std::uint64_t{1} << 62);
  const std::string why = refusal([&] { resize::detail::unpack_expansion(w.finish()); });
  EXPECT_NE(why.find("expansion hand-over: truncated"), std::string::npos) << why;
}

TEST(Handover, AnImpossibleFieldIsRefused) {
  Decision d;
  d.action = Action::Expand;
  auto bytes = resize::detail::pack(d);
  bytes[16] = 7;  // the action, first field after the 16-byte header
  EXPECT_NE(refusal([&] { resize::detail::unpack_decision(bytes); }).find("decision: action 7"), std::string::npos);
}

// The enums travel as enums: a value outside the enum is refused, naming the field.
TEST(Handover, AnEnumOutOfRangeIsRefused) {
  ExpansionState s;
  s.mats.push_back({4, 4, 2, 2, resize::detail::Scalar::Z, false});
  auto bytes = resize::detail::pack(s);
  // The mover, after the header and the iteration.
  auto mover = bytes;
  mover[16 + 4] = 2;
  EXPECT_NE(refusal([&] { resize::detail::unpack_expansion(mover); }).find("expansion hand-over: mover 2"),
            std::string::npos);
  // The element type of the one matrix: after iteration, mover, two 1x1 grids (2 ints, a
  // count and one rank each), the matrix count and m, n, mb, nb.
  const std::size_t type_at = 16 + 8 + 2 * (8 + 8 + 4) + 8 + 16;
  auto type = bytes;
  ASSERT_EQ(type[type_at], 3);  // Z
  type[type_at] = 4;
  EXPECT_NE(refusal([&] { resize::detail::unpack_expansion(type); }).find("expansion hand-over: element type 4"),
            std::string::npos);
  EXPECT_EQ(resize::detail::unpack_expansion(bytes).mats.at(0).desc.type, resize::detail::Scalar::Z);
}


// Each message's bytes pinned: a change of the wire format shows here (and needs a new
// version), not as processes of one build that misread each other.
TEST(Handover, GoldenBytes) {
  ExpansionState s;
  s.iteration = 7;
  s.mover = resize::Mover::Pdgemr2d;
  s.from = Grid{1, 2, {1, 0}};
  s.to = Grid{2, 2, {0, 1, 2, 3}};
  s.mats = {{10, 12, 2, 3, resize::detail::Scalar::Z, true}};
  s.app = {'a', 'b'};
  s.powers_before = {1.0};
  s.powers = {0.5, 2.0};
  s.background_mode = resize::Background::Continue;
  s.background_min_iterations = 2;
  s.background = true;
  s.move_budget = 1 << 20;
  s.global = {true, "d", "3", "", 1.5, 0, 2};
  s.respawn_from = 4;
  s.check_reach = true;
  s.reach_decided = false;
  s.reach_factor = -1;
  EXPECT_EQ(malleable::wire::hex(resize::detail::pack(s)),
            "4d585354050000000a01000000000000"
            "0700000001000000010000000200000002000000000000000100000000000000"
            "0200000002000000040000000000000000000000010000000200000003000000"
            "01000000000000000a0000000c00000002000000030000000300000001020000"
            "000000000061620100000000000000000000000000f03f020000000000000000"
            "0000000000e03f00000000000000400200000002000000010000100000000000"
            "0101000000000000006401000000000000003300000000000000000000000000"
            "00f83f0000000000000000020000000000000000000000000000000000000000"
            "00000000000000000000000000000000000000000000000000000000"
            "04000000"
            "0100000000000000f0bf");  // check_reach, reach_decided, reach_factor (5)
  expect_same(resize::detail::unpack_expansion(resize::detail::pack(s)), s);
  Decision d;
  d.action = Action::Expand;
  d.procs = 6;
  d.nprow = 2;
  d.npcol = 3;
  d.placement = Placement::Given;
  d.schema = "s";
  d.ranks = {0, 2};
  d.hosts = {{"h", 4}};
  d.powers = {1.0};
  d.predicted_iteration = 0.5;
  d.predicted_resize = 2;
  d.measured_iteration = -1;
  d.prediction_clock = "c";
  d.prediction = "p";
  d.reason = "r";
  d.new_allocation = true;
  d.by_restart = true;
  d.by = resize::ExpandBy::Waiting;
  d.launches = {"l"};
  EXPECT_EQ(malleable::wire::hex(resize::detail::pack(d)),
            "4d58444304000000a200000000000000"
            "0100000006000000020000000300000004000000010000000000000073020000"
            "0000000000000000000200000001000000000000000100000000000000680400"
            "00000100000000000000000000000000f03f000000000000e03f000000000000"
            "0040000000000000f0bf01000000000000006301000000000000007001000000"
            "00000000720100000001000000"
            "0300000001000000000000000100000000000000" "6c");
  expect_same(resize::detail::unpack_decision(resize::detail::pack(d)), d);
}
