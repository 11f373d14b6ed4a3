// SPDX-License-Identifier: BSD-3-Clause
// The single-job decision at a remap point, pure: give back what a waiting job needs,
// use held nodes that run nothing, or acquire idle nodes when growing pays.
#include <algorithm>
#include <set>

#include "malleable/cluster/slurm.hpp"

namespace cluster::slurm {

bool keeps_time_limit(const Growth& g, int from, int n, double time_left_s, std::string* why) {
  if (time_left_s < 0 || n <= 0 || from - n < 1 || g.measured_iteration <= 0 || g.iterations_left < 0) return true;
  const double t_to = g.predicted_iteration > 0 ? g.predicted_iteration
                                                : g.measured_iteration * from / static_cast<double>(from - n);
  const double end = t_to * g.iterations_left + std::max(0.0, g.predicted_resize);
  if (end <= time_left_s) return true;
  if (why)
    *why = "giving back " + std::to_string(n) + " node(s) would end the job in ~" + std::to_string(static_cast<long>(end)) +
           " s, past its time limit (" + std::to_string(static_cast<long>(time_left_s)) + " s left)";
  return false;
}

namespace {

// Rule 1: give back what the first waiting job needs beyond the idle nodes: nodes running
// nothing first, then the nodes joined last (whole spawn groups), never rank 0's. Waiting
// jobs in Slurm's order (s.pending); the idle nodes each can start on: those of its
// partition. False: the job starts without us (`p` untouched).
bool give_to_waiting(const Snapshot& s, const std::vector<std::string>& rank_hosts, const std::set<std::string>& used,
                     const std::vector<std::string>& unused, const Options& o, const GrowthModel& growth, Plan& p) {
  const std::string& root = rank_hosts.front();
  const auto& held = s.mine.node_list;
  const auto idle_for = [&](const Job& w) {
    return static_cast<int>(std::count_if(s.idle.begin(), s.idle.end(),
                                          [&](const std::string& h) { return in_partition(s.partitions, w.partition, h); }));
  };
  for (const Job& w : s.pending) {
    const int idle_w = idle_for(w);
    const int need = w.nodes - idle_w;
    if (need <= 0) break;  // it starts without us
    std::vector<std::string> candidates = unused;
    for (auto it = rank_hosts.rbegin(); it != rank_hosts.rend(); ++it)
      if (*it != root && std::find(candidates.begin(), candidates.end(), *it) == candidates.end() &&
          std::find(held.begin(), held.end(), *it) != held.end())
        candidates.push_back(*it);
    const int can = std::min<int>(static_cast<int>(candidates.size()), static_cast<int>(held.size()) - o.min_nodes);
    if (need > can) {
      p.why = "job " + w.id + " waits for " + std::to_string(w.nodes) + " nodes; giving back " + std::to_string(need) +
              " would leave fewer than " + std::to_string(o.min_nodes);
      return true;
    }
    // only the nodes given that run ranks shorten its run
    const int from = static_cast<int>(used.size());
    const int k = static_cast<int>(std::count_if(candidates.begin(), candidates.begin() + need,
                                                 [&](const std::string& h) { return used.count(h) > 0; }));
    if (std::string over; growth && k > 0 && from - k >= 1 && !keeps_time_limit(growth(-k), from, k, s.mine.time_left, &over)) {
      p.why = "time-limit: job " + w.id + " waits for " + std::to_string(w.nodes) + " node(s); " + over;
      return true;
    }
    p.kind = Plan::Kind::GiveBack;
    p.nodes.assign(candidates.begin(), candidates.begin() + need);
    p.why = "job " + w.id + " waits for " + std::to_string(w.nodes) + " node(s), " + std::to_string(idle_w) +
            " idle";
    return true;
  }
  return false;
}

// Rule 3: idle nodes of its partition that the backfill plan starts no waiting job on:
// ask for them if growing pays, within the partition's MaxNodes.
Plan grow_onto_idle(const Snapshot& s, const Options& o, const GrowthModel& growth) {
  Plan p;
  std::string left_out;
  const std::vector<std::string> free = growable_idle(s, s.idle, &left_out);
  const int part_max = partition_max_nodes(s.partitions, s.mine.partition);
  const int cap = part_max > 0 && (o.max_nodes <= 0 || part_max < o.max_nodes) ? part_max : o.max_nodes;
  const int room = std::min<int>(static_cast<int>(free.size()), cap - static_cast<int>(s.mine.node_list.size()));
  if (room <= 0) {
    p.why = s.idle.empty() ? "no idle node"
            : free.empty() ? "no idle node to grow onto (" + left_out + ")"
                           : "at the node limit (" + std::to_string(cap) + (cap == part_max ? ", the partition's" : "") + ")";
    return p;
  }
  const Growth g = growth ? growth(room) : Growth{true, 0, "no prediction", -1, -1, -1, -1};
  if (g.predicted_iteration >= 0) {  // a prediction was made (both sizes measured)
    p.predicted_iteration = g.predicted_iteration;
    p.measured_iteration = g.measured_iteration;
    p.predicted_resize = g.predicted_resize;
  }
  const std::string& why = g.why;
  if (!g.pays) {
    p.why = std::to_string(room) + " idle node(s), but growing does not pay: " + why;
    return p;
  }
  p.kind = Plan::Kind::Acquire;
  p.acquire = room;
  // Named when Slurm must not choose among all idle nodes (salloc -w): some are of
  // another partition or planned for a waiting job.
  if (!left_out.empty()) p.nodes.assign(free.begin(), free.begin() + room);
  p.why = std::to_string(room) + " idle node(s); " + why + (left_out.empty() ? "" : " (" + left_out + ": left out)");
  return p;
}

}  // namespace

Plan decide(const Snapshot& s, const std::vector<std::string>& rank_hosts, const Options& o, const GrowthModel& growth) {
  Plan p;
  if (rank_hosts.empty()) {
    p.why = "the nodes of the ranks are unknown";
    return p;
  }
  const std::set<std::string> used(rank_hosts.begin(), rank_hosts.end());
  std::vector<std::string> unused;
  for (const auto& h : s.mine.node_list)
    if (!used.count(h)) unused.push_back(h);
  // 1. Give back what a waiting job needs beyond the idle nodes.
  if (give_to_waiting(s, rank_hosts, used, unused, o, growth, p)) return p;
  if (!s.pending.empty()) {
    p.why = "jobs are waiting; not growing";
    return p;
  }
  // 2. Nodes the job holds but runs nothing on: grow onto them.
  if (!unused.empty()) {
    p.kind = Plan::Kind::UseHeld;
    p.nodes = unused;
    p.why = std::to_string(unused.size()) + " node(s) of the allocation run nothing";
    return p;
  }
  // 3. Idle nodes.
  return grow_onto_idle(s, o, growth);
}

}  // namespace cluster::slurm
