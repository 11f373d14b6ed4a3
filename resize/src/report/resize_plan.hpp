// SPDX-License-Identifier: BSD-3-Clause
// A resize as a plan before it is an act: plan_resize(job, decision) says what the resize
// would do and what each phase would cost, and moves nothing. Pure (resize_core): the job
// comes in as plain values the MPI shell gathers (the grid, the node of every rank, the
// registered matrices, the settings and the policy's measurements), the plan goes out as
// plain values; the same rules the shell acts by (policy/grid_choice.hpp's target_grid,
// policy/reconfigure.hpp's merge-or-respawn, background_plan.hpp's blocking rule,
// move/move_batches.hpp's batches) and the cost model the run report's bounds use
// (malleable/redist/bound.hpp over report.hpp's ResizeBounds, the bare start; without
// rates, the history's medians of reconfigure.hpp). Its JSON and table are the dry run's
// (RESIZE_DRY_RUN=1, Session::dry_run, resize_dry_run; docs/guide/porting.md "Dry run").
#pragma once

#include <algorithm>
#include <cstdint>
#include <exception>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "malleable/redist/layout.hpp"
#include "malleable/redist/matrix.hpp"
#include "malleable/resize/predict.hpp"
#include "malleable/resize/report.hpp"
#include "malleable/resize/types.hpp"
#include "policy/grid_choice.hpp"
#include "policy/plan.hpp"
#include "policy/reconfigure.hpp"

namespace resize::detail {

// The job as a decision finds it (world rank 0's view).
struct JobState {
  Grid shape;                          // the grid now (world ranks 0..size-1 after expansions and shrinks)
  int world_size = 0;                  // processes in the world now
  std::vector<std::string> hosts;      // the node of every world rank ("" unknown; empty: one unknown node)
  std::vector<int> launches;           // the launch of every world rank (empty: one launch)
  std::vector<redist::MatrixSpec> matrices;  // the registered matrices, in their order
  std::int64_t move_budget_bytes = 0;  // SessionOptions::move_budget_bytes (<= 0: one batch)
  std::string no_spawn;                // why this MPI cannot spawn ("": it can)
  // Merge or respawn: the setting, why no respawn can be made ("": one can), the iterations
  // left, the latest segment's median wall and compute iteration (< 0 unknown), the
  // generation check's pair factor (<= 0: not measured).
  Reconfigure reconfigure = Reconfigure::Auto;
  std::string respawn_blocked;
  int remaining = -1;
  double median_wall = -1, median_compute = -1, pair_factor = -1;
  // Why a begin in the background cannot be made (BackgroundPart::blocked); nullopt: it can.
  std::optional<std::string> background_blocked = std::string("background off");
  std::vector<ResizeEvent> history;    // the run's resizes so far (spawn and move medians)
  std::optional<ResizeBounds> rates;   // the report's bound rates and bare starts (none: history)
};

// What `d` would do to `job`, and cost. Never throws for a decision that cannot be carried
// out: `refused` says why (the rest empty).
ResizePlan plan_resize(const JobState& job, Decision d);

// What `d` would do to `job` without the matrices' layouts, bytes and costs: the target
// grid, the nodes, merge, respawn, background or regrid, and the mechanism; the steps the
// executor carries out (exec/executor.hpp), made on world rank 0 at a remap point. A
// decision the target grid or the merge-or-respawn model refuses comes back with
// `refused` set (never thrown: the other processes wait for this plan). plan_resize is
// this plan plus the matrices and costs.
ResizePlan plan_steps(const JobState& job, Decision d);

// The plan of `d` (planned from `from`) refused by what was raised (`e`), `context` before
// its message: its code and part in the one form (malleable/error.hpp; an exception of no
// part's Internal, resize's). The planner's own refusals, and world rank 0's when reading
// the job for a plan raised (session/remap_point.cpp).
ResizePlan refused_plan(const Grid& from, const Decision& d, const std::exception& e, const std::string& context = {});

// Merge or respawn for `d` onto `target` (an expansion or a shrink), as the shell weighs it
// (Expansion::choose_reconfiguration calls this on world rank 0): the model of
// policy/reconfigure.hpp over the job's launches, nodes, history and matrices' bytes.
ReconfigureChoice plan_reconfiguration(const JobState& job, const Decision& d, const Grid& target, const NodePlan& np);

// The rates a plan prices its redistribution with, the report's (report/bounds.cpp):
// MALLEABLE_BOUND=off: none; MALLEABLE_BOUND_COPY_BPS / _SHM_BPS; else the copy probe
// (about 50 ms, in the calling process); the bare starts from MALLEABLE_BARE_SPAWN_S /
// _JOIN_S either way.
std::optional<ResizeBounds> plan_rates();

// Ranks of a resize that copy at once: min(ranks, cores per node x nodes) (cores 0:
// unknown, every rank). The report's bound counts these (report.cpp, bound_json).
inline int ranks_at_work(int ranks, int nodes, int cores_per_node) {
  return cores_per_node > 0 ? std::min(ranks, cores_per_node * std::max(1, nodes)) : ranks;
}

// The plan as the dry run prints it: JSON (schema malleable.plan/1) and a text table.
std::string plan_json(const ResizePlan& p);
std::string plan_table(const ResizePlan& p);

}  // namespace resize::detail
