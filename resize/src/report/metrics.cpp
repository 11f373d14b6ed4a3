// SPDX-License-Identifier: BSD-3-Clause
#include "malleable/resize/metrics.hpp"

#include <algorithm>
#include <cmath>
#include <map>

namespace resize {

std::string to_string(Clock c) {
  switch (c) {
    case Clock::Dedicated: return "dedicated";
    case Clock::Compute: return "compute";
    case Clock::Wall: break;
  }
  return "wall";
}

Clock clock_named(const std::string& name) {
  return name == "compute" ? Clock::Compute : name == "dedicated" ? Clock::Dedicated : Clock::Wall;
}

std::string to_string(PredictedBy p) {
  switch (p) {
    case PredictedBy::CostModel: return "cost model";
    case PredictedBy::History: return "history";
    case PredictedBy::None: break;
  }
  return "";
}

std::string to_string(BackgroundProgress p) {
  return p == BackgroundProgress::ProgressCalls ? "progress calls" : "helper thread";
}

RankHosts RankHosts::of(const std::vector<std::string>& rank_hosts) {
  RankHosts h;
  std::map<std::string, int> index;  // nodes, not ranks
  for (const auto& name : rank_hosts) {
    const auto [it, fresh] = index.emplace(name, static_cast<int>(h.hosts.size()));
    if (fresh) h.hosts.push_back(name);
    if (!h.runs.empty() && h.runs.back().first == it->second)
      ++h.runs.back().second;
    else
      h.runs.emplace_back(it->second, 1);
  }
  return h;
}

int RankHosts::ranks() const {
  int n = 0;
  for (const auto& r : runs) n += r.second;
  return n;
}

std::vector<std::string> RankHosts::expand() const {
  std::vector<std::string> out;
  for (const auto& [node, count] : runs) out.insert(out.end(), static_cast<std::size_t>(count), hosts[static_cast<std::size_t>(node)]);
  return out;
}

std::optional<std::int64_t> payoff_point(double t_r, double t_p1, double t_p2) {
  const double gain = t_p1 - t_p2;
  if (!(gain > 0.0)) return std::nullopt;
  return static_cast<std::int64_t>(std::ceil(t_r / gain));
}

std::int64_t resize_cost(double t_r, double t_p2) {
  if (!(t_p2 > 0.0)) throw Error("resize_cost: t_p2 must be > 0, got " + std::to_string(t_p2));
  return static_cast<std::int64_t>(std::ceil(t_r / t_p2));
}

std::vector<Segment> Metrics::segments() const {
  std::vector<Segment> out;
  std::size_t i = 0;
  while (i < iterations_.size()) {
    std::size_t j = i;
    // A segment ends at a grid change or at a remap point where a resize happened
    // (shrinking 3x3 -> 2x2 -> 3x3 gives three segments even if grids repeat).
    auto resized_after = [&](int it) {
      return std::any_of(resizes_.begin(), resizes_.end(),
                         [&](const ResizeRecord& r) { return r.ok && r.after_iteration == it; });
    };
    while (j + 1 < iterations_.size() && iterations_[j + 1].grid == iterations_[i].grid &&
           !resized_after(iterations_[j].iteration))
      ++j;
    Segment s;
    s.grid = iterations_[i].grid;
    s.procs = iterations_[i].procs;
    s.first_iteration = iterations_[i].iteration;
    s.last_iteration = iterations_[j].iteration;
    const std::size_t from = (j > i) ? i + 1 : i;  // drop the transient first iteration
    std::vector<double> ws, ds, cs;
    for (std::size_t k = from; k <= j; ++k) {
      ws.push_back(iterations_[k].wall);
      ds.push_back(iterations_[k].dedicated);
      cs.push_back(iterations_[k].compute);
    }
    auto mean = [](const std::vector<double>& v) {
      double t = 0;
      for (double x : v) t += x;
      return t / static_cast<double>(v.size());
    };
    auto median = [](std::vector<double> v) {
      std::sort(v.begin(), v.end());
      const std::size_t h = v.size() / 2;
      return v.size() % 2 ? v[h] : 0.5 * (v[h - 1] + v[h]);
    };
    s.mean_wall = mean(ws);
    s.mean_dedicated = mean(ds);
    s.median_wall = median(ws);
    s.median_dedicated = median(ds);
    s.mean_compute = mean(cs);
    s.median_compute = median(cs);
    s.min_wall = *std::min_element(ws.begin(), ws.end());
    s.min_dedicated = *std::min_element(ds.begin(), ds.end());
    out.push_back(s);
    i = j + 1;
  }
  return out;
}

std::vector<ResizeAnalysis> Metrics::analyse() const {
  const auto segs = segments();
  std::vector<ResizeAnalysis> out;
  for (const auto& r : resizes_) {
    ResizeAnalysis a;
    a.record = r;
    for (const auto& s : segs) {
      if (s.last_iteration == r.after_iteration) a.before = s;
      if (s.first_iteration == r.after_iteration + 1) a.after = s;
    }
    if (r.ok && a.before && a.after) {
      a.payoff_wall = payoff_point(r.t_total, a.before->median_wall, a.after->median_wall);
      a.payoff_dedicated = payoff_point(r.t_total, a.before->median_dedicated, a.after->median_dedicated);
      if (a.after->median_wall > 0) a.cost_wall = resize_cost(r.t_total, a.after->median_wall);
      if (a.after->median_dedicated > 0)
        a.cost_dedicated = resize_cost(r.t_total, a.after->median_dedicated);
      a.payoff_compute = payoff_point(r.t_total, a.before->median_compute, a.after->median_compute);
      if (a.after->median_compute > 0) a.cost_compute = resize_cost(r.t_total, a.after->median_compute);
    }
    out.push_back(a);
  }
  return out;
}

std::optional<double> Metrics::current_time(int min_iters, bool dedicated) const {
  const auto segs = segments();
  if (segs.empty()) return std::nullopt;
  const Segment& s = segs.back();
  // Steady-state iterations exclude the transient first one.
  const int steady = s.count() > 1 ? s.count() - 1 : 1;
  if (steady < min_iters) return std::nullopt;
  return dedicated ? s.median_dedicated : s.median_wall;
}

}  // namespace resize
