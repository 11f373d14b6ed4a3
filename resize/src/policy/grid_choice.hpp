// SPDX-License-Identifier: BSD-3-Clause
// Choosing the new grid and where the processes sit in it at a resize, and a decision validated into that grid (target_grid). Pure. The algorithms are gridmap's (topology choice, local expansion
// optimiser, Global/Local1/Local2/optimal placement); this is the session's view of
// them: a Grid (shape + world-rank map) for a Decision.
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "malleable/gridmap/placement.hpp"
#include "malleable/resize/types.hpp"

namespace resize {

// Near-square P x Q with P <= Q and P*Q == procs (square-ish grids
// do best for PDGEMM/PDGETRF).
Grid choose_topology(int procs);

// Largest R x C with R >= old.nprow, C >= old.npcol, R*C <= procs, closest to square
// (local mapping keeps old rows/columns).
Grid choose_local_topology(const Grid& old, int procs);

// Expansion: the old world's ranks keep their numbers, the newcomers are
// old_world..new_world-1. Global: row-major over world ranks. Local1: new rows/columns
// appended. Local2: interspersed at the centre of each of the r divisions (§4.5:
// the k-th new one at (k-1)p/r + p/2r). Optimal: gridmap's linear assignment that keeps
// most of `matrix` in place (Local2 without a matrix). Throws Error if a local placement
// cannot keep the old grid (new shape smaller in a dimension).
Grid plan_expansion(const Grid& old, int old_world, int nprow, int npcol, Placement p,
                    const redist::MatrixSpec* matrix = nullptr);

// Shrink to world ranks 0..keep-1 on an nprow x npcol grid: if the kept ranks of `old`
// form whole rows and columns of it (a local shrink, the reverse of a local expansion)
// their relative positions are kept; otherwise row-major (global).
Grid plan_shrink(const Grid& old, int keep, int nprow, int npcol);

// Shrink to the world ranks in `keep` (in that order they become ranks 0..k-1 of the new
// world), in old world ranks: if the kept ranks form whole rows and columns of `old`
// their relative positions are kept (a local shrink), otherwise they fill the grid in
// `keep` order. The form above is keep = 0..keep-1.
Grid plan_shrink(const Grid& old, const std::vector<int>& keep, int nprow, int npcol);
// `g` (old world ranks) in the new world's ranks: keep[i] is rank i there.
Grid renumber(const Grid& g, const std::vector<int>& keep);

// Node-aware placement of an expansion. `planned` came from plan_expansion;
// host_of_rank names the node of every rank of the grown world (ranks old_world.. are
// the newcomers). With one node, or no matrix, `planned` stands. Otherwise Optimal becomes
// the linear assignment that minimises node-weighted bytes (a byte between nodes costs
// inter_node_weight times one within a node), and the other rules keep their slots but
// put each newcomer where its node holds the data the slot needs.
Grid place_on_nodes(const Grid& planned, const Grid& old, int old_world, Placement p,
                    const redist::MatrixSpec* matrix, const std::vector<std::string>& host_of_rank,
                    int inter_node_weight = 8);

// How many of `nnew` new processes go to each named host: the given counts, and the rest
// split evenly (in order) over the hosts without one; hosts left with none are dropped.
// Throws Error when the counts exceed nnew or cannot add up to it.
std::vector<std::pair<std::string, int>> resolve_host_counts(const std::vector<HostShare>& hosts, int nnew);

// Positions (0-based, in the new dimension of p + r) of the r new rows/columns.
std::vector<int> inserted_positions(int p, int r, Placement pl);

}  // namespace resize

// A decision validated into the target grid of a resize, the same on every rank
// (RemapPoint::act, session/remap_point.cpp, broadcasts the decision, then calls
// target_grid). No MPI: the world's size, the nodes of its ranks and whether it can spawn
// come in as values.
// Unit-tested in tests/resize/policy/resize_target_grid_test.cpp.
namespace resize::detail {

// Where the processes of a resize run: which old ranks stay (shrink), which nodes go
// back (shrink) or get new processes (expand), and the node of every rank before.
struct NodePlan {
  std::vector<int> keep;                              // shrink: old ranks that stay, in order
  std::vector<std::string> release;                   // shrink: nodes given back
  std::vector<std::pair<std::string, int>> spawn;     // expand: new processes per host
  std::vector<std::string> hosts_before;              // node of every rank before
};

// The job as the decision finds it.
struct TargetInput {
  Grid shape;                                         // the grid now
  int world_size = 0;                                 // processes in the world now
  const redist::MatrixSpec* matrix = nullptr;                 // the first registered matrix (Optimal), or none
  // False, with the reason, when this MPI cannot spawn; asked only when the expansion
  // needs new processes.
  std::function<bool(std::string&)> spawn_supported;
};

// The target grid of `d` (d.placement becomes Given when the decision fixed the ranks);
// `node_plan` must hold hosts_before (the node of every world rank) and gets the rest of the
// node plan. Throws Error with the reason when the decision cannot be carried out.
Grid target_grid(Decision& d, const TargetInput& in, NodePlan& node_plan);

// The node of each position of `target` as a merge places it: an old rank's node, a
// newcomer's from the expansion's hosts (in order; one group where the launcher places
// them: the node of the job's ranks when they share one, else unknown).
std::vector<std::string> merge_hosts(const Grid& target, int world_size, const NodePlan& np);

}  // namespace resize::detail
