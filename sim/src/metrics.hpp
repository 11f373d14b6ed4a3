// SPDX-License-Identifier: BSD-3-Clause
// One run's job-level metrics, computed as scripts/bench/workload/summary.py's
// metrics() computes them for emulated runs: makespan from the first submission to the
// last end; wait = start - submit; turnaround = end - submit; bounded slowdown
// max(1, turnaround / max(run, tau)) with tau = 10 s; utilisation = node-seconds held
// (resizes included) / (nodes * makespan); resizes and the seconds spent in them per job.
#pragma once

#include <string>
#include <vector>

namespace clustersim {

struct JobRecord {
  std::string id;
  bool malleable = false;
  double submit_s = 0, start_s = 0, end_s = 0;
  double node_s = 0;  // node-seconds held
  int resizes = 0;
  double resize_s = 0;
  int start_nodes = 0, end_nodes = 0, min_held = 0, max_held = 0;
  bool killed = false;  // ended at its time limit, its work lost
  bool past_limit = false;  // limits not kept (--time-limits off): it ran past its limit
};

struct RunMetrics {
  int jobs = 0;
  double makespan_s = 0, mean_wait_s = 0, median_wait_s = 0, mean_turnaround_s = 0;
  double bounded_slowdown = 0, utilisation = 0, resizes_per_job = 0, resize_time_s_per_job = 0;
  // Jobs ended at their time limit (all; of them malleable), and the node-seconds they
  // held: work lost (counted in the utilisation above too: the nodes were busy).
  int killed = 0, killed_malleable = 0;
  double killed_node_s = 0;
  // With limits not kept: the jobs (of them malleable) that ran past their limit, which
  // Slurm would have ended.
  int past_limit = 0, past_limit_malleable = 0;
};

constexpr double kTau = 10.0;
// Throws Error on no records or a record out of order (start before submit, end before start).
RunMetrics compute_metrics(const std::vector<JobRecord>& records, int nodes, double tau = kTau);
// {"jobs":..,"makespan_s":..,...}: the summary CSV's column names.
std::string metrics_json(const RunMetrics& m);

}  // namespace clustersim
