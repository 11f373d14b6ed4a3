// SPDX-License-Identifier: BSD-3-Clause
#include "easy.hpp"

#include <algorithm>

#include "workload.hpp"

namespace clustersim {

double Waiting::estimate_on(int n) const {
  if (n == nodes) return estimate_s;
  const double sf = serial_fraction;
  return estimate_s * (sf + (1 - sf) / n) / (sf + (1 - sf) / nodes);
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

}  // namespace clustersim
