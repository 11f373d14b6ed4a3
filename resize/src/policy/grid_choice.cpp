// SPDX-License-Identifier: BSD-3-Clause
// Placement of processes in a resized grid, and a decision validated into the target grid.
#include "policy/grid_choice.hpp"

#include "malleable/gridmap/error.hpp"
#include "malleable/gridmap/nodes.hpp"
#include "malleable/redist/traffic.hpp"
#include "malleable/gridmap/placement.hpp"
#include "malleable/gridmap/topology.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>

namespace resize {

namespace {
gridmap::Placement to_gridmap(const Grid& g) {
  gridmap::Placement p{gridmap::Topology{g.nprow, g.npcol}, g.rank_map()};
  return p;
}
Grid from_gridmap(const gridmap::Placement& p) { return Grid{p.grid.rows, p.grid.cols, p.slots}; }

// gridmap's error (a resize::Error, the one form) goes on as it was thrown, `what` before
// its message.
template <class F>
auto call(const char* what, F&& f) {
  try {
    return f();
  } catch (gridmap::Error& e) {
    e.prepend(std::string(what) + ": ");
    throw;
  }
}
}  // namespace

Grid choose_topology(int procs) {
  if (procs < 1) throw Error("choose_topology: procs must be >= 1, got " + std::to_string(procs));
  const auto t = call("choose_topology", [&] { return gridmap::choose_topology(procs).grid; });
  return Grid{t.rows, t.cols, {}};
}

Grid choose_local_topology(const Grid& old, int procs) {
  const int offered = procs - old.size();
  if (offered <= 0) return Grid{old.nprow, old.npcol, {}};
  // §5.2.1.2 with the thesis's square-increment aspect constraint first, then without.
  for (auto aspect : {gridmap::AspectRatio::square(), gridmap::AspectRatio::any()}) {
    const auto e = call("choose_local_topology", [&] {
      return gridmap::plan_local_expansion(gridmap::Topology{old.nprow, old.npcol}, offered, aspect,
                                           gridmap::AspectScope::FinalGrid);
    });
    if (e.possible) return Grid{e.grid.rows, e.grid.cols, {}};
  }
  return Grid{old.nprow, old.npcol, {}};
}

std::vector<int> inserted_positions(int p, int r, Placement pl) {
  return call("inserted_positions", [&] {
    return pl == Placement::Local2 || pl == Placement::Optimal ? gridmap::local2_positions(p, r)
                                                               : gridmap::local1_positions(p, r);
  });
}

Grid plan_expansion(const Grid& old, int old_world, int nprow, int npcol, Placement p,
                    const redist::MatrixSpec* matrix) {
  if (nprow < 1 || npcol < 1)
    throw Error("plan_expansion: grid " + std::to_string(nprow) + "x" + std::to_string(npcol) +
                " is empty");
  const gridmap::Topology t{nprow, npcol};
  if (p == Placement::Global) return from_gridmap(gridmap::place_global(t));
  if (p == Placement::Given) throw Error("plan_expansion: a given placement comes with its rank map");
  if (nprow < old.nprow || npcol < old.npcol)
    throw Error("plan_expansion: " + to_string(p) + " keeps the old " + old.shape() +
                " grid, so the new grid " + std::to_string(nprow) + "x" + std::to_string(npcol) +
                " cannot be smaller in a dimension");
  if (p == Placement::Optimal && matrix) {
    const redist::MatrixSpec& shape = *matrix;
    return call("plan_expansion", [&] {
      return from_gridmap(gridmap::place_optimal(to_gridmap(old), t, nprow * npcol - old.size(), shape));
    });
  }
  const auto rule = p == Placement::Local1 ? gridmap::PlacementStrategy::Local1
                                           : gridmap::PlacementStrategy::Local2;
  return call("plan_expansion", [&] {
    return from_gridmap(gridmap::place_local(to_gridmap(old), nprow - old.nprow, npcol - old.npcol,
                                             rule, old_world));
  });
}

Grid plan_shrink(const Grid& old, int keep, int nprow, int npcol) {
  std::vector<int> ranks(static_cast<std::size_t>(std::max(keep, 0)));
  for (int i = 0; i < keep; ++i) ranks[static_cast<std::size_t>(i)] = i;
  return plan_shrink(old, ranks, nprow, npcol);
}

Grid plan_shrink(const Grid& old, const std::vector<int>& keep, int nprow, int npcol) {
  const int k = static_cast<int>(keep.size());
  if (nprow * npcol != k)
    throw Error("plan_shrink: grid " + std::to_string(nprow) + "x" + std::to_string(npcol) +
                " does not hold the " + std::to_string(k) + " remaining processes");
  const auto kept = [&](int r) { return std::find(keep.begin(), keep.end(), r) != keep.end(); };
  // Rows and columns of the old grid made only of kept ranks.
  std::vector<int> keep_rows, keep_cols;
  for (int i = 0; i < old.nprow; ++i) {
    bool all = true;
    for (int j = 0; j < old.npcol; ++j) all = all && kept(old.rank_at(i, j));
    if (all) keep_rows.push_back(i);
  }
  for (int j = 0; j < old.npcol; ++j) {
    bool all = true;
    for (int i = 0; i < old.nprow; ++i) all = all && kept(old.rank_at(i, j));
    if (all) keep_cols.push_back(j);
  }
  Grid g{nprow, npcol, {}};
  if (static_cast<int>(keep_rows.size()) == nprow && static_cast<int>(keep_cols.size()) == npcol) {
    // Only the intersection counts: a kept rank in a dropped line would be lost.
    bool exact = true;
    for (int i = 0; i < old.nprow; ++i)
      for (int j = 0; j < old.npcol; ++j) {
        const bool in = std::count(keep_rows.begin(), keep_rows.end(), i) &&
                        std::count(keep_cols.begin(), keep_cols.end(), j);
        if (!in && kept(old.rank_at(i, j))) exact = false;
      }
    if (exact) {
      for (int i : keep_rows)
        for (int j : keep_cols) g.ranks.push_back(old.rank_at(i, j));
      return g;
    }
  }
  g.ranks = keep;
  return g;
}

std::vector<std::pair<std::string, int>> resolve_host_counts(const std::vector<HostShare>& hosts, int nnew) {
  int given = 0, open = 0;
  for (const auto& h : hosts) {
    if (h.count < 0) throw Error("host " + h.host + ": count " + std::to_string(h.count) + " must be >= 0");
    given += h.count;
    open += h.count == 0;
  }
  if (given > nnew || (open == 0 && given != nnew))
    throw Error("the hosts take " + std::to_string(given) + " new processes" +
                (open ? "" : " and none is left open") + ", but the expansion adds " + std::to_string(nnew));
  std::vector<std::pair<std::string, int>> out;
  int rest = nnew - given, seen = 0;
  for (const auto& h : hosts) {
    int c = h.count;
    if (c == 0) c = rest / open + (seen++ < rest % open ? 1 : 0);
    if (c > 0) out.emplace_back(h.host, c);
  }
  return out;
}

Grid renumber(const Grid& g, const std::vector<int>& keep) {
  Grid out{g.nprow, g.npcol, {}};
  for (int r : g.rank_map()) {
    const auto it = std::find(keep.begin(), keep.end(), r);
    if (it == keep.end()) throw Error("renumber: rank " + std::to_string(r) + " of the grid does not stay");
    out.ranks.push_back(static_cast<int>(it - keep.begin()));
  }
  return out;
}

Grid place_on_nodes(const Grid& planned, const Grid& old, int old_world, Placement p,
                    const redist::MatrixSpec* matrix, const std::vector<std::string>& host_of_rank,
                    int inter_node_weight) {
  if (!matrix || host_of_rank.empty() || p == Placement::Given) return planned;
  const auto node = redist::node_ids(host_of_rank);
  if (*std::max_element(node.begin(), node.end()) == 0) return planned;
  if (static_cast<int>(node.size()) < planned.size())
    throw Error("place_on_nodes: " + std::to_string(node.size()) + " hosts for a grid of " +
                std::to_string(planned.size()));
  return call("place_on_nodes", [&] {
    const redist::MatrixSpec& shape = *matrix;
    const gridmap::NodeMap nodes{node, inter_node_weight};
    const auto before = gridmap::layout_for(to_gridmap(old), shape);
    std::vector<int> fresh;
    for (int r = old_world; r < planned.size(); ++r) fresh.push_back(r);
    if (p == Placement::Optimal) {
      std::vector<int> candidates = old.rank_map();
      candidates.insert(candidates.end(), fresh.begin(), fresh.end());
      const auto after = gridmap::layout_for(gridmap::Placement::row_major({planned.nprow, planned.npcol}, 0), shape);
      return from_gridmap(gridmap::place_optimal_nodes(before, after, candidates, nodes));
    }
    return from_gridmap(gridmap::assign_new_ids_by_node(to_gridmap(planned), before, shape, fresh, nodes));
  });
}

}  // namespace resize

// A decision validated into the target grid: pure, the same on every rank.
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
                            (d.by == ExpandBy::Spawn || d.by == ExpandBy::Auto) && !in.spawn_supported(no_spawn))
    throw Error(no_spawn, malleable::Errc::SpawnUnsupported);
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

std::vector<std::string> merge_hosts(const Grid& target, int world_size, const NodePlan& np) {
  std::vector<std::string> newcomer;
  for (const auto& [host, count] : np.spawn) newcomer.insert(newcomer.end(), static_cast<std::size_t>(count), host);
  const bool one_node = !np.hosts_before.empty() &&
                        std::all_of(np.hosts_before.begin(), np.hosts_before.end(),
                                    [&](const std::string& h) { return h == np.hosts_before.front(); });
  std::vector<std::string> out;
  for (int r : target.rank_map()) {
    const auto k = static_cast<std::size_t>(r - world_size);
    if (r < world_size)
      out.push_back(r < static_cast<int>(np.hosts_before.size()) ? np.hosts_before[static_cast<std::size_t>(r)] : "");
    else
      out.push_back(k < newcomer.size() ? newcomer[k] : one_node ? np.hosts_before.front() : "");
  }
  return out;
}

}  // namespace resize::detail
