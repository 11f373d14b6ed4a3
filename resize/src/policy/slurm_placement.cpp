// SPDX-License-Identifier: BSD-3-Clause
// Where the job's processes are against where they were put: the guard that stops the Slurm policy from growing
// again and again onto a node its processes never reach (a held node "running nothing"
// after a launch or an expansion that placed processes there).
#include <algorithm>
#include <set>
#include <sstream>

#include "policy/slurm.hpp"

namespace resize::slurm {

std::vector<std::string> unplaced_nodes(const std::vector<std::string>& held, const std::vector<std::string>& rank_hosts,
                                        const std::vector<std::string>& placed) {
  const std::set<std::string> running(rank_hosts.begin(), rank_hosts.end());
  std::vector<std::string> out;
  for (const auto& h : placed)
    if (!running.count(h) && std::find(held.begin(), held.end(), h) != held.end() &&
        std::find(out.begin(), out.end(), h) == out.end())
      out.push_back(h);
  return out;
}

bool without_nodes(Plan& p, const std::vector<std::string>& barred) {
  if (barred.empty() || (p.kind != Plan::Kind::UseHeld && p.kind != Plan::Kind::Acquire)) return false;
  std::vector<std::string> dropped;
  auto& n = p.nodes;
  n.erase(std::remove_if(n.begin(), n.end(),
                         [&](const std::string& h) {
                           const bool out = std::find(barred.begin(), barred.end(), h) != barred.end();
                           if (out) dropped.push_back(h);
                           return out;
                         }),
          n.end());
  if (dropped.empty()) return false;
  const std::string why = compress_hostlist(dropped) + " left out: the job's processes placed there ran elsewhere";
  if (p.kind == Plan::Kind::Acquire) p.acquire = static_cast<int>(n.size());
  if (n.empty()) {
    p = Plan{};
    p.why = "not growing onto " + compress_hostlist(dropped) + ": the job's processes placed there ran elsewhere";
  } else {
    p.why += " (" + why + ")";
  }
  return true;
}

// Called at each decision with the ranks' nodes now: the nodes placed by the launcher or
// by the last completed expansion are checked once; any the job holds but runs nothing on
// is barred from growth for the rest of the run, said once.
bool SlurmPolicy::guard_placement(const std::vector<std::string>& ranks, const Snapshot& s, Plan& p) {
  if (!placed_.empty() && !ranks.empty()) {
    for (const auto& h : unplaced_nodes(s.mine.node_list, ranks, placed_)) {
      if (std::find(barred_.begin(), barred_.end(), h) != barred_.end()) continue;
      barred_.push_back(h);
      note("node " + h + " runs none of this job's processes although the launch or expansion placed them there "
           "(their nodes: " + compress_hostlist(std::vector<std::string>(ranks.begin(), ranks.end())) +
           "): not growing onto " + h + " again (check how mpiexec places processes in this allocation)");
    }
    placed_.clear();
  }
  return without_nodes(p, barred_);
}

}  // namespace resize::slurm
