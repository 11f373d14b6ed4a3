// SPDX-License-Identifier: BSD-3-Clause
// Placement of processes in a resized grid.
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

// gridmap reports bad input with its own error type; the session speaks resize::Error.
template <class F>
auto call(const char* what, F&& f) {
  try {
    return f();
  } catch (const gridmap::Error& e) {
    throw Error(std::string(what) + ": " + e.what());
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
                    const PlacementMatrix* matrix) {
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
    gridmap::MatrixShape shape{matrix->m, matrix->n, matrix->mb, matrix->nb, matrix->block};
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
                    const PlacementMatrix* matrix, const std::vector<std::string>& host_of_rank,
                    int inter_node_weight) {
  if (!matrix || host_of_rank.empty() || p == Placement::Given) return planned;
  const auto node = redist::node_ids(host_of_rank);
  if (*std::max_element(node.begin(), node.end()) == 0) return planned;
  if (static_cast<int>(node.size()) < planned.size())
    throw Error("place_on_nodes: " + std::to_string(node.size()) + " hosts for a grid of " +
                std::to_string(planned.size()));
  return call("place_on_nodes", [&] {
    const gridmap::MatrixShape shape{matrix->m, matrix->n, matrix->mb, matrix->nb, matrix->block};
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
