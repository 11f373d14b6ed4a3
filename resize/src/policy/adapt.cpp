// SPDX-License-Identifier: BSD-3-Clause
#include "malleable/resize/adapt.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <optional>

#include "malleable/gridmap/hetero.hpp"
#include "malleable/redist/cost_model.hpp"
#include "malleable/redist/plan.hpp"

namespace resize {

namespace {

std::string fmt(const char* f, double v) {
  char b[64];
  std::snprintf(b, sizeof b, f, v);
  return b;
}

redist::Layout layout_for(const Grid& g, const std::vector<long long>& rows, const std::vector<long long>& cols) {
  std::vector<std::int64_t> rb(rows.begin(), rows.end()), cb(cols.begin(), cols.end());
  return redist::Layout::from_blocks(rb, cb, g.nprow, g.npcol, 0, 0, g.rank_map());
}

// T_Th of a layout with measured speeds: the slowest process's share of the compute.
double layout_compute_time(const Grid& g, const std::vector<long long>& rows, const std::vector<long long>& cols,
                           const std::vector<double>& speed) {
  std::vector<double> work, sp;
  for (int i = 0; i < g.nprow; ++i)
    for (int j = 0; j < g.npcol; ++j) {
      work.push_back(static_cast<double>(rows[static_cast<std::size_t>(i)]) * static_cast<double>(cols[static_cast<std::size_t>(j)]));
      sp.push_back(speed[static_cast<std::size_t>(g.rank_at(i, j))]);
    }
  return compute_time(work, sp);
}

}  // namespace

namespace {
void check_input(const AdaptInput& in, const LayoutSizes& sizes) {
  const int P = in.world_size;
  if (P < 1 || static_cast<int>(in.speeds.size()) != P || static_cast<int>(in.samples.size()) != P)
    throw Error("plan_adaptation: speeds and samples must hold one value per world rank (" + std::to_string(P) + ")");
  if (!in.powers.empty() && static_cast<int>(in.powers.size()) != P)
    throw Error("plan_adaptation: powers must be empty or hold one value per world rank");
  if (in.m < 1 || in.n < 1) throw Error("plan_adaptation: the matrix must be at least 1 x 1");
  if (!(in.t_iteration > 0) || !std::isfinite(in.t_iteration))
    throw Error("plan_adaptation: the measured iteration time must be > 0");
  if (!sizes) throw Error("plan_adaptation: no layout function");
}

// The best net gain among the candidates that pay and beat the noise threshold, or why
// none was taken.
void choose(AdaptPlan& plan, const AdaptInput& in, const AdaptOptions& opt) {
  double best = 0;
  for (const auto& c : plan.considered) {
    const auto& p = c.prediction;
    if (!(p.t_iter_new < in.t_iteration * (1.0 - opt.min_gain))) continue;
    const bool pays = in.remaining >= 0 ? p.gain > opt.margin * p.t_resize : p.pays;
    if (!pays) continue;
    const double net = in.remaining >= 0 ? p.gain - p.t_resize : in.t_iteration - p.t_iter_new;
    if (!plan.chosen || net > best) {
      best = net;
      plan.chosen = c;
    }
  }
  if (plan.chosen) {
    plan.why = plan.chosen->what + ": " + plan.chosen->prediction.why;
  } else {
    // Say why the most promising candidate was not taken.
    const AdaptCandidate* top = nullptr;
    for (const auto& c : plan.considered)
      if (!top || c.prediction.t_iter_new < top->prediction.t_iter_new) top = &c;
    plan.why = top ? "stay (best: " + top->what + ", " + top->prediction.why + ")" : "stay (nothing to consider)";
  }
}
}  // namespace

namespace {

// The grid's world ranks, each checked to be in the world.
std::vector<int> checked_grid_ranks(const AdaptInput& in) {
  const std::vector<int> grid_ranks = in.grid.rank_map();
  for (int r : grid_ranks)
    if (r < 0 || r >= in.world_size)
      throw Error("plan_adaptation: the grid holds rank " + std::to_string(r) + " outside the world");
  return grid_ranks;
}

// The first rank not measured enough yet (on the grid or by its probe), or -1.
int unmeasured_rank(const AdaptInput& in, const AdaptOptions& opt) {
  for (int r = 0; r < in.world_size; ++r)
    if (in.samples[static_cast<std::size_t>(r)] < opt.min_samples || !(in.speeds[static_cast<std::size_t>(r)] > 0))
      return r;
  return -1;
}

// Prices candidates against the current layout: the measured powers (speeds relative to
// the fastest), the layout now (sizes from the powers in use) and its T_Th.
struct Pricing {
  const AdaptInput& in;
  const LayoutSizes& sizes;
  const redist::CostParams* cost;
  const ResizeHistory* history;
  const AdaptOptions& opt;
  std::vector<double> measured;
  double tc_now = 0;
  redist::Layout la;  // the current layout

  Pricing(const AdaptInput& i, const LayoutSizes& s, const redist::CostParams* c, const ResizeHistory* h,
          const AdaptOptions& o)
      : in(i), sizes(s), cost(c), history(h), opt(o), measured(i.speeds.size()) {
    const double vmax = *std::max_element(in.speeds.begin(), in.speeds.end());
    for (std::size_t k = 0; k < measured.size(); ++k) measured[k] = in.speeds[k] / vmax;
    const std::vector<double> now_powers =
        in.powers.empty() ? std::vector<double>(static_cast<std::size_t>(in.world_size), 1.0) : in.powers;
    std::vector<long long> rows0, cols0;
    sizes(in.grid, now_powers, rows0, cols0);
    tc_now = layout_compute_time(in.grid, rows0, cols0, in.speeds);
    la = layout_for(in.grid, rows0, cols0);
  }

