// SPDX-License-Identifier: BSD-3-Clause
// Resize costs of the cluster simulator (issue 44 §3), from measured models; every
// constant comes from a JSON file (sim/costs/*.json, sources in docs/measurements/workload.md) so that
// new measurements replace them without a rebuild.
//   expansion in place (spawn):  spawn_fixed_s + spawn_per_node_s * new nodes
//                                + redistribution(from, to) + other_s
//   shrink in place:             release_s + redistribution(from, to) + other_s
//   redistribution(p, q):        redist_link_ratio * data / (min(p, q) * link_Bps)
//       data = data_bytes_per_node * the job's requested nodes (its matrices); every node
//       of the smaller side sends or receives its whole share through its one link (the
//       node-link bound; block-cyclic remaps move almost everything), times the ratio of
//       simulated/measured time to that bound
//   resize by restart (no job expansion in Slurm): checkpoint write + exit and relaunch +
//       read, write and read at min(fs_Bps, nodes * fs_node_Bps), relaunch = restart_fixed_s
//       + spawn_per_node_s * nodes (a new launch of the whole job)
//   launch_s: from a job's start (nodes allocated) to its first iteration (0 at scale:
//       not modelled; the emulated cluster's constant is for the comparison with it)
#pragma once

#include <string>

namespace clustersim {

struct Costs {
  double spawn_fixed_s = 0.213;
  double spawn_per_node_s = 0.0447;
  double release_s = 0.005;
  double other_s = 0.30;
  double link_Bps = 12.5e9;
  double redist_link_ratio = 1.15;
  double data_bytes_per_node = 16e9;
  double fs_Bps = 1e12;
  double fs_node_Bps = 5e9;
  double restart_fixed_s = 5.0;
  double launch_s = 0;
  bool expansion = true;  // Slurm permits job expansion: grow in place; else by restart

  double redistribution_s(int from, int to, int requested) const;
  double expand_s(int from, int to, int requested) const;
  double shrink_s(int from, int to, int requested) const;
  double restart_s(int from, int to, int requested) const;
  // The growth path in force: expand_s with expansion, restart_s without.
  double grow_s(int from, int to, int requested) const;
};

// Reads the JSON object's known keys over the defaults; unknown keys other than those
// starting with "_" (comments, sources) are an error, as are negative or zero rates.
Costs parse_costs(const std::string& json_text);

}  // namespace clustersim
