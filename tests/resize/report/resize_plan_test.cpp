// SPDX-License-Identifier: BSD-3-Clause
// plan_resize (resize/src/report/resize_plan.hpp): a decision planned with no MPI loaded:
// the target grid, merge/respawn/background, the nodes, each matrix's layouts and bytes
// (kept + moved = the matrix), the move's batches, each phase's cost by the report's bound
// model, and the dry run's JSON and table.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "malleable/redist/bound.hpp"
#include "report/resize_plan.hpp"

#include "core_test_util.hpp"

using namespace resize;
using resize::detail::JobState;
using resize::detail::plan_resize;
using resize::detail::plan_steps;
using resize::detail::Reconfigure;
using resize::detail::ResizePlan;
using resize_test::decision;

namespace {

JobState job(Grid shape, std::vector<redist::MatrixSpec> mats) {
  JobState j;
  j.world_size = shape.size();
  j.shape = std::move(shape);
  j.matrices = std::move(mats);
  j.reconfigure = Reconfigure::Merge;
  return j;
}

redist::MatrixSpec square(const std::string& name, std::int64_t n, std::int64_t nb) {
  redist::MatrixSpec s = redist::MatrixSpec::block_cyclic(n, n, nb, nb);
  s.name = name;
  return s;
}

void expect_bytes_add_up(const ResizePlan& p) {
  for (const auto& m : p.matrices) {
    EXPECT_EQ(m.kept + m.moved, m.bytes) << m.name;
    EXPECT_GE(m.kept, 0) << m.name;
    EXPECT_GE(m.moved, 0) << m.name;
  }
}

}  // namespace

// The linear assignment's worked example: 2x2 -> 4x4 of a 16 x 16 block-cyclic matrix of
// 1 x 1 blocks. Each new position (x, y) holds the elements i = x, j = y (mod 4), of which
// an old process (a, b) holds those with x = a, y = b (mod 2): 1/16 of the matrix; the best
// placement keeps one position per old process, 4/16, the merge's kept share
// min(P, Q) / (lcm(pr, qr) lcm(pc, qc)) = 4 / 16. Global (row-major) keeps only rank 0..3's
// first-row positions: i = 0 (mod 4) and j = 0, 1 (mod 4), 1/8.
TEST(ResizePlan, ExpansionKeepsTheShareTheWorkedExampleGives) {
  const JobState j = job(Grid{2, 2, {}}, {square("A", 16, 1)});
  const ResizePlan opt = plan_resize(j, decision(Action::Expand, 16, 4, 4, Placement::Optimal));
  ASSERT_TRUE(opt.refused.empty()) << opt.refused;
  ASSERT_EQ(opt.matrices.size(), 1u);
  EXPECT_EQ(opt.matrices[0].bytes, 16 * 16 * 8);
  EXPECT_EQ(opt.matrices[0].kept, 16 * 16 * 8 / 4);
  EXPECT_DOUBLE_EQ(static_cast<double>(opt.matrices[0].kept) / static_cast<double>(opt.matrices[0].bytes),
                   detail::kept_share(Grid{2, 2, {}}, Grid{4, 4, {}}));
  const ResizePlan glob = plan_resize(j, decision(Action::Expand, 16, 4, 4, Placement::Global));
  EXPECT_EQ(glob.matrices[0].kept, 16 * 16 * 8 / 8);
  expect_bytes_add_up(opt);
  expect_bytes_add_up(glob);
  EXPECT_EQ(opt.to.shape(), "4x4");
  EXPECT_EQ(opt.how, "merge");
  EXPECT_EQ(opt.mechanism, "spawn");
}

// One process row, 1x2 -> 1x4 with the new columns appended (Local1): column j stays where
// j mod 2 = j mod 4, half of them.
TEST(ResizePlan, LocalExpansionOfOneRowKeepsHalf) {
  const redist::MatrixSpec a = [] {
    redist::MatrixSpec s = redist::MatrixSpec::block_cyclic(1, 8, 1, 1);
    s.name = "row";
    return s;
  }();
  const ResizePlan p = plan_resize(job(Grid{1, 2, {}}, {a}), decision(Action::Expand, 4, 1, 4, Placement::Local1));
  ASSERT_TRUE(p.refused.empty()) << p.refused;
  EXPECT_EQ(p.matrices[0].kept, 4 * 8);
  EXPECT_EQ(p.matrices[0].moved, 4 * 8);
  EXPECT_EQ(p.matrices[0].from.nprow * p.matrices[0].from.npcol, 2);
  EXPECT_EQ(p.matrices[0].to.npcol, 4);
}

