// SPDX-License-Identifier: BSD-3-Clause
// The redistribution cost model (cost_model.hpp): hand-computed predictions for hand-built
// plans, the linear form calibration fits, monotonicity, JSON round trip, bad files.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <unistd.h>

#include "malleable/redist/cost_model.hpp"

using redist::CostParams;
using redist::Layout;
using redist::RedistPlan;
using redist::Region;
using redist::Transfer;

namespace {

Transfer transfer(int src, int dst, std::int64_t rows, std::int64_t cols) {
  Transfer t;
  t.src = src;
  t.dst = dst;
  t.rows = {{0, rows}};
  t.cols = {{0, cols}};
  return t;
}

// Rank 0 keeps 10x10 elements, sends 4x5 to rank 1; rank 2 sends 2x5 to rank 1; one step.
RedistPlan hand_plan() {
  RedistPlan p;
  p.transfers = {transfer(0, 0, 10, 10), transfer(0, 1, 4, 5), transfer(2, 1, 2, 5)};
  p.steps = {{1, 2}};
  return p;
}

CostParams some_params() {
  CostParams c;
  c.message_intra_s = 1e-6;
  c.byte_intra_s = 1e-9;
  c.message_inter_s = 5e-6;
  c.byte_inter_s = 4e-9;
  c.step_s = 1e-5;
  c.call_s = 2e-5;
  c.local_copy_byte_s = 1e-10;
  c.sleep_step_s = 3e-5;
  c.sleep_byte_s = 2e-9;
  return c;
}

double dot(const std::array<double, redist::kCostParamCount>& a, const CostParams& p) {
  const auto v = redist::to_array(p);
  double s = 0;
  for (std::size_t k = 0; k < v.size(); ++k) s += a[k] * v[k];
  return s;
}

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("malleable_cost_" + std::to_string(::getpid()) + "_" + name))
      .string();
}

}  // namespace

TEST(redistCostModel, HandPlanOnOneNodeIsTheBusiestRankPlusOverheads) {
  const auto f = redist::cost_features(hand_plan(), 8);
  ASSERT_EQ(f.ranks.size(), 3u);
  EXPECT_EQ(f.ranks[0].messages_intra, 1);
  EXPECT_EQ(f.ranks[0].bytes_intra, 160);
  EXPECT_EQ(f.ranks[0].bytes_local, 800);
  EXPECT_EQ(f.ranks[1].messages_intra, 2);
  EXPECT_EQ(f.ranks[1].bytes_intra, 240);
  EXPECT_EQ(f.messages, 2);
  EXPECT_EQ(f.bytes_moved, 240);
  EXPECT_EQ(f.steps, 1);
  const auto p = redist::predict(some_params(), f);
  // rank 1 receives two messages, 240 bytes: 2e-6 + 240e-9; rank 0: 1e-6 + 160e-9 + 800e-10.
  EXPECT_EQ(p.busiest_rank, 1);
  EXPECT_NEAR(p.busiest_rank_s, 2.24e-6, 1e-15);
  EXPECT_FALSE(p.node_bound);  // cores unknown: no node bound
  EXPECT_NEAR(p.total_s, 2e-5 + 1e-5 + 2.24e-6, 1e-15);
  EXPECT_NEAR(dot(p.coefficients, some_params()), p.total_s, 1e-15);
}

TEST(redistCostModel, NodeMapChargesBetweenNodeCostsOnCrossingMessages) {
  const int nodes[] = {0, 1, 1};  // 0 -> 1 crosses, 2 -> 1 stays on node 1
  const auto f = redist::cost_features(hand_plan(), 8, nodes);
  EXPECT_EQ(f.nodes, 2);
  EXPECT_EQ(f.ranks[1].messages_inter, 1);
  EXPECT_EQ(f.ranks[1].bytes_inter, 160);
  EXPECT_EQ(f.ranks[1].messages_intra, 1);
  EXPECT_EQ(f.ranks[1].bytes_intra, 80);
  const auto p = redist::predict(some_params(), f);
  // rank 1: 5e-6 + 160*4e-9 + 1e-6 + 80e-9 = 6.72e-6; rank 0: 5e-6 + 640e-9 + 80e-9.
  EXPECT_EQ(p.busiest_rank, 1);
  EXPECT_NEAR(p.total_s, 3e-5 + 6.72e-6, 1e-15);
}

