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

}  // namespace slurm_snapshot
