// SPDX-License-Identifier: BSD-3-Clause
// A decision validated into the target grid (target_grid.hpp): pure, the same on every rank.
#include "session/target_grid.hpp"

#include <algorithm>
#include <cmath>

namespace resize::detail {

namespace {

// Powers by world rank after the resize: the grown world for an expansion.
void check_powers(const Decision& d, int world_size) {
  const int n = d.action == Action::Expand ? std::max(d.procs, world_size) : world_size;
  if (static_cast<int>(d.powers.size()) != n)
    throw Error(to_string(d.action) + ": the decision gives " + std::to_string(d.powers.size()) +
                " powers, the world " + (d.action == Action::Expand ? "will have " : "has ") + std::to_string(n) +
                " processes");
  for (std::size_t k = 0; k < d.powers.size(); ++k)
    if (!std::isfinite(d.powers[k]) || d.powers[k] <= 0)
      throw Error(to_string(d.action) + ": power of world rank " + std::to_string(k) + " is " +
                  std::to_string(d.powers[k]) + ", must be finite and > 0");
  if (d.action == Action::Shrink) throw Error("shrink: a decision cannot set powers (the world is renumbered)");
}

// Expansions and shrinks count on the grid holding world ranks 0..P-1 (the new ranks
// follow them; a shrink keeps the first ones); a regrid may have left another set, e.g.
// {0, 2, 3} after dropping rank 1.
void check_ranks_from_zero(const Decision& d, const Grid& shape) {
  std::vector<int> held = shape.rank_map();
  std::sort(held.begin(), held.end());
  for (std::size_t k = 0; k < held.size(); ++k)
    if (held[k] != static_cast<int>(k))
      throw Error(to_string(d.action) + ": the grid holds world ranks other than 0.." +
                  std::to_string(held.size() - 1) + " after a regrid; regrid onto those first");
}

// The same world, any subset of its ranks on any grid shape.
Grid regrid_target(Decision& d, int world_size) {
  if (d.nprow < 1 || d.npcol < 1) throw Error("regrid: the grid must be at least 1x1");
  std::vector<int> rk = d.ranks;
  if (rk.empty())
    for (int k = 0; k < d.nprow * d.npcol; ++k) rk.push_back(k);
  if (static_cast<int>(rk.size()) != d.nprow * d.npcol)
    throw Error("regrid: " + std::to_string(rk.size()) + " ranks for a " + std::to_string(d.nprow) + "x" +
                std::to_string(d.npcol) + " grid");
  std::vector<int> sorted = rk;
  std::sort(sorted.begin(), sorted.end());
  if (sorted.front() < 0 || sorted.back() >= world_size ||
      std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end())
    throw Error("regrid: the ranks must be distinct world ranks 0.." + std::to_string(world_size - 1));
  d.placement = Placement::Given;
  return Grid{d.nprow, d.npcol, rk};
}

Grid expand_target(Decision& d, const TargetInput& in, NodePlan& node_plan) {
  const Grid& shape = in.shape;
  if (d.procs <= shape.size() && d.schema.empty())
    throw Error("expand to " + std::to_string(d.procs) + " processes: the grid already has " +
                std::to_string(shape.size()));
  // An MPI that cannot spawn (MPICH here, docs/guide/mpi-flavours.md): refused up front.
  if (std::string no_spawn; (d.procs > in.world_size || !d.schema.empty()) && in.spawn_supported &&
                            !in.spawn_supported(no_spawn))
    throw Error(no_spawn);
  Grid t = d.nprow ? Grid{d.nprow, d.npcol, {}}
                   : (d.placement == Placement::Global ? choose_topology(d.procs)
                                                       : choose_local_topology(shape, d.procs));
  // The grid holds world ranks 0..size-1 (shrinks keep the first ranks); the processes
  // added to it are the next ones, spawned or already idle in the world.
  std::vector<std::string> hosts_after = node_plan.hosts_before;
  if (!d.hosts.empty()) {
    if (!d.schema.empty()) throw Error("expand: a schema file and hosts cannot both say where processes go");
    node_plan.spawn = resolve_host_counts(d.hosts, std::max(0, t.size() - in.world_size));
    for (const auto& [h, c] : node_plan.spawn) hosts_after.insert(hosts_after.end(), static_cast<std::size_t>(c), h);
  }
  if (!d.ranks.empty()) {
    // The policy placed the processes itself: check it is a grid of 0..procs-1.
    std::vector<int> sorted = d.ranks;
    std::sort(sorted.begin(), sorted.end());
    for (std::size_t k = 0; k < sorted.size(); ++k)
      if (sorted[k] != static_cast<int>(k) || d.nprow * d.npcol != static_cast<int>(sorted.size()))
        throw Error("expand: the policy's rank map is not a " + std::to_string(d.nprow) + "x" +
                    std::to_string(d.npcol) + " grid of ranks 0.." + std::to_string(sorted.size() - 1));
    d.placement = Placement::Given;
    return Grid{d.nprow, d.npcol, d.ranks};
  }
  Grid target = plan_expansion(shape, shape.size(), t.nprow, t.npcol, d.placement, in.matrix);
  // Nodes known for every rank of the grown world: put the newcomers near their data.
  if (static_cast<int>(hosts_after.size()) >= target.size())
    target = place_on_nodes(target, shape, in.world_size, d.placement, in.matrix, hosts_after);
  return target;
}

Grid shrink_target(const Decision& d, const TargetInput& in, NodePlan& node_plan) {
  const Grid& shape = in.shape;
  if (d.procs >= shape.size())
    throw Error("shrink to " + std::to_string(d.procs) + " processes: the grid has only " +
                std::to_string(shape.size()));
  if (d.hosts.empty()) {
    for (int k = 0; k < d.procs; ++k) node_plan.keep.push_back(k);
  } else {
    // Giving nodes back: every process elsewhere stays, and the grid must hold them all.
    for (const auto& h : d.hosts) {
      if (std::find(node_plan.hosts_before.begin(), node_plan.hosts_before.end(), h.host) == node_plan.hosts_before.end())
        throw Error("shrink: no process runs on host " + h.host);
      node_plan.release.push_back(h.host);
    }
    for (int k = 0; k < in.world_size; ++k)
      if (std::find(node_plan.release.begin(), node_plan.release.end(), node_plan.hosts_before[static_cast<std::size_t>(k)]) ==
          node_plan.release.end())
        node_plan.keep.push_back(k);
    if (static_cast<int>(node_plan.keep.size()) != d.procs)
      throw Error("shrink: giving back the node(s) leaves " + std::to_string(node_plan.keep.size()) +
                  " processes, but the target grid holds " + std::to_string(d.procs));
  }
  Grid t = d.nprow ? Grid{d.nprow, d.npcol, {}} : choose_topology(d.procs);
  return plan_shrink(shape, node_plan.keep, t.nprow, t.npcol);
}

}  // namespace

Grid target_grid(Decision& d, const TargetInput& in, NodePlan& node_plan) {
  if (!d.powers.empty()) check_powers(d, in.world_size);
  if (d.action != Action::Regrid) check_ranks_from_zero(d, in.shape);
  if (d.action == Action::Regrid) return regrid_target(d, in.world_size);
  if (d.action == Action::Expand) return expand_target(d, in, node_plan);
  return shrink_target(d, in, node_plan);
}

}  // namespace resize::detail
