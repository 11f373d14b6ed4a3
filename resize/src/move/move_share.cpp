// SPDX-License-Identifier: BSD-3-Clause
// One rank's share of a redistribution (move_share.hpp) and the batches a move with a
// budget goes in (move_batches.hpp): every process plans them alike. Pure.
#include "move/move_share.hpp"
#include "move/move_batches.hpp"

#include <algorithm>
#include <map>
#include <numeric>
#include <string>

#include "malleable/redist/layout.hpp"

namespace resize::detail {

namespace {

// The cost model's per-rank work of a load, in seconds, in this regime (redist's one rule).
double work_of(const redist::CostParams& p, const CostRegime& g, const redist::RankLoad& r) {
  return redist::rank_work_s(p, r, g.sleeping, g.spin_weight);
}

}  // namespace

CostRegime cost_regime(const redist::CostParams& params, std::span<const int> node_of_rank, int comm_size) {
  int crowd = comm_size;
  if (!node_of_rank.empty()) {
    std::map<int, int> on;  // nodes, not ranks: O(P log nodes) over the session's node map
    crowd = 0;
    for (int n : node_of_rank) crowd = std::max(crowd, ++on[n]);
  }
  const redist::Crowding c = redist::crowding(params, crowd);  // the model's own rule (Waiting::Auto)
  CostRegime g;
  g.share = c.share;
  g.sleeping = c.sleeping;
  g.spin_weight = c.spin_weight;
  return g;
}

RankShare rank_share(const redist::RedistPlan& plan, std::size_t elem_bytes, std::span<const int> node_of_rank,
                     const redist::CostParams* params, const CostRegime& regime) {
  const int me = plan.materialized_for;
  if (me < 0) throw redist::Error("rank_share: the plan must be rank-local (make_plan with for_rank)");
  if (!node_of_rank.empty() && static_cast<int>(node_of_rank.size()) < plan.comm_size)
    throw redist::Error("rank_share: node_of_rank covers " + std::to_string(node_of_rank.size()) + " ranks, the plan " +
                        std::to_string(plan.comm_size));
  const auto node = [&](int r) { return node_of_rank.empty() ? 0 : node_of_rank[static_cast<std::size_t>(r)]; };
  const auto eb = static_cast<std::int64_t>(elem_bytes);
  RankShare s;
  s.rank = me;
  redist::RankLoad whole;
  for (const auto& t : plan.transfers) {
    if (t.src != me && t.dst != me) continue;
    const std::int64_t e = t.elements();
    if (t.src == t.dst) {
      whole.bytes_local += e * eb;
      s.local += e;
      continue;
    }
    const bool intra = node(t.src) == node(t.dst);
    whole.add_message(intra, e * eb);
    if (t.src != me) continue;
    s.sent += e;
    (intra ? s.sent_intra : s.sent_inter) += e;
    ++(intra ? s.messages_intra : s.messages_inter);
  }
  if (!params) return s;
  s.whole_s = work_of(*params, regime, whole);
  redist::RankLoad local;
  local.bytes_local = whole.bytes_local;
  s.local_s = work_of(*params, regime, local);
  for (std::size_t k = 0; k < plan.steps.size(); ++k) {
    redist::RankLoad load;
    for (int i : plan.steps[k]) {
      const auto& t = plan.transfers[static_cast<std::size_t>(i)];
      if (t.src == t.dst || (t.src != me && t.dst != me)) continue;
      load.add_message(node(t.src) == node(t.dst), t.elements() * eb);
    }
    if (load.messages_intra + load.messages_inter > 0) s.steps.emplace_back(plan.step_ids[k], work_of(*params, regime, load));
  }
  return s;
}

StepSpan own_span(const RankShare& s) {
  StepSpan sp;
  if (!s.steps.empty()) {
    sp.lo = s.steps.front().first;
    sp.hi = s.steps.back().first;
  }
  return sp;
}

CostSlots cost_slots(const RankShare& s, const StepSpan& span) {
  const std::size_t n = span.slots();
  CostSlots c;
  c.work.assign(n, 0.0);
  c.active.assign(n, 0.0);
  c.message.assign(n, 0.0);
  c.work[0] = s.whole_s;
  c.active[0] = 1;  // every rank counts towards its node's ranks in the whole plan
  for (const auto& [id, w] : s.steps) {
    if (id < span.lo || id > span.hi) throw redist::Error("cost_slots: step " + std::to_string(id) + " outside the job's span");
    const auto k = 1 + static_cast<std::size_t>(id - span.lo);
    c.work[k] += w;
    c.active[k] = 1;
    c.message[k] = 1;
  }
  // Local copies count in the job's first step (cost_features' step 0).
  if (s.local > 0) {
    c.work[1] += s.local_s;
    c.active[1] = 1;
  }
  return c;
}

std::vector<double> node_bounds(const redist::CostParams& params, std::span<const double> work_sum,
                                std::span<const double> active_sum) {
  std::vector<double> b(work_sum.size(), 0.0);
  if (params.cores_per_node <= 0) return b;
  for (std::size_t k = 0; k < b.size(); ++k)
    if (active_sum[k] > 0) b[k] = work_sum[k] / std::min(static_cast<double>(params.cores_per_node), active_sum[k]);
  return b;
}

double predicted_seconds(const redist::CostParams& params, const CostRegime& regime, std::span<const double> rank_max,
                         std::span<const double> node_max, std::span<const double> active_max,
                         std::span<const double> message_max) {
  const double whole = std::max(rank_max[0], node_max[0]);
  double stepwise = 0;
  int steps = 0;
  for (std::size_t k = 1; k < rank_max.size(); ++k) {
    if (active_max[k] > 0) stepwise += std::max(rank_max[k], node_max[k]);
    if (message_max[k] > 0) ++steps;
  }
  const double overhead =
      regime.share * (params.call_s + steps * (params.step_s + (regime.sleeping ? params.sleep_step_s : 0.0)));
  return overhead + std::max(whole, stepwise);
}

// The move's batches (move_batches.hpp).
std::vector<MoveBatch> plan_move_batches(std::span<const std::int64_t> max_new_bytes, std::int64_t budget_bytes) {
  std::vector<MoveBatch> out;
  for (std::size_t k = 0; k < max_new_bytes.size(); ++k) {
    const std::int64_t b = max_new_bytes[k];
    const bool fits = !out.empty() && (budget_bytes <= 0 || out.back().bytes + b <= budget_bytes);
    if (fits) {
      out.back().end = k + 1;
      out.back().bytes += b;
    } else {
      out.push_back({k, k + 1, b});
    }
  }
  return out;
}

std::int64_t held_peak(std::span<const std::int64_t> old_bytes, std::span<const std::int64_t> new_bytes,
                       std::span<const MoveBatch> batches) {
  // Before batch b: every old buffer from b on, every new one before b.
  std::int64_t old_left = std::accumulate(old_bytes.begin(), old_bytes.end(), std::int64_t{0});
  std::int64_t new_done = 0, peak = 0;
  for (const MoveBatch& b : batches) {
    std::int64_t new_here = 0, old_here = 0;
    for (std::size_t k = b.begin; k < b.end; ++k) {
      new_here += new_bytes[k];
      old_here += old_bytes[k];
    }
    peak = std::max(peak, old_left + new_done + new_here);
    old_left -= old_here;  // committed: the batch's old buffers are freed
    new_done += new_here;
  }
  return peak;
}

}  // namespace resize::detail
