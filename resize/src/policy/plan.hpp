// SPDX-License-Identifier: BSD-3-Clause
// A resize's plan as a value: what the pure planner makes (report/resize_plan.hpp's
// plan_steps and plan_resize), what world rank 0 hands every process
// (parts/handover.hpp's pack(ResizePlan)) and what the executor carries out
// (exec/executor.hpp). Here, below both, so that the executor's room can name it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "malleable/redist/layout.hpp"
#include "malleable/resize/types.hpp"
#include "policy/grid_choice.hpp"
#include "policy/reconfigure.hpp"

namespace resize::detail {

// One matrix of the plan: its layouts before and after and its bytes (kept + moved =
// bytes), and the batch of the move it goes in (0-based).
struct MatrixPlan {
  std::string name;
  redist::Layout from, to;
  std::int64_t bytes = 0, kept = 0, moved = 0;
  int batch = 0;
};

// A phase's predicted seconds (< 0: no model) and where the figure comes from.
struct PhaseCost {
  double seconds = -1;
  std::string from;
};

struct ResizePlan {
  Decision decision;                 // as validated (Given placement when it fixed the ranks)
  std::string refused;               // why the decision cannot be carried out ("": it can)
  malleable::Errc refused_code = malleable::Errc::Ok;  // the refusal's code and part (malleable/error.hpp)
  malleable::Part refused_part = malleable::Part::None;
  Grid from, to;                     // the grids (to: old world ranks for a shrink, grown world for an expansion)
  std::string how = "none";          // "merge", "respawn", "background", "regrid" or "none"
  std::string how_why;               // the merge-or-respawn clause, or why it is blocking
  std::string mechanism = "none";    // "spawn", "join", "exit" (shrink) or "none"
  ReconfigureChoice reconfigure;     // merge or respawn as the record names it (an expansion or a shrink)
  NodePlan nodes;                    // kept ranks, nodes given back, new processes per host
  std::vector<MatrixPlan> matrices;  // plan_resize only (plan_steps leaves them out)
  int batches = 0;
  PhaseCost start, redistribute;     // process start (spawn/join), the matrices' move
  double total_s() const;            // start + redistribute (< 0 when either has no model)
  std::int64_t bytes_kept() const;
  std::int64_t bytes_moved() const;
};

}  // namespace resize::detail
