// SPDX-License-Identifier: BSD-3-Clause
// The time-limit rule, pure (malleable/cluster/time_limit.hpp).
#include "malleable/cluster/time_limit.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace cluster::limits {

double EndPrediction::end() const {
  return now + resize_s + static_cast<double>(iterations_left) * (iteration_s + overhead_s);
}

LimitVerdict keeps_limit(const EndPrediction& p, double deadline) {
  LimitVerdict v;
  v.predicted_end = p.end();
  v.deadline = deadline;
  if (std::isinf(deadline) || v.predicted_end <= deadline) return v;
  v.ok = false;
  char buf[160];
  std::snprintf(buf, sizeof buf, "predicted end %.0f s, %.0f s past the time limit at %.0f s", v.predicted_end,
                v.predicted_end - deadline, deadline);
  v.why = buf;
  return v;
}

int fewest_within(int lo, int hi, double deadline, const std::function<double(int)>& end_on) {
  if (lo < 1 || hi < lo) throw std::invalid_argument("fewest_within: need 1 <= lo <= hi");
  if (std::isinf(deadline)) return lo;
  for (int n = lo; n <= hi; ++n)
    if (end_on(n) <= deadline) return n;
  return hi;
}

LimitExtension extend_with_size(double now, double deadline, double cap, double t_from, double t_to, double cost_s) {
  LimitExtension e;
  if (!(deadline > now) || deadline == kNoLimit || !(t_from > 0)) return e;
  const double left = deadline - now;
  const double by = cost_s + left * t_to / t_from - left;
  e.cut_s = std::max(0.0, deadline + by - std::max(deadline, cap));
  e.by_s = std::max(0.0, std::min(by, cap - deadline));
  return e;
}

StartLimit limit_at_start(double limit_s, int start_nodes, int top_nodes, double t_start, double t_top) {
  StartLimit r;
  r.limit_s = r.cap_s = limit_s;
  if (!(limit_s > 0) || !std::isfinite(limit_s) || start_nodes < 1 || top_nodes <= start_nodes) return r;
  const double most = static_cast<double>(top_nodes) / start_nodes;
  r.modelled = t_start > 0 && t_top > 0 && std::isfinite(t_start) && std::isfinite(t_top);
  const double ratio = r.modelled ? t_start / t_top : most;
  r.ratio = std::min(ratio, most);
  r.cap_s = limit_s * most;
  r.limit_s = limit_s * r.ratio;
  r.cut_s = limit_s * (ratio - r.ratio);
  return r;
}

std::optional<LimitRaise> raise_at_start(double limit_s, int start_nodes, int top_nodes, double t_start, double t_top) {
  const StartLimit l = limit_at_start(limit_s, start_nodes, top_nodes, t_start, t_top);
  if (!(l.limit_s > limit_s)) return std::nullopt;
  LimitRaise r;
  r.old_min = std::lround(limit_s / 60);
  const long cap_min = static_cast<long>(std::floor(l.cap_s / 60 + 1e-9));
  r.new_min = std::min(static_cast<long>(std::ceil(l.limit_s / 60 - 1e-9)), cap_min);
  if (r.new_min <= r.old_min) return std::nullopt;
  r.by_s = l.limit_s - limit_s;
  r.cut_s = l.cut_s;
  r.cap_s = l.cap_s;
  r.ratio = l.ratio;
  char buf[320];
  std::snprintf(buf, sizeof buf,
                "started on %d of the %d node(s) at the top of its range: its limit of %.0f s scaled by %.3f (%s): "
                "+%.0f s%s (cap %.0f s: the limit x %d/%d)",
                start_nodes, top_nodes, limit_s, l.ratio, l.modelled ? "its model" : "perfect scaling", r.by_s,
                l.cut_s > 0 ? ", capped" : "", l.cap_s, top_nodes, start_nodes);
  r.why = buf;
  return r;
}

std::optional<double> slurm_limit_s(double start_s, double time_left_s, double now) {
  if (!(time_left_s >= 0) || !(start_s > 0) || !(now >= start_s) || !std::isfinite(time_left_s) || !std::isfinite(now))
    return std::nullopt;
  const double minutes = std::round((now - start_s + time_left_s) / 60);
  if (minutes < 1 || minutes > 1e9) return std::nullopt;
  return minutes * 60;
}

