// SPDX-License-Identifier: BSD-3-Clause
#include "easy.hpp"

#include <algorithm>
#include <cmath>

#include "workload.hpp"

namespace clustersim {

double Waiting::estimate_on(int n) const {
  const double sf = serial_fraction;
  const auto t = [&](int k) { return sf + (1 - sf) / k + (comm_fraction > 0 ? comm_fraction * std::log2(k) : 0.0); };
  if (limit) return limit_nodes > 0 && n < limit_nodes ? estimate_s * t(n) / t(limit_nodes) : estimate_s;
  if (n == nodes) return estimate_s;
  return estimate_s * t(n) / t(nodes);
}

EasyResult easy_backfill(double now, int idle, int total, const std::vector<Waiting>& queue,
                         std::vector<Running> running, bool ranges) {
  EasyResult r;
  auto lowest = [ranges](const Waiting& w) { return ranges && w.min_nodes > 0 ? std::min(w.min_nodes, w.nodes) : w.nodes; };
  for (const auto& w : queue)
    if (w.nodes < 1 || w.nodes > total)
      throw Error("job " + w.id + " asks for " + std::to_string(w.nodes) + " of " + std::to_string(total) + " nodes");
  std::size_t head = 0;
  for (; head < queue.size() && lowest(queue[head]) <= idle; ++head) {
    const int n = std::min(queue[head].nodes, idle);
    r.start.push_back({head, n});
    idle -= n;
    running.push_back({n, now + queue[head].estimate_on(n)});
  }
  if (head == queue.size()) return r;
  // The head's reservation: running jobs end by their estimates, earliest first.
  std::sort(running.begin(), running.end(),
            [](const Running& a, const Running& b) { return a.estimated_end < b.estimated_end; });
  const int need = lowest(queue[head]) == queue[head].nodes ? queue[head].nodes : lowest(queue[head]);
  int avail = idle;
  r.shadow = now;
  for (const auto& job : running) {
    if (avail >= need) break;
    avail += job.nodes;
    r.shadow = std::max(now, job.estimated_end);
  }
  r.extra = avail - need;
  for (std::size_t k = head + 1; k < queue.size() && idle > 0; ++k) {
    const auto& w = queue[k];
    int n = std::min(w.nodes, idle);
    if (n < lowest(w)) continue;
    bool ends_before = now + w.estimate_on(n) <= r.shadow;
    if (!ends_before) {
      n = std::min(n, r.extra);
      if (n < lowest(w)) continue;
      ends_before = now + w.estimate_on(n) <= r.shadow;
    }
    r.start.push_back({k, n});
    idle -= n;
    if (!ends_before) r.extra -= n;
  }
  return r;
}

namespace {

// Free nodes over time: free[i] from at[i] until at[i + 1] (the last for ever).
struct Profile {
  std::vector<double> at;
  std::vector<int> free;
  std::size_t point(double t) {  // index of the breakpoint at t, inserted if new
    auto it = std::lower_bound(at.begin(), at.end(), t);
    const std::size_t i = static_cast<std::size_t>(it - at.begin());
    if (it != at.end() && *it == t) return i;
    free.insert(free.begin() + static_cast<std::ptrdiff_t>(i), free[i - 1]);
    at.insert(it, t);
    return i;
  }
  bool fits(double t, double dur, int k) const {
    for (std::size_t i = 0; i < at.size(); ++i) {
      const double end = i + 1 < at.size() ? at[i + 1] : t + dur + 1;
      if (end > t && at[i] < t + dur && free[i] < k) return false;
    }
    return true;
  }
  double earliest(int k, double dur) const {
    for (double t : at)
      if (fits(t, dur, k)) return t;
    return at.back();
  }
  void take(double t, double dur, int k) {
    const std::size_t a = point(t), b = point(t + dur);
    for (std::size_t i = a; i < b; ++i) free[i] -= k;
  }
};

}  // namespace

double Resolution::down(double t) const {
  return step > 0 ? std::floor((t + origin) / step) * step - origin : t;
}
double Resolution::up(double t) const {
  return step > 0 ? std::ceil((t + origin) / step) * step - origin : t;
}

EasyResult conservative_backfill(double now, int idle, int total, const std::vector<Waiting>& queue,
                                 const std::vector<Running>& running, bool ranges, Resolution res) {
  for (const auto& w : queue)
    if (w.nodes < 1 || w.nodes > total)
      throw Error("job " + w.id + " asks for " + std::to_string(w.nodes) + " of " + std::to_string(total) + " nodes");
  std::vector<Running> ends = running;
  std::sort(ends.begin(), ends.end(), [](const Running& a, const Running& b) { return a.estimated_end < b.estimated_end; });
  Profile p{{now}, {idle}};
  for (const auto& r : ends) {  // a job past its estimate still holds its nodes now
    const std::size_t i = p.point(std::max(r.estimated_end, std::nextafter(now, now + 1)));
    for (std::size_t k = i; k < p.free.size(); ++k) p.free[k] += r.nodes;
  }
  EasyResult out;
  for (std::size_t q = 0; q < queue.size(); ++q) {
    const Waiting& w = queue[q];
    const int lowest = ranges && w.min_nodes > 0 ? std::min(w.min_nodes, w.nodes) : w.nodes;
    int n = 0;
    for (int k = w.nodes; k >= lowest && n == 0; --k)
      if (p.fits(now, w.estimate_on(k), k)) n = k;
    if (n > 0) {
      out.start.push_back({q, n});
      p.take(now, res.up(now + w.estimate_on(n)) - now, n);
      continue;
    }
    const double dur = w.estimate_on(lowest);
    const double at = p.earliest(lowest, dur);
    const double from = std::max(now, res.down(at));
    p.take(from, res.up(at + dur) - from, lowest);
  }
  return out;
}

}  // namespace clustersim
