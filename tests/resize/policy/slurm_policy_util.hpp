// SPDX-License-Identifier: BSD-3-Clause
// Helpers of the Slurm policy's tests (resize's SlurmPolicy over the cluster component):
// the policy's input on the ranks' hosts, and the single-job decision with the session's
// measurements as its growth model, as the policy's agent makes it.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include "policy/slurm_policy.hpp"
#include "slurm_snapshot_util.hpp"

namespace slurm_snapshot {

// The policy's input at a remap point of a world whose ranks run on `ranks` (which must
// outlive it): its size and the ranks' hosts.
inline resize::PolicyInput input_on(const std::vector<std::string>& ranks) {
  resize::PolicyInput in;
  in.world_size = static_cast<int>(ranks.size());
  in.rank_hosts = &ranks;
  return in;
}

// decide() with growth_from_metrics on `in` at the processes per node the agent uses.
inline cluster::slurm::Plan decide_in(const cluster::slurm::Snapshot& s, const std::vector<std::string>& ranks,
                                      const cluster::slurm::Options& o, const resize::PolicyInput& in) {
  const int per_node = o.procs_per_node > 0 ? o.procs_per_node
                       : ranks.empty()     ? 0
                                           : static_cast<int>(std::count(ranks.begin(), ranks.end(), ranks.front()));
  return cluster::slurm::decide(s, ranks, o,
                                [&](int n) { return resize::growth_from_metrics(in, o, n, per_node); });
}

// Slurm's answers at the remap points of job 7, in order (the job, the idle nodes, the
// waiting jobs written the short way, records()), and whether the policy's log has a line
// holding `part`.
struct ScriptedJob7 : ScriptedSlurm {
  void remap_point(const std::string& node_list, const std::string& idle, const std::string& pending = "") {
    script.push_back({"squeue -h -j 7", {0, own_record("7", node_list)}});
    script.push_back({cluster::slurm::command_line(cluster::slurm::kIdleCommand), {0, idle}});
    script.push_back({"squeue", {0, pending.empty() ? std::string() : records(pending)}});
  }
};
template <class P>
bool logged(const P& p, const std::string& part) {
  for (const auto& l : p.log())
    if (l.find(part) != std::string::npos) return true;
  return false;
}

}  // namespace slurm_snapshot