TEST(ResizePlan, RegridOntoTheSameGridMovesNothing) {
  const ResizePlan p = plan_resize(job(Grid{2, 2, {}}, {square("A", 100, 8), square("B", 37, 5)}),
                                   decision(Action::Regrid, 4, 2, 2));
  ASSERT_TRUE(p.refused.empty()) << p.refused;
  EXPECT_EQ(p.how, "regrid");
  EXPECT_EQ(p.mechanism, "none");
  for (const auto& m : p.matrices) EXPECT_EQ(m.kept, m.bytes) << m.name;
  EXPECT_EQ(p.bytes_moved(), 0);
  EXPECT_DOUBLE_EQ(p.start.seconds, 0);
}

TEST(ResizePlan, ShrinkGivesBackANodeAndEveryByteIsCounted) {
  JobState j = job(Grid{2, 3, {}}, {square("A", 60, 4)});
  j.hosts = {"n1", "n1", "n1", "n1", "n2", "n2"};
  Decision d = decision(Action::Shrink, 4, 2, 2);
  d.hosts = {HostShare{"n2", 0}};
  const ResizePlan p = plan_resize(j, d);
  ASSERT_TRUE(p.refused.empty()) << p.refused;
  EXPECT_EQ(p.to.shape(), "2x2");
  EXPECT_EQ(p.mechanism, "exit");
  ASSERT_EQ(p.nodes.release.size(), 1u);
  EXPECT_EQ(p.nodes.release[0], "n2");
  EXPECT_EQ(p.nodes.keep, (std::vector<int>{0, 1, 2, 3}));
  expect_bytes_add_up(p);
  EXPECT_GT(p.bytes_moved(), 0);
  EXPECT_EQ(p.bytes_kept() + p.bytes_moved(), 60 * 60 * 8);
}

TEST(ResizePlan, RespawnMovesEveryByteAndStartsTheWholeGrid) {
  JobState j = job(Grid{2, 2, {}}, {square("A", 64, 8)});
  j.reconfigure = Reconfigure::Respawn;
  const ResizePlan p = plan_resize(j, decision(Action::Expand, 6, 2, 3));
  ASSERT_TRUE(p.refused.empty()) << p.refused;
  EXPECT_EQ(p.how, "respawn");
  EXPECT_EQ(p.mechanism, "spawn");
  EXPECT_EQ(p.bytes_kept(), 0);
  EXPECT_EQ(p.bytes_moved(), 64 * 64 * 8);
  // No history, no bare spawn: the default seconds per process, for all 6.
  EXPECT_NEAR(p.start.seconds, 6 * detail::kDefaultSpawnPerProcess, 1e-12);
}

TEST(ResizePlan, BackgroundUnlessBlockedOrJoining) {
  JobState j = job(Grid{2, 2, {}}, {square("A", 32, 4)});
  j.background_blocked = std::nullopt;
  EXPECT_EQ(plan_resize(j, decision(Action::Expand, 6, 2, 3)).how, "background");
  Decision join = decision(Action::Expand, 6, 2, 3);
  join.by = ExpandBy::Join;
  const ResizePlan p = plan_resize(j, join);
  EXPECT_EQ(p.how, "merge");
  EXPECT_EQ(p.mechanism, "join");
  j.background_blocked = "no registered matrix is constant";
  const ResizePlan b = plan_resize(j, decision(Action::Expand, 6, 2, 3));
  EXPECT_EQ(b.how, "merge");
  EXPECT_NE(b.how_why.find("no registered matrix is constant"), std::string::npos) << b.how_why;
}

TEST(ResizePlan, BatchesFollowTheMoveBudget) {
  JobState j = job(Grid{2, 2, {}}, {square("A", 64, 8), square("B", 64, 8), square("C", 64, 8)});
  // On 2x3 each process holds at most 32 x 24 doubles of each matrix: 6144 bytes.
  j.move_budget_bytes = 2 * 6144;
  const ResizePlan p = plan_resize(j, decision(Action::Expand, 6, 2, 3));
  ASSERT_TRUE(p.refused.empty()) << p.refused;
  EXPECT_EQ(p.batches, 2);
  EXPECT_EQ(p.matrices[0].batch, 0);
  EXPECT_EQ(p.matrices[1].batch, 0);
  EXPECT_EQ(p.matrices[2].batch, 1);
  j.move_budget_bytes = 0;
  EXPECT_EQ(plan_resize(j, decision(Action::Expand, 6, 2, 3)).batches, 1);
}