TEST(redistCostModel, OversubscribedNodeIsBoundByItsCores) {
  CostParams c = some_params();
  c.cores_per_node = 1;  // three ranks share one core
  const auto p = redist::predict(c, hand_plan(), 8);
  EXPECT_DOUBLE_EQ(p.share, 3.0);
  EXPECT_TRUE(p.node_bound);
  EXPECT_EQ(p.busiest_node, 0);
  // every rank's work on the single core: (1e-6+160e-9+80e-9) + 2.24e-6 + (1e-6+80e-9)
  EXPECT_NEAR(p.busiest_node_s, 4.56e-6, 1e-15);
  EXPECT_NEAR(p.total_s, 3 * (2e-5 + 1e-5) + 4.56e-6, 1e-15);
  EXPECT_NEAR(dot(p.coefficients, c), p.total_s, 1e-15);
  // Two cores: the node's work is halved, still above the busiest rank; share 1.5.
  c.cores_per_node = 2;
  const auto q = redist::predict(c, hand_plan(), 8);
  EXPECT_NEAR(q.total_s, 1.5 * 3e-5 + 4.56e-6 / 2, 1e-15);
  // As many cores as ranks: the busiest rank decides again.
  c.cores_per_node = 8;
  const auto r = redist::predict(c, hand_plan(), 8);
  EXPECT_FALSE(r.node_bound);
  EXPECT_NEAR(r.total_s, 3e-5 + 2.24e-6, 1e-15);
}

TEST(redistCostModel, SleepingWaitersAddTheirCostsPerStepAndByte) {
  const auto f = redist::cost_features(hand_plan(), 8);
  const auto spin = redist::predict(some_params(), f, redist::Waiting::Spin);
  const auto sleep = redist::predict(some_params(), f, redist::Waiting::Sleep);
  EXPECT_FALSE(spin.sleeping);
  EXPECT_TRUE(sleep.sleeping);
  // rank 1 handles 240 bytes: + 240 * 2e-9; one step: + 3e-5.
  EXPECT_NEAR(sleep.total_s - spin.total_s, 240 * 2e-9 + 3e-5, 1e-15);
  EXPECT_NEAR(dot(sleep.coefficients, some_params()), sleep.total_s, 1e-15);
  // Auto follows redist's rule: more than 8 ranks per core sleep.
  CostParams c = some_params();
  c.cores_per_node = 1;  // 3 ranks per core
  EXPECT_FALSE(redist::predict(c, f).sleeping);
  const auto a = Layout::block_cyclic(40, 40, 10, 10, 4, 4);
  const auto b = Layout::block_cyclic(40, 40, 8, 8, 5, 5);
  const auto plan25 = redist::make_plan(a, b, Region::whole(a), 25);
  c.cores_per_node = 3;  // 8.33 per core
  EXPECT_TRUE(redist::predict(c, plan25, 8).sleeping);
  c.cores_per_node = 4;  // 6.25 per core
  EXPECT_FALSE(redist::predict(c, plan25, 8).sleeping);
}

TEST(redistCostModel, CrowdingRuleGivesTheShareAndHowWaitersWait) {
  CostParams c = some_params();
  c.cores_per_node = 0;  // cores not known: one rank per core, spinning free
  const auto unknown = redist::crowding(c, 40);
  EXPECT_DOUBLE_EQ(unknown.share, 1.0);
  EXPECT_FALSE(unknown.sleeping);
  EXPECT_DOUBLE_EQ(unknown.spin_weight, 0.0);
  c.cores_per_node = 4;
  EXPECT_DOUBLE_EQ(redist::crowding(c, 2).share, 1.0);  // fewer ranks than cores: at least 1
  const auto spin = redist::crowding(c, 12);              // 3 per core: Auto spins
  EXPECT_DOUBLE_EQ(spin.share, 3.0);
  EXPECT_FALSE(spin.sleeping);
  EXPECT_DOUBLE_EQ(spin.spin_weight, 2.0);
  const auto slept = redist::crowding(c, 36);  // 9 per core: Auto sleeps, no spin cost
  EXPECT_TRUE(slept.sleeping);
  EXPECT_DOUBLE_EQ(slept.spin_weight, 0.0);
  EXPECT_TRUE(redist::crowding(c, 12, redist::Waiting::Sleep).sleeping);
  EXPECT_FALSE(redist::crowding(c, 36, redist::Waiting::Spin).sleeping);
  EXPECT_DOUBLE_EQ(redist::crowding(c, 36, redist::Waiting::Spin).spin_weight, 8.0);
  // predict takes its share and waiting from the same rule.
  c.cores_per_node = 1;
  const auto p = redist::predict(c, redist::cost_features(hand_plan(), 8));
  const auto r = redist::crowding(c, 3);
  EXPECT_DOUBLE_EQ(p.share, r.share);
  EXPECT_EQ(p.sleeping, r.sleeping);
  EXPECT_EQ(p.spinning, r.spin_weight > 0);
}

