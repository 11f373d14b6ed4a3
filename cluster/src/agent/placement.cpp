// SPDX-License-Identifier: BSD-3-Clause
// Where the job's processes are against where they were put, the rules (pure): the nodes
// placed but running nothing, a plan without them, the nodes beyond the launcher's daemons.
// The job agent's guard (job_agent.cpp: know_daemons, within_launcher, guard_placement)
// applies them, so that the Slurm policy does not grow again and again onto a node its
// processes never reach (a held node "running nothing" after a launch or an expansion that
// placed processes there).
#include <algorithm>
#include <set>

#include "malleable/cluster/job_agent.hpp"

namespace cluster::slurm {

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

std::vector<std::string> beyond_launcher(const std::vector<std::string>& daemons, const std::string& launcher_node,
                                         const std::vector<std::string>& targets) {
  const bool remote = std::any_of(daemons.begin(), daemons.end(), [&](const std::string& h) { return h != launcher_node; });
  std::vector<std::string> out;
  for (const auto& h : targets)
    if (std::find(daemons.begin(), daemons.end(), h) == daemons.end() && std::find(out.begin(), out.end(), h) == out.end())
      out.push_back(h);
  // The launcher alone reaches one new node (one spawn's add-host); the library spawns
  // one group per node, so a second new node is a daemon added while another runs.
  if (!remote && out.size() <= 1) out.clear();
  return out;
}

}  // namespace cluster::slurm
