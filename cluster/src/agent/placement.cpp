// SPDX-License-Identifier: BSD-3-Clause
// Where the job's processes are against where they were put: the guard that stops the Slurm policy from growing
// again and again onto a node its processes never reach (a held node "running nothing"
// after a launch or an expansion that placed processes there).
#include <algorithm>
#include <set>
#include <sstream>

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

// Once, at the first decision: where the launcher runs daemons. Open MPI starts one on
// every node of the allocation it was given (malleable-run's launch hosts, else the job's
// nodes now: nothing has grown yet), and mpiexec itself runs on rank 0's node.
void JobAgent::know_daemons(const std::vector<std::string>& ranks, const Snapshot& s) {
  if (place_.known) return;
  place_.known = true;
  place_.daemons = !opt_.launch.on.empty() ? opt_.launch.on : s.mine.node_list;
  place_.node = !ranks.empty() ? ranks.front() : place_.daemons.empty() ? std::string() : place_.daemons.front();
}

bool JobAgent::within_launcher(Plan& p) {
  if (opt_.launch.late_daemons || !opt_.launch.on.empty()) return true;  // a spawn reaches them, or a relaunch does
  const bool remote =
      std::any_of(place_.daemons.begin(), place_.daemons.end(), [&](const std::string& h) { return h != place_.node; });
  if (!remote) {
    // The launcher alone: one new node by spawn (the rest stay for later, or never).
    if (p.kind == Plan::Kind::Acquire && p.acquire > 1) {
      p.acquire = 1;
      if (p.nodes.size() > 1) p.nodes.resize(1);
      p.why += " (one node: the launcher adds one daemon by spawn)";
    } else if (p.kind == Plan::Kind::UseHeld) {
      auto far = beyond_launcher(place_.daemons, place_.node, p.nodes);
      if (!far.empty()) far.erase(far.begin());  // the first new node is reached
      p.nodes.erase(std::remove_if(p.nodes.begin(), p.nodes.end(),
                                   [&](const std::string& h) { return std::find(far.begin(), far.end(), h) != far.end(); }),
                    p.nodes.end());
    }
    return true;
  }
  if (p.kind != Plan::Kind::UseHeld && p.kind != Plan::Kind::Acquire) return true;
  // Named nodes (held, or those the arbitration chose) keep the ones with a daemon of the
  // launcher (a node the job gave back keeps its idle daemon); nodes Slurm would choose
  // (a count alone) can have none.
  const auto far = beyond_launcher(place_.daemons, place_.node, p.nodes);
  p.nodes.erase(std::remove_if(p.nodes.begin(), p.nodes.end(),
                               [&](const std::string& h) { return std::find(far.begin(), far.end(), h) != far.end(); }),
                p.nodes.end());
  if (!p.nodes.empty()) {
    if (p.kind == Plan::Kind::Acquire) p.acquire = static_cast<int>(p.nodes.size());
    return true;
  }
  p = Plan{};
  settle_ledger(false);
  no_acquire_until_ = now() + opt_.refused.backoff_max_s;
  if (!place_.said)
    note("not growing beyond the nodes the launcher runs daemons on (" + compress_hostlist(place_.daemons) +
         "): Open MPI 4.1 cannot start a daemon on a node granted after launch once it runs daemons on other nodes, "
         "and no launcher relaunches this job (run it under malleable-run --hosts slurm to grow by restart)");
  place_.said = true;
  return false;
}

// Called at each decision with the ranks' nodes now: the nodes placed by the launcher or
// by the last completed expansion are checked once; any the job holds but runs nothing on
// is barred from growth for the rest of the run, said once.
bool JobAgent::guard_placement(const std::vector<std::string>& ranks, const Snapshot& s, Plan& p) {
  if (!place_.placed.empty() && !ranks.empty()) {
    for (const auto& h : unplaced_nodes(s.mine.node_list, ranks, place_.placed)) {
      if (std::find(place_.barred.begin(), place_.barred.end(), h) != place_.barred.end()) continue;
      place_.barred.push_back(h);
      note("node " + h + " runs none of this job's processes although the launch or expansion placed them there "
           "(their nodes: " + compress_hostlist(std::vector<std::string>(ranks.begin(), ranks.end())) +
           "): not growing onto " + h + " again (check how mpiexec places processes in this allocation)");
    }
    place_.placed.clear();
  }
  return without_nodes(p, place_.barred);
}

}  // namespace cluster::slurm