TEST(redistCostModel, StepsThatKeepFewPairsBusyAddUpStepByStep) {
  // Two 1000-byte messages between disjoint pairs: in one step they overlap, in two steps
  // (each step's ranks wait for their message before the next) their times add up.
  RedistPlan one;
  one.transfers = {transfer(0, 1, 5, 25), transfer(2, 3, 5, 25)};
  one.steps = {{0, 1}};
  RedistPlan two = one;
  two.steps = {{0}, {1}};
  CostParams c = some_params();
  c.cores_per_node = 8;  // no oversubscription: the busiest rank decides within a step
  const double endpoint = 1e-6 + 1000 * 1e-9;
  const auto p1 = redist::predict(c, one, 8);
  EXPECT_FALSE(p1.step_bound);
  EXPECT_NEAR(p1.transfer_s, endpoint, 1e-15);
  const auto p2 = redist::predict(c, two, 8);
  EXPECT_TRUE(p2.step_bound);
  EXPECT_NEAR(p2.stepwise_s, 2 * endpoint, 1e-15);
  EXPECT_NEAR(p2.total_s, 2e-5 + 2 * 1e-5 + 2 * endpoint, 1e-15);
  EXPECT_NEAR(dot(p2.coefficients, c), p2.total_s, 1e-15);
  const auto f = redist::cost_features(two, 8);
  ASSERT_EQ(f.step_loads.size(), 2u);
  ASSERT_EQ(f.step_loads[1].size(), 2u);  // ranks 2 and 3 only
  EXPECT_EQ(f.step_loads[1][0].first + f.step_loads[1][1].first, 5);
  // One core for the four ranks: each step's two active ranks share it.
  c.cores_per_node = 1;
  const auto q = redist::predict(c, two, 8);
  EXPECT_NEAR(q.stepwise_s, 2 * (2 * endpoint), 1e-15);
  EXPECT_NEAR(dot(q.coefficients, c), q.total_s, 1e-15);
}

TEST(redistCostModel, SpinningWaitersOnAnOversubscribedNodeChargeEveryByteTheirShare) {
  CostParams c = some_params();
  c.cores_per_node = 1;  // three ranks on one core: share 3, spinning (Auto below 8 per core)
  const auto base = redist::predict(c, hand_plan(), 8);
  EXPECT_TRUE(base.spinning);
  c.spin_byte_s = 1e-9;
  const auto spin = redist::predict(c, hand_plan(), 8);
  // Node bound: endpoint bytes 160 + 240 + 80 = 480, times (share - 1) = 2, times 1e-9.
  EXPECT_NEAR(spin.total_s - base.total_s, 480 * 2 * 1e-9, 1e-15);
  EXPECT_NEAR(dot(spin.coefficients, c), spin.total_s, 1e-15);
  // Not when waiters sleep, nor when every rank has a core.
  EXPECT_FALSE(redist::predict(c, hand_plan(), 8, {}, redist::Waiting::Sleep).spinning);
  c.cores_per_node = 3;
  const auto own = redist::predict(c, hand_plan(), 8);
  EXPECT_FALSE(own.spinning);
  c.spin_byte_s = 0;
  EXPECT_DOUBLE_EQ(redist::predict(c, hand_plan(), 8).total_s, own.total_s);
}

TEST(redistCostModel, FilesWithoutTheSpinCostStillLoad) {
  CostParams c = some_params();
  c.spin_byte_s = 7e-10;
  std::string text = redist::cost_params_to_json(c);
  const auto at = text.find("\"spin_byte_s\"");
  ASSERT_NE(at, std::string::npos);
  text.erase(at, text.find('\n', at) - at);  // the key, its value and its comma (not the last key)
  ASSERT_EQ(text.find("spin_byte_s"), std::string::npos);
  const auto d = redist::parse_cost_params(text, "old.json");
  EXPECT_EQ(d.spin_byte_s, 0.0);
  EXPECT_EQ(d.byte_intra_s, c.byte_intra_s);
}

