// SPDX-License-Identifier: BSD-3-Clause
// Helpers of the arbiter's snapshot tests: a cluster view from squeue/sinfo text, a job on
// named nodes, the arbiter's options and the nodes a ledger's claims hold.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "policy/slurm_arbiter.hpp"

namespace slurm_snapshot {

using resize::slurm::ArbiterOptions;
using resize::slurm::ClusterView;
using resize::slurm::JobState;
using resize::slurm::Ledger;
using resize::slurm::LedgerEntry;

// The view at time `t` of squeue's `%i|%T|%D|%N|%j|%r|%k` lines and sinfo's idle list.
inline ClusterView view(const std::string& squeue, const std::string& idle, double t = 100) {
  return resize::slurm::make_view(t, squeue, idle + "\n");
}

// Job `id` running 2 ranks on each of `nodes`, its node range [min_nodes, max_nodes].
inline JobState job(const std::string& id, std::vector<std::string> nodes, int min_nodes = 1, int max_nodes = 0) {
  JobState j;
  j.id = id;
  for (const auto& n : nodes) j.rank_hosts.insert(j.rank_hosts.end(), 2, n);
  j.per_node = 2;
  j.min_nodes = min_nodes;
  j.max_nodes = max_nodes;
  return j;
}

inline ArbiterOptions opts() {
  ArbiterOptions a;
  a.bid_window_s = 4;
  return a;
}

inline std::set<std::string> claimed(const Ledger& l) {
  std::set<std::string> out;
  for (const auto& e : l.entries)
    if (e.kind == LedgerEntry::Kind::Claim) out.insert(e.nodes.begin(), e.nodes.end());
  return out;
}

}  // namespace slurm_snapshot