  // The redistribution's time for plan rp: the cost model's, else (uncalibrated) the bytes
  // on the line through the earlier resizes' redistributions (as the session predicts them;
  // it has the fixed cost of a redistribution that a rate alone misses), the rate only
  // before the first resize. `from_history`: set when the history predicted it.
  double redistribution_time(const redist::RedistPlan& rp, std::optional<double>& from_history) const {
    const double bytes = static_cast<double>(rp.stats.elements_moved) * static_cast<double>(opt.elem_bytes);
    if (cost) return redist::predict(*cost, rp, opt.elem_bytes).total_s;
    if (history && (from_history = history->predict_redist(bytes))) return *from_history;
    return bytes / opt.fallback_bytes_per_s;
  }

  // Candidate `what` on grid g with the measured powers: its T_Th, the iteration time
  // scaled from the measured one, and the payoff of the resize to it.
  AdaptCandidate price(const std::string& what, const Grid& g) const {
    AdaptCandidate c;
    c.what = what;
    c.grid = Grid{g.nprow, g.npcol, g.rank_map()};
    c.powers = measured;
    std::vector<long long> rows, cols;
    sizes(c.grid, c.powers, rows, cols);
    c.t_compute = layout_compute_time(c.grid, rows, cols, in.speeds);
    const redist::Layout lb = layout_for(c.grid, rows, cols);
    const auto rp = redist::make_plan(la, lb, redist::Region::whole(la), in.world_size);
    std::optional<double> from_history;
    const double t_redist = redistribution_time(rp, from_history);
    double t_other = opt.fallback_other_s;
    if (history)
      if (const auto t = history->predict_other(Action::Regrid, in.grid.size(), c.grid.size())) t_other = *t;
    const double t_new = in.t_iteration * c.t_compute / tc_now;
    c.prediction = predict_payoff(in.t_iteration, t_new, 0.0, t_redist, t_other, in.remaining);
    if (!cost)
      c.prediction.why += from_history ? std::string(" (redistribution uncalibrated: from the resize history)")
                                       : " (redistribution uncalibrated: " + fmt("%.0f", opt.fallback_bytes_per_s / 1e6) + " MB/s)";
    return c;
  }
};

// A set of processes on the topology and arrangement gridmap finds best for their
// measured powers.
Grid best_grid(std::vector<int> set, const std::vector<double>& measured, const AdaptInput& in) {
  std::sort(set.begin(), set.end());
  gridmap::ProcessorPowers pw;
  for (int r : set) pw.values.push_back(measured[static_cast<std::size_t>(r)]);
  const auto map = gridmap::search_topology(pw, in.m, in.n);
  std::vector<int> ranks;
  for (int id : map.ids) ranks.push_back(set[static_cast<std::size_t>(id)]);
  return Grid{map.grid.rows, map.grid.cols, ranks};
}

}  // namespace

AdaptPlan plan_adaptation(const AdaptInput& in, const LayoutSizes& sizes, const redist::CostParams* cost,
                          const ResizeHistory* history, const AdaptOptions& opt) {
  check_input(in, sizes);
  const int P = in.world_size;

  AdaptPlan plan;
  if (P > kMaxAdaptRanks) {
    plan.why = "stay: adaptation weighs at most " + std::to_string(kMaxAdaptRanks) + " ranks (each candidate is priced "
               "with the whole job's redistribution plan, O(P^2) on one process); this world has " + std::to_string(P);
    return plan;
  }
  const std::vector<int> grid_ranks = checked_grid_ranks(in);
  // Every process must have been measured enough (on the grid or by its probe).
  if (const int r = unmeasured_rank(in, opt); r >= 0) {
    plan.why = "waiting for speed samples of rank " + std::to_string(r);
    return plan;
  }
  const Pricing pricing(in, sizes, cost, history, opt);
  const auto consider = [&](const std::string& what, const Grid& g) { plan.considered.push_back(pricing.price(what, g)); };
  const auto best = [&](const std::vector<int>& set) { return best_grid(set, pricing.measured, in); };

  // Re-weight: the same grid and arrangement, sizes from the measured powers.
  const Grid current{in.grid.nprow, in.grid.npcol, grid_ranks};
  if (opt.reweight) consider("re-weight", current);
  // The same processes re-mapped (e.g. back to 2x2 from 1x4 once a load is gone).
  if (opt.reweight)
    if (const Grid g = best(grid_ranks); !(g == current)) consider("re-map to " + g.shape(), g);
  // Drop: without one process of the grid (one whose participation slows the job).
  if (opt.drop && grid_ranks.size() > 1)
    for (int r : grid_ranks) {
      std::vector<int> set;
      for (int x : grid_ranks)
        if (x != r) set.push_back(x);
      consider("drop rank " + std::to_string(r), best(set));
    }
  // With one process from off the grid back.
  if (opt.give_back)
    for (int r = 0; r < P; ++r)
      if (std::find(grid_ranks.begin(), grid_ranks.end(), r) == grid_ranks.end()) {
        std::vector<int> set = grid_ranks;
        set.push_back(r);
        consider("return rank " + std::to_string(r), best(set));
      }

  choose(plan, in, opt);
  return plan;
}

}  // namespace resize