// The cost: the bare spawn and the copy/shared-memory bound, as the report sets each
// resize against them (bound_seconds_from_totals over the ranks at work).
TEST(ResizePlan, CostIsTheReportsBoundModel) {
  JobState j = job(Grid{2, 2, {}}, {square("A", 100, 10)});
  ResizeBounds b;
  b.copy_Bps = 4e9;
  b.shm_Bps = 1e9;
  b.bare_spawn_s = 0.75;
  b.cores_per_node = 4;
  b.rates_from = "test";
  j.rates = b;
  const ResizePlan p = plan_resize(j, decision(Action::Expand, 9, 3, 3));
  ASSERT_TRUE(p.refused.empty()) << p.refused;
  EXPECT_DOUBLE_EQ(p.start.seconds, 0.75);
  const double want = redist::bound_seconds_from_totals(static_cast<double>(p.bytes_kept()),
                                                        static_cast<double>(p.bytes_moved()), 4, {4e9, 1e9});
  EXPECT_DOUBLE_EQ(p.redistribute.seconds, want);
  EXPECT_DOUBLE_EQ(p.total_s(), 0.75 + want);
  EXPECT_EQ(detail::ranks_at_work(9, 1, 4), 4);
  EXPECT_EQ(detail::ranks_at_work(9, 3, 4), 9);
  EXPECT_EQ(detail::ranks_at_work(9, 1, 0), 9);
}

TEST(ResizePlan, RefusalSaysWhyAndPlansNothing) {
  const ResizePlan p = plan_resize(job(Grid{2, 2, {}}, {square("A", 16, 4)}), decision(Action::Expand, 3, 1, 3));
  EXPECT_NE(p.refused.find("already has 4"), std::string::npos) << p.refused;
  EXPECT_EQ(p.refused_code, malleable::Errc::InvalidArgument);  // what refused it, in the one form
  EXPECT_EQ(p.refused_part, malleable::Part::Resize);
  EXPECT_TRUE(p.matrices.empty());
  JobState no_spawn = job(Grid{2, 2, {}}, {square("A", 16, 4)});
  no_spawn.no_spawn = "this MPI cannot spawn";
  const ResizePlan q = plan_resize(no_spawn, decision(Action::Expand, 6, 2, 3));
  EXPECT_EQ(q.refused, "this MPI cannot spawn");
  EXPECT_EQ(q.refused_code, malleable::Errc::SpawnUnsupported);
  EXPECT_EQ(plan_resize(no_spawn, Decision{}).how, "none");
}

// plan_steps (what the executor carries out) is plan_resize's plan without the matrices
// and costs: the same target, nodes, how, mechanism and merge-or-respawn choice, and the
// same refusals; plan_resize's matrices come on top.
TEST(ResizePlan, StepsAreThePlansWithoutMatricesOrCosts) {
  JobState j = job(Grid{2, 3, {}}, {square("A", 60, 4)});
  j.hosts = {"n1", "n1", "n1", "n1", "n2", "n2"};
  Decision shrink = decision(Action::Shrink, 4, 2, 2);
  shrink.hosts = {HostShare{"n2", 0}};
  JobState respawn = job(Grid{2, 2, {}}, {square("A", 64, 8)});
  respawn.reconfigure = Reconfigure::Respawn;
  const std::vector<std::pair<JobState, Decision>> cases = {
      {j, shrink},
      {j, decision(Action::Expand, 9, 3, 3, Placement::Local2)},
      {j, decision(Action::Regrid, 6, 3, 2)},
      {respawn, decision(Action::Expand, 6, 2, 3)},
      {j, decision(Action::Expand, 3, 1, 3)},  // refused
  };
  for (const auto& [js, d] : cases) {
    const ResizePlan full = plan_resize(js, d), steps = plan_steps(js, d);
    SCOPED_TRACE(to_string(d.action) + " " + std::to_string(d.procs));
    EXPECT_EQ(steps.refused, full.refused);
    EXPECT_EQ(steps.to, full.to);
    EXPECT_EQ(steps.how, full.how);
    EXPECT_EQ(steps.how_why, full.how_why);
    EXPECT_EQ(steps.mechanism, full.mechanism);
    EXPECT_EQ(steps.reconfigure.respawn, full.reconfigure.respawn);
    EXPECT_EQ(steps.reconfigure.why, full.reconfigure.why);
    EXPECT_EQ(steps.nodes.keep, full.nodes.keep);
    EXPECT_EQ(steps.nodes.release, full.nodes.release);
    EXPECT_EQ(steps.decision.placement, full.decision.placement);
    EXPECT_TRUE(steps.matrices.empty());
    EXPECT_EQ(full.matrices.empty(), !full.refused.empty());
  }
  EXPECT_TRUE(plan_steps(respawn, decision(Action::Expand, 6, 2, 3)).reconfigure.respawn);
}

