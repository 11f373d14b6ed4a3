// SPDX-License-Identifier: BSD-3-Clause
// Resize costs of the cluster simulator, from measured models; every
// constant comes from a JSON file (sim/costs/*.json, sources in docs/measurements/workload.md) so that
// new measurements replace them without a rebuild.
// The start and the redistribution are resize's one model of them (price_resize,
// malleable/resize/predict.hpp, which the dry run's planner prices with too):
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
//   launch_s: from a job's start (nodes allocated) to its first iteration, and its end
//       (0 at scale: not modelled; the emulated cluster's constant is for the comparison)
// The batch system's side (Slurm's own latencies, not the resize's):
//   sched_interval_s: the scheduler starts waiting jobs at its passes, every this many
//       seconds (slurm.conf sched_interval / bf_interval); 0: at once
//   decision_s: the seconds a malleable job spends at a remap point where it asks the
//       policy (the shared view and ledger read and written under their locks)
//   update_s: the seconds a change of the job's allocation in Slurm holds the job (scontrol
//       update of its node list, an expansion's merge); not part of the resize time, which
//       counts what the job's own resize measures
//   one_update: Slurm without an accounting database lets a job's allocation change once
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
  double sched_interval_s = 0;
  double decision_s = 0;
  double update_s = 0;
  bool expansion = true;  // Slurm permits job expansion: grow in place; else by restart
  bool one_update = false;

  double redistribution_s(int from, int to, int requested) const;
  double expand_s(int from, int to, int requested) const;
  double shrink_s(int from, int to, int requested) const;
  double restart_s(int from, int to, int requested) const;
  // The growth path in force: expand_s with expansion, restart_s without.
  double grow_s(int from, int to, int requested) const;
  // A job gives nodes back, its processes going from `from` to `to` nodes (equal when the
  // nodes given ran nothing): the shrink when processes leave, plus Slurm's update.
  double give_back_s(int from, int to, int requested) const;
  // Growth onto idle nodes Slurm grants: the growth path plus Slurm's update.
  double acquire_s(int from, int to, int requested) const;
  // The first scheduling pass at or after `now`.
  double next_pass(double now) const;
};

// The resize costs times `factor` (a sensitivity study: x0.5, x2, x5): spawn, release,
// other, restart and the redistribution's data; Slurm's latencies and the file system's
// rates stay. Throws Error unless factor > 0.
Costs scale_resize_costs(Costs c, double factor);

// Reads the JSON object's known keys over the defaults; unknown keys other than those
// starting with "_" (comments, sources) are an error, as are negative or zero rates.
Costs parse_costs(const std::string& json_text);

}  // namespace clustersim
