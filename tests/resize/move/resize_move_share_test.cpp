// SPDX-License-Identifier: BSD-3-Clause
// a resize's job-wide redistribution figures from rank-local plans. Every
// rank's share (move_share.hpp), reduced by sums and maxima the way the MPI shell's
// allreduces do, gives exactly the whole plan's figures: plan_stats' elements moved,
// node_traffic's within/between-node elements and messages, and the cost model's
// prediction (with and without node bounds, spinning and sleeping regimes, every schedule).
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "malleable/redist/cost_model.hpp"
#include "malleable/redist/plan.hpp"
#include "malleable/redist/traffic.hpp"
#include "move/move_share.hpp"

using redist::Layout;
using redist::Region;
using redist::ScheduleKind;
using namespace resize::detail;

namespace {

struct Case {
  std::string name;
  Layout a, b;
  int comm;
  std::vector<int> nodes;  // node of each rank (empty: one node)
};

std::vector<Case> cases() {
  std::vector<Case> v;
  // 2x2 -> 4x4 on 16 ranks, 4 per node; the expansion's newcomers on other nodes.
  v.push_back({"2x2->4x4", Layout::block_cyclic(96, 80, 4, 4, 2, 2), Layout::block_cyclic(96, 80, 4, 4, 4, 4), 16,
               {0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3}});
  v.push_back({"4x4->3x3 coprime shrink", Layout::block_cyclic(150, 130, 3, 3, 4, 4),
               Layout::block_cyclic(150, 130, 3, 3, 3, 3), 16, {0, 1, 0, 1, 0, 1, 0, 1, 2, 2, 2, 2, 2, 2, 2, 2}});
  v.push_back({"2x3->3x2 nb 2->5", Layout::block_cyclic(77, 91, 2, 2, 2, 3), Layout::block_cyclic(77, 91, 5, 5, 3, 2),
               6, {}});
  v.push_back({"4x4->5x5 nb1", Layout::block_cyclic(200, 61, 1, 1, 4, 4), Layout::block_cyclic(200, 61, 1, 1, 5, 5),
               25, {0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 4, 4, 4, 4, 4}});
  v.push_back({"heterogeneous", Layout::from_blocks({9, 20, 5, 30, 6}, {7, 7, 14, 3, 24}, 2, 3, 0, 1, {5, 0, 3, 1, 4, 2}),
               Layout::from_blocks({15, 15, 20, 20}, {11, 11, 11, 11, 11}, 3, 3, 0, 0, {8, 7, 6, 5, 4, 3, 2, 1, 0}), 9,
               {0, 0, 0, 1, 1, 1, 2, 2, 2}});
  // Nothing moves (the same layout): local copies only, no step anywhere.
  v.push_back({"unchanged 2x2", Layout::block_cyclic(40, 40, 4, 4, 2, 2), Layout::block_cyclic(40, 40, 4, 4, 2, 2), 4,
               {0, 0, 1, 1}});
  return v;
}

redist::CostParams params(int cores) {
  redist::CostParams p;
  p.message_intra_s = 2e-6;
  p.byte_intra_s = 3e-10;
  p.message_inter_s = 9e-6;
  p.byte_inter_s = 1.1e-9;
  p.step_s = 4e-6;
  p.call_s = 3e-5;
  p.local_copy_byte_s = 1.5e-10;
  p.sleep_step_s = 7e-6;
  p.sleep_byte_s = 2e-10;
  p.spin_byte_s = 5e-11;
  p.cores_per_node = cores;
  return p;
}

// The MPI shell's reductions done with loops: sums within each node, maxima over the job.
double reduced_prediction(const Case& c, ScheduleKind kind, const redist::CostParams& p, std::size_t eb) {
  const CostRegime g = cost_regime(p, c.nodes, c.comm);
  std::vector<RankShare> shares;
  StepSpan span{0, -1};
  bool any = false;
  for (int r = 0; r < c.comm; ++r) {
    shares.push_back(rank_share(redist::make_plan(c.a, c.b, Region::whole(c.a), c.comm, kind, r), eb, c.nodes, &p, g));
    const StepSpan own = own_span(shares.back());
    if (own.hi < own.lo) continue;
    span.lo = any ? std::min(span.lo, own.lo) : own.lo;
    span.hi = any ? std::max(span.hi, own.hi) : own.hi;
    any = true;
  }
  const std::size_t n = span.slots();
  std::map<int, std::pair<std::vector<double>, std::vector<double>>> node_sum;  // node -> (work, active)
  std::vector<CostSlots> slots;
  for (int r = 0; r < c.comm; ++r) {
    slots.push_back(cost_slots(shares[static_cast<std::size_t>(r)], span));
    auto& [w, a] = node_sum[c.nodes.empty() ? 0 : c.nodes[static_cast<std::size_t>(r)]];
    w.resize(n, 0.0);
    a.resize(n, 0.0);
    for (std::size_t k = 0; k < n; ++k) {
      w[k] += slots.back().work[k];
      a[k] += slots.back().active[k];
    }
  }
  std::vector<double> rank_max(n, 0.0), node_max(n, 0.0), active_max(n, 0.0), message_max(n, 0.0);
  for (int r = 0; r < c.comm; ++r) {
    const auto& s = slots[static_cast<std::size_t>(r)];
    const auto& [w, a] = node_sum[c.nodes.empty() ? 0 : c.nodes[static_cast<std::size_t>(r)]];
    const auto nb = node_bounds(p, w, a);
    for (std::size_t k = 0; k < n; ++k) {
      rank_max[k] = std::max(rank_max[k], s.work[k]);
      node_max[k] = std::max(node_max[k], nb[k]);
      active_max[k] = std::max(active_max[k], s.active[k]);
      message_max[k] = std::max(message_max[k], s.message[k]);
    }
  }
  return predicted_seconds(p, g, rank_max, node_max, active_max, message_max);
}

}  // namespace

