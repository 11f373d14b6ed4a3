// SPDX-License-Identifier: BSD-3-Clause
// The recorded Slurm snapshot of the order tests (cluster's slurm_order_test.cpp and
// resize's resize_slurm_order_test.cpp): squeue lines, sinfo's partitions, a growth model
// and one job's two rounds with the arbiter.
#pragma once

#include <string>

#include "malleable/cluster/cluster.hpp"
#include "slurm_snapshot_util.hpp"

namespace slurm_order_fixture {

using namespace cluster::slurm;
using namespace slurm_snapshot;

// squeue -h --sort=V -o kSqueueFormat: the running jobs 7 (batch, node[1-2]) and 8 (gpu,
// node9); waiting, in submit order: 20 (low priority), 21 (high priority).
inline std::string line(const std::string& id, const std::string& state, int nodes, const std::string& list,
                 const std::string& prio, const std::string& submit, const std::string& part,
                 const std::string& start = "N/A", const std::string& plan = "(null)", const std::string& reason = "Priority",
                 const std::string& comment = "") {
  return id + "|" + state + "|" + std::to_string(nodes) + "|" + list + "|job" + id + "|" +
         (state == "RUNNING" ? "None" : reason) + "|prio=" + prio + "|submit=" + submit + "|part=" + part +
         "|start=" + start + "|plan=" + plan + "|" + comment + "\n";
}

// sinfo -h -o '%P %t %s %N': batch (node[1-8], MaxNodes 6), gpu (node[9-10]).
inline const char* kSinfo =
    "batch* alloc 1-6 node[1-4]\n"
    "batch* idle 1-6 node[5,7-8]\n"
    "batch* resv 1-6 node6\n"
    "gpu alloc 1-infinite node9\n"
    "gpu idle 1-infinite node10\n";

inline GrowthModel saving(double seconds_per_node) {
  return [seconds_per_node](int n) {
    Growth g;
    g.pays = true;
    g.saving_s = seconds_per_node * n;
    g.why = "model";
    return g;
  };
}

// Two rounds of one job (bid, then after the bid window): its decision.
inline Arbitration grow_round(const ClusterView& v, const JobState& me) {
  const Arbitration bid = arbitrate(v, {}, me, saving(10), 100, opts());
  return arbitrate(v, bid.ledger, me, saving(10), 105, opts());
}

}  // namespace slurm_order_fixture
