// SPDX-License-Identifier: BSD-3-Clause
#include "metrics.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "workload.hpp"

namespace clustersim {

RunMetrics compute_metrics(const std::vector<JobRecord>& records, int nodes, double tau) {
  if (records.empty()) throw Error("metrics: no job records");
  if (nodes < 1) throw Error("metrics: no nodes");
  RunMetrics m;
  m.jobs = static_cast<int>(records.size());
  double first = records.front().submit_s, last = records.front().end_s;
  double node_s = 0, wait = 0, turn = 0, bsld = 0, resize_s = 0;
  long resizes = 0;
  std::vector<double> waits;
  for (const auto& r : records) {
    if (!(r.submit_s <= r.start_s && r.start_s <= r.end_s)) throw Error("metrics: job " + r.id + " out of order");
    first = std::min(first, r.submit_s);
    last = std::max(last, r.end_s);
    waits.push_back(r.start_s - r.submit_s);
    wait += r.start_s - r.submit_s;
    const double t = r.end_s - r.submit_s;
    turn += t;
    bsld += std::max(1.0, t / std::max(r.end_s - r.start_s, tau));
    node_s += r.node_s;
    resizes += r.resizes;
    resize_s += r.resize_s;
    if (r.past_limit) {
      ++m.past_limit;
      m.past_limit_malleable += r.malleable ? 1 : 0;
    }
    if (r.killed) {
      ++m.killed;
      m.killed_malleable += r.malleable ? 1 : 0;
      m.killed_node_s += r.node_s;
    }
  }
  const double n = m.jobs;
  m.makespan_s = last - first;
  m.mean_wait_s = wait / n;
  std::sort(waits.begin(), waits.end());
  const std::size_t mid = waits.size() / 2;
  m.median_wait_s = waits.size() % 2 ? waits[mid] : (waits[mid - 1] + waits[mid]) / 2;
  m.mean_turnaround_s = turn / n;
  m.bounded_slowdown = bsld / n;
  m.utilisation = m.makespan_s > 0 ? node_s / (nodes * m.makespan_s) : 0;
  m.resizes_per_job = resizes / n;
  m.resize_time_s_per_job = resize_s / n;
  return m;
}

std::string metrics_json(const RunMetrics& m) {
  nlohmann::json j = {{"jobs", m.jobs},
                      {"makespan_s", m.makespan_s},
                      {"mean_wait_s", m.mean_wait_s},
                      {"median_wait_s", m.median_wait_s},
                      {"mean_turnaround_s", m.mean_turnaround_s},
                      {"bounded_slowdown", m.bounded_slowdown},
                      {"utilisation", m.utilisation},
                      {"resizes_per_job", m.resizes_per_job},
                      {"resize_time_s_per_job", m.resize_time_s_per_job},
                      {"killed", m.killed},
                      {"killed_malleable", m.killed_malleable},
                      {"killed_node_s", m.killed_node_s},
                      {"past_limit", m.past_limit},
                      {"past_limit_malleable", m.past_limit_malleable}};
  return j.dump();
}

}  // namespace clustersim