TEST(redistCostModel, PredictionIsTheDotOfCoefficientsAndParametersForRandomPlans) {
  std::mt19937 rng(13);
  for (int trial = 0; trial < 50; ++trial) {
    const int pa = 1 + static_cast<int>(rng() % 3), qa = 1 + static_cast<int>(rng() % 3);
    const int pb = 1 + static_cast<int>(rng() % 4), qb = 1 + static_cast<int>(rng() % 4);
    const int comm = std::max(pa * qa, pb * qb);
    const std::int64_t n = 20 + static_cast<std::int64_t>(rng() % 60);
    const auto a = Layout::block_cyclic(n, n, 1 + rng() % 9, 1 + rng() % 9, pa, qa);
    const auto b = Layout::block_cyclic(n, n, 1 + rng() % 9, 1 + rng() % 9, pb, qb);
    const auto kind = static_cast<redist::ScheduleKind>(rng() % 4);
    const auto plan = redist::make_plan(a, b, Region::whole(a), comm, kind);
    std::vector<int> node(static_cast<std::size_t>(comm));
    for (auto& x : node) x = static_cast<int>(rng() % 2);
    CostParams c = some_params();
    c.cores_per_node = 1 + static_cast<int>(rng() % 4);
    const auto f = redist::cost_features(plan, 8, node);
    // Every moved byte is counted at both endpoints, local bytes once.
    std::int64_t endpoint_bytes = 0, local = 0;
    for (const auto& r : f.ranks) {
      endpoint_bytes += r.bytes_intra + r.bytes_inter;
      local += r.bytes_local;
    }
    EXPECT_EQ(endpoint_bytes, 2 * plan.stats.elements_moved * 8);
    EXPECT_EQ(local, plan.stats.elements_local * 8);
    EXPECT_EQ(f.steps, static_cast<int>(plan.steps.size()));
    const auto p = redist::predict(c, f);
    EXPECT_NEAR(dot(p.coefficients, c), p.total_s, 1e-12 * p.total_s);
    EXPECT_GE(p.total_s, p.busiest_rank_s);
  }
}

TEST(redistCostModel, MoreDataMoreStepsOrDearerEventsNeverPredictLess) {
  const CostParams base = [] {
    CostParams c = some_params();
    c.cores_per_node = 2;
    return c;
  }();
  double last = 0;
  for (std::int64_t n : {100, 200, 400, 800, 1600}) {
    const auto a = Layout::block_cyclic(n, n, (n + 1) / 2, (n + 1) / 2, 2, 2);
    const auto b = Layout::block_cyclic(n, n, (n + 2) / 3, (n + 2) / 3, 3, 3);
    const double t = redist::predict(base, redist::make_plan(a, b, Region::whole(a), 9), 8).total_s;
    EXPECT_GT(t, last) << "n = " << n;
    last = t;
  }
  const auto a = Layout::block_cyclic(600, 600, 32, 32, 3, 3);
  const auto b = Layout::block_cyclic(600, 600, 32, 32, 4, 4);
  const auto all = redist::make_plan(a, b, Region::whole(a), 16, redist::ScheduleKind::AllAtOnce);
  const auto cat = redist::make_plan(a, b, Region::whole(a), 16, redist::ScheduleKind::Caterpillar);
  ASSERT_GT(cat.steps.size(), all.steps.size());
  EXPECT_GT(redist::predict(base, cat, 8).total_s, redist::predict(base, all, 8).total_s);
  // Raising any one cost never lowers the prediction.
  const double t0 = redist::predict(base, cat, 8).total_s;
  for (std::size_t k = 0; k < redist::kCostParamCount; ++k) {
    auto v = redist::to_array(base);
    v[k] *= 2;
    CostParams dearer = base;
    redist::assign(dearer, v);
    EXPECT_GE(redist::predict(dearer, cat, 8).total_s, t0) << redist::kCostParamNames[k];
  }
  // Fewer cores for the same ranks never help.
  CostParams one = base;
  one.cores_per_node = 1;
  EXPECT_GT(redist::predict(one, cat, 8).total_s, t0);
}

