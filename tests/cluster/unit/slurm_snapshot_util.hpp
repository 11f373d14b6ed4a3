// SPDX-License-Identifier: BSD-3-Clause
// Helpers of the Slurm policy's and the arbiter's snapshot tests: the ranks' hosts, a
// scripted stand-in for Slurm, a cluster view from squeue/sinfo
// text, a job on named nodes, the arbiter's options and the nodes a ledger's claims hold.
#pragma once

#include <cstddef>
#include <deque>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "malleable/cluster/cluster.hpp"

namespace slurm_snapshot {

using cluster::slurm::ArbiterOptions;
using cluster::slurm::ClusterView;
using cluster::slurm::JobState;
using cluster::slurm::Ledger;
using cluster::slurm::LedgerEntry;

// The hosts of the job's ranks in rank order: `n` ranks on each named node in turn.
inline std::vector<std::string> ranks_on(std::vector<std::pair<std::string, int>> per_node) {
  std::vector<std::string> r;
  for (const auto& [h, n] : per_node) r.insert(r.end(), static_cast<std::size_t>(n), h);
  return r;
}

// Slurm's answers, in order; records every command. A command that does not start as the
// next answer expects, or one past the script, gets an error naming it.
struct ScriptedSlurm {
  std::deque<std::pair<std::string, cluster::slurm::Command>> script;  // expected command prefix -> answer
  std::vector<std::string> seen;
  cluster::slurm::Runner runner() {
    return [this](const std::string& cmd) {
      seen.push_back(cmd);
      if (script.empty()) return cluster::slurm::Command{1, "unexpected command"};
      auto [want, answer] = script.front();
      script.pop_front();
      if (cmd.rfind(want, 0) != 0) return cluster::slurm::Command{1, "expected '" + want + "', got '" + cmd + "'"};
      return answer;
    };
  }
};

// The view at time `t` of squeue's `%i|%T|%D|%N|%j|%r|%k` lines and sinfo's idle list.
inline ClusterView view(const std::string& squeue, const std::string& idle, double t = 100) {
  return cluster::slurm::make_view(t, squeue, idle + "\n");
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
