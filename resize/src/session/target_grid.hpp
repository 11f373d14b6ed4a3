// SPDX-License-Identifier: BSD-3-Clause
// Internal, pure: a decision validated into the target grid of a resize, the same on
// every rank (Session::Impl::act broadcasts the decision, then calls this). No MPI: the
// world's size, the nodes of its ranks and whether it can spawn come in as values.
// Unit-tested in tests/resize/resize_target_grid_test.cpp.
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "policy/grid_choice.hpp"
#include "malleable/resize/types.hpp"

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
  const PlacementMatrix* matrix = nullptr;                 // the first registered matrix (Optimal), or none
  // False, with the reason, when this MPI cannot spawn; asked only when the expansion
  // needs new processes.
  std::function<bool(std::string&)> spawn_supported;
};

// The target grid of `d` (d.placement becomes Given when the decision fixed the ranks);
// `node_plan` must hold hosts_before (the node of every world rank) and gets the rest of the
// node plan. Throws Error with the reason when the decision cannot be carried out.
Grid target_grid(Decision& d, const TargetInput& in, NodePlan& node_plan);

}  // namespace resize::detail