TEST(MoveShare, SumsOfRankSharesAreTheWholePlansCounts) {
  for (const auto& c : cases()) {
    SCOPED_TRACE(c.name);
    const auto whole = redist::plan_stats(c.a, c.b, c.comm);
    std::vector<int> nodes = c.nodes;
    if (nodes.empty()) nodes.assign(static_cast<std::size_t>(c.comm), 0);
    const auto t = redist::node_traffic(c.a, c.b, Region::whole(c.a), c.comm, nodes);
    std::int64_t sent = 0, intra = 0, inter = 0, local = 0, mi = 0, mx = 0;
    for (int r = 0; r < c.comm; ++r) {
      const auto s = rank_share(redist::make_plan(c.a, c.b, Region::whole(c.a), c.comm, ScheduleKind::Default, r), 8,
                                c.nodes, nullptr, {});
      EXPECT_EQ(s.sent, s.sent_intra + s.sent_inter);
      sent += s.sent;
      intra += s.sent_intra;
      inter += s.sent_inter;
      local += s.local;
      mi += s.messages_intra;
      mx += s.messages_inter;
    }
    EXPECT_EQ(sent, whole.elements_moved);
    EXPECT_EQ(local, whole.elements_local);
    EXPECT_EQ(mi + mx, whole.messages);
    EXPECT_EQ(intra, t.elements_intra_node);
    EXPECT_EQ(inter, t.elements_inter_node);
    EXPECT_EQ(mi, t.messages_intra_node);
    EXPECT_EQ(mx, t.messages_inter_node);
    EXPECT_EQ(sent > 0, c.name != "unchanged 2x2");
  }
}

TEST(MoveShare, ReducedRankSharesGiveTheWholePlansPrediction) {
  // cores: 0 (no node bound), 2 (node bound, ranks share cores: spinning), 1 with 5 ranks
  // per node... and a crowd above 8 per core (sleeping) on the one-node case.
  for (const auto& c : cases())
    for (auto kind : {ScheduleKind::Caterpillar, ScheduleKind::Circulant, ScheduleKind::Matching,
                      ScheduleKind::AllAtOnce, ScheduleKind::Default})
      for (int cores : {0, 1, 2, 8}) {
        SCOPED_TRACE(c.name + " " + redist::to_string(kind) + " cores " + std::to_string(cores));
        const auto p = params(cores);
        const auto plan = redist::make_plan(c.a, c.b, Region::whole(c.a), c.comm, kind);
        std::vector<int> nodes = c.nodes;
        if (nodes.empty()) nodes.assign(static_cast<std::size_t>(c.comm), 0);
        const double want = redist::predict(p, plan, 16, nodes).total_s;
        const double got = reduced_prediction(c, kind, p, 16);
        EXPECT_NEAR(got, want, 1e-12 * want) << "whole " << want << " reduced " << got;
        EXPECT_GT(want, 0);
      }
}

TEST(MoveShare, RejectsAWholePlanAndAShortNodeMap) {
  const auto a = Layout::block_cyclic(20, 20, 2, 2, 2, 2), b = Layout::block_cyclic(20, 20, 2, 2, 1, 4);
  EXPECT_THROW(rank_share(redist::make_plan(a, b, Region::whole(a), 4), 8, {}, nullptr, {}), redist::Error);
  const std::vector<int> two{0, 0};
  EXPECT_THROW(rank_share(redist::make_plan(a, b, Region::whole(a), 4, ScheduleKind::Default, 1), 8, two, nullptr, {}),
               redist::Error);
}
