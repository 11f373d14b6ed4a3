// SPDX-License-Identifier: BSD-3-Clause
#include "easy.hpp"

#include <algorithm>

#include "workload.hpp"

namespace clustersim {

EasyResult easy_backfill(double now, int idle, int total, const std::vector<Waiting>& queue,
                         std::vector<Running> running) {
  EasyResult r;
  for (const auto& w : queue)
    if (w.nodes < 1 || w.nodes > total)
      throw Error("job " + w.id + " asks for " + std::to_string(w.nodes) + " of " + std::to_string(total) + " nodes");
  std::size_t head = 0;
  for (; head < queue.size() && queue[head].nodes <= idle; ++head) {
    r.start.push_back(head);
    idle -= queue[head].nodes;
    running.push_back({queue[head].nodes, now + queue[head].estimate_s});
  }
  if (head == queue.size()) return r;
  // The head's reservation: running jobs end by their estimates, earliest first.
  std::sort(running.begin(), running.end(),
            [](const Running& a, const Running& b) { return a.estimated_end < b.estimated_end; });
  int avail = idle;
  r.shadow = now;
  for (const auto& job : running) {
    if (avail >= queue[head].nodes) break;
    avail += job.nodes;
    r.shadow = std::max(now, job.estimated_end);
  }
  r.extra = avail - queue[head].nodes;
  for (std::size_t k = head + 1; k < queue.size() && idle > 0; ++k) {
    const auto& w = queue[k];
    if (w.nodes > idle) continue;
    const bool ends_before = now + w.estimate_s <= r.shadow;
    if (!ends_before && w.nodes > r.extra) continue;
    r.start.push_back(k);
    idle -= w.nodes;
    if (!ends_before) r.extra -= w.nodes;
  }
  return r;
}

}  // namespace clustersim