TEST(redistCostModel, JsonRoundTripKeepsEveryParameterAndTheCalibration) {
  CostParams c = some_params();
  c.byte_intra_s = 1.234567890123e-10;
  c.cores_per_node = 6;
  c.inter_node_measured = true;
  const std::string path = temp_path("roundtrip/cost_model.json");
  redist::save_cost_params(c, path, R"({"host":"h","pingpong":[[8,1.5e-6]]})");
  const auto d = redist::load_cost_params(path);
  EXPECT_EQ(redist::to_array(d), redist::to_array(c));
  EXPECT_EQ(d.cores_per_node, 6);
  EXPECT_TRUE(d.inter_node_measured);
  std::ifstream in(path);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("\"byte_intra_node_s\""), std::string::npos);  // readable keys
  EXPECT_EQ(redist::calibration_of(text), R"({"host":"h","pingpong":[[8,1.5e-06]]})");
  std::filesystem::remove_all(std::filesystem::path(path).parent_path());
}

TEST(redistCostModel, BadFilesAreRejectedNamingTheFileAndKey) {
  auto message_of = [](const std::string& text) {
    try {
      redist::parse_cost_params(text, "/x/cost.json");
    } catch (const redist::Error& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  const std::string good = redist::cost_params_to_json(some_params());
  EXPECT_EQ(message_of(good), "accepted");
  EXPECT_NE(message_of("{ not json").find("/x/cost.json: not valid JSON"), std::string::npos);
  EXPECT_NE(message_of("[1,2]").find("expected a JSON object, found array"), std::string::npos);
  EXPECT_NE(message_of(R"({"format":"other","version":1})").find("\"format\" must be"), std::string::npos);
  auto edit = [&](const std::string& key, const std::string& value) {
    std::string t = good;
    const auto k = t.find("\"" + key + "\"");
    const auto colon = t.find(':', k), end = t.find_first_of(",\n}", colon);
    return t.replace(colon + 1, end - colon - 1, " " + value);
  };
  EXPECT_NE(message_of(edit("version", "2")).find("\"version\" must be 1, found 2"), std::string::npos);
  EXPECT_NE(message_of(edit("step_s", "-1e-6")).find("\"step_s\" = -1e-06 must be finite and >= 0"),
            std::string::npos);
  EXPECT_NE(message_of(edit("byte_intra_node_s", "\"fast\"")).find("\"byte_intra_node_s\" = \"fast\" is not a number"),
            std::string::npos);
  EXPECT_NE(message_of(edit("cores_per_node", "-2")).find("\"cores_per_node\" = -2"), std::string::npos);
  std::string missing = good;
  missing.erase(missing.find("\"call_s\""), missing.find('\n', missing.find("\"call_s\"")) - missing.find("\"call_s\"") + 1);
  EXPECT_NE(message_of(missing).find("\"call_s\" is missing"), std::string::npos);
  try {
    redist::load_cost_params("/nonexistent/dir/cost_model.json");
    FAIL() << "a missing file was accepted";
  } catch (const redist::Error& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/dir/cost_model.json: cannot be read"), std::string::npos);
  }
}

TEST(redistCostModel, RefusesPlansWithoutSizesAndShortNodeMaps) {
  const auto a = Layout::block_cyclic(40, 40, 8, 8, 2, 2);
  const auto b = Layout::block_cyclic(40, 40, 8, 8, 3, 3);
  const auto one_rank = redist::make_plan(a, b, Region::whole(a), 9, redist::ScheduleKind::Matching, 0);
  EXPECT_THROW(redist::cost_features(one_rank, 8), redist::Error);
  const auto full = redist::make_plan(a, b, Region::whole(a), 9);
  const int short_map[] = {0, 0, 0};
  EXPECT_THROW(redist::cost_features(full, 8, short_map), redist::Error);
  EXPECT_THROW(redist::cost_features(full, 0), redist::Error);
}

TEST(redistCostModel, DefaultPathFollowsEnvironment) {
  ::setenv("REDIST_COST_MODEL", "/tmp/explicit.json", 1);
  EXPECT_EQ(redist::default_cost_model_path(), "/tmp/explicit.json");
  ::unsetenv("REDIST_COST_MODEL");
  ::setenv("XDG_CACHE_HOME", "/tmp/xdg", 1);
  EXPECT_EQ(redist::default_cost_model_path(), "/tmp/xdg/malleable/cost_model.json");
  ::unsetenv("XDG_CACHE_HOME");
  ::setenv("HOME", "/home/u", 1);
  EXPECT_EQ(redist::default_cost_model_path(), "/home/u/.cache/malleable/cost_model.json");
}