std::optional<LimitRaise> raise_expander(double job_start_s, double job_limit_s, double exp_start_s, double exp_limit_s) {
  for (const double v : {job_start_s, job_limit_s, exp_start_s, exp_limit_s})
    if (!std::isfinite(v) || v <= 0) return std::nullopt;
  if (exp_start_s < job_start_s) return std::nullopt;
  const double end = job_start_s + job_limit_s;
  if (exp_start_s + exp_limit_s >= end) return std::nullopt;
  LimitRaise r;
  r.old_min = std::lround(exp_limit_s / 60);
  r.new_min = static_cast<long>(std::ceil((end - exp_start_s) / 60 - 1e-9));
  if (r.new_min <= r.old_min || r.new_min > 1000000000L) return std::nullopt;
  r.by_s = 60.0 * (r.new_min - r.old_min);
  r.cap_s = end;
  char buf[200];
  std::snprintf(buf, sizeof buf, "ends with its job: the job's end %.0f s after the expander's start, %ld min rounded up",
                end - exp_start_s, r.new_min);
  r.why = buf;
  return r;
}

double limit_cap(const LimitBook& book, int nodes_after, double cost_s) {
  if (nodes_after < 1 || book.start_nodes < 1 || !(book.submitted_s > 0)) return book.start_s + std::max(0.0, book.submitted_s);
  const double cost = std::clamp(std::isfinite(cost_s) ? cost_s : 0.0, 0.0, kMaxResizeCostS);
  return book.start_s + book.submitted_s * std::max(1.0, static_cast<double>(book.start_nodes) / nodes_after) +
         book.costs_s + cost;
}

std::optional<LimitRaise> raise_for_give_back(const LimitBook& book, double limit_s, double now, int nodes_after,
                                              double t_from, double t_to, int from_ranks, int to_ranks, double cost_s) {
  if (!(limit_s > 0) || nodes_after < 1 || !std::isfinite(now)) return std::nullopt;
  LimitRaise r;
  const bool modelled = t_from > 0 && t_to > 0 && std::isfinite(t_from) && std::isfinite(t_to);
  if (modelled) {
    r.ratio = t_to / t_from;
  } else if (from_ranks > 0 && to_ranks > 0 && to_ranks < from_ranks) {
    r.ratio = static_cast<double>(from_ranks) / to_ranks;
  } else {
    return std::nullopt;
  }
  const double cost = std::clamp(std::isfinite(cost_s) ? cost_s : 0.0, 0.0, kMaxResizeCostS);
  r.cap_s = limit_cap(book, nodes_after, cost);
  const double deadline = book.start_s + limit_s;
  // the model's own times when it has them (the simulator's call exactly), else the ratio
  const LimitExtension e = modelled ? extend_with_size(now, deadline, r.cap_s, t_from, t_to, cost)
                                    : extend_with_size(now, deadline, r.cap_s, 1.0, r.ratio, cost);
  r.by_s = e.by_s;
  r.cut_s = e.cut_s;
  r.old_min = std::lround(limit_s / 60);
  // Slurm's whole minutes rounded up within the cap, as at a start: floored, every raise of
  // under a minute was lost, and a job giving back one node at a time was never raised
  const long cap_min = static_cast<long>(std::floor((r.cap_s - book.start_s) / 60 + 1e-9));
  r.new_min = std::min(static_cast<long>(std::ceil((limit_s + e.by_s) / 60 - 1e-9)), cap_min);
  if (!(e.by_s > 0) || r.new_min <= r.old_min) return std::nullopt;
  char buf[320];
  std::snprintf(buf, sizeof buf,
                "a give-back to %d node(s): %.0f s of its limit left, scaled by %.3f (%s), plus a %.0f-s resize: +%.0f s%s "
                "(cap %.0f s after its start: %.0f s submitted on %d node(s), %.0f s of resizes)",
                nodes_after, std::max(0.0, deadline - now), r.ratio, modelled ? "its model" : "perfect scaling", cost,
                e.by_s, e.cut_s > 0 ? ", capped" : "", r.cap_s - book.start_s, book.submitted_s, book.start_nodes,
                book.costs_s + cost);
  r.why = buf;
  return r;
}

}  // namespace cluster::limits