TEST(ResizePlan, JsonAndTableSayWhatTheResizeWouldDo) {
  JobState j = job(Grid{2, 2, {}}, {square("A", 16, 1)});
  j.hosts = {"n1", "n1", "n1", "n1"};
  Decision d = decision(Action::Expand, 16, 4, 4, Placement::Optimal);
  d.hosts = {HostShare{"n2", 0}};
  const ResizePlan p = plan_resize(j, d);
  const auto js = nlohmann::json::parse(detail::plan_json(p));
  EXPECT_EQ(js["schema"], "malleable.plan/1");
  EXPECT_EQ(js["dry_run"], true);
  EXPECT_EQ(js["action"], "expand");
  EXPECT_TRUE(js["refused"].is_null());
  EXPECT_EQ(js["from"]["grid"], "2x2");
  EXPECT_EQ(js["to"]["grid"], "4x4");
  EXPECT_EQ(js["how"], "merge");
  EXPECT_EQ(js["mechanism"], "spawn");
  EXPECT_EQ(js["nodes"]["spawn"][0]["host"], "n2");
  EXPECT_EQ(js["nodes"]["spawn"][0]["count"], 12);
  EXPECT_EQ(js["matrices"][0]["name"], "A");
  EXPECT_EQ(js["matrices"][0]["bytes"].get<std::int64_t>(),
            js["matrices"][0]["bytes_kept"].get<std::int64_t>() + js["matrices"][0]["bytes_moved"].get<std::int64_t>());
  EXPECT_EQ(js["matrices"][0]["from"]["grid"], "2x2");
  EXPECT_EQ(js["matrices"][0]["to"]["grid"], "4x4");
  EXPECT_TRUE(js["cost"]["start_s"].is_number());
  EXPECT_TRUE(js["cost"]["redistribute_s"].is_number());
  const std::string t = detail::plan_table(p);
  EXPECT_NE(t.find("dry run: expand 2x2 -> 4x4"), std::string::npos) << t;
  EXPECT_NE(t.find("start 12 on n2"), std::string::npos) << t;
  EXPECT_NE(t.find("redistribute"), std::string::npos) << t;
}

// One model for the planner and the simulator (price_resize): the start (bare, else fixed +
// per unit), the move as the larger of the memory bound and the node-link bound.
TEST(ResizePrice, StartAndMoveByOneModel) {
  ResizePriceInput sim;  // the simulator's defaults (sim/src/costs.hpp): 10 -> 20 nodes, 16 GB a node
  sim.start_fixed_s = 0.213;
  sim.start_per_unit_s = 0.0447;
  sim.started = 10;
  sim.link_bytes = 16e9 * 10;
  sim.link_nodes = 10;
  sim.link_Bps = 12.5e9;
  sim.link_ratio = 1.15;
  const ResizePrice s = price_resize(sim);
  EXPECT_DOUBLE_EQ(s.start_s, 0.213 + 0.0447 * 10);
  EXPECT_DOUBLE_EQ(s.redistribute_s, 1.15 * 16e9 * 10 / (10 * 12.5e9));
  ResizePriceInput plan;  // the planner's: bare start, the copy/shared-memory bound
  plan.bare_start_s = 0.5;
  plan.start_per_unit_s = 0.23;
  plan.started = 4;
  plan.kept_bytes = 1e9;
  plan.moved_bytes = 3e9;
  plan.copy_Bps = 4e9;
  plan.shm_Bps = 2e9;
  plan.ranks_at_work = 8;
  const ResizePrice p = price_resize(plan);
  EXPECT_DOUBLE_EQ(p.start_s, 0.5);
  EXPECT_DOUBLE_EQ(p.redistribute_s, redist::bound_seconds_from_totals(1e9, 3e9, 8, {4e9, 2e9}));
  plan.link_bytes = 3e9;  // both terms: the larger one
  plan.link_nodes = 1;
  plan.link_Bps = 1e9;
  EXPECT_DOUBLE_EQ(price_resize(plan).redistribute_s, 3.0);
  plan.link_nodes = 0;
  EXPECT_THROW(price_resize(plan), Error);
}
