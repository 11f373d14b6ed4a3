// SPDX-License-Identifier: BSD-3-Clause
// malleable-clustersim's simulation, SimGrid's S4U actors on a generated cluster of N
// hosts: a submitter actor submits the workload's jobs at their times; a scheduler actor
// runs FCFS with EASY (or conservative) backfilling whenever the queue or the idle nodes
// change; one actor per job runs on its first node: a rigid job sleeps its run time, a
// malleable job sleeps iteration by iteration and at each remap point asks the project's
// Slurm policy (policy.hpp), paying the cost model's resize time (costs.hpp) when it
// shrinks or grows. The pure state is cluster.hpp; this only moves simulated time.
//
// Time limits (time_limit.hpp), when kept: a job ends at its start + the cost file's
// launch time + its limit (the log's run time already holds the launch), killed, its work
// lost; a malleable job gives nodes back only down to the fewest on which its predicted
// end keeps its limit (a give-back the policy asked for beyond that is refused, counted
// and logged as rule "time-limit"), grows only when its predicted end stays within it, and
// asks the policy only while the query's own time leaves its end within it.
#pragma once

#include <cstdint>
#include <ostream>
#include <vector>

#include "cluster.hpp"
#include "costs.hpp"
#include "metrics.hpp"
#include "malleable/cluster/cluster.hpp"

namespace clustersim {

struct RunOptions {
  double interval_s = 0;    // between a malleable job's policy queries (0: every remap point)
  bool arbiter = true;      // cluster::slurm::arbitrate; false: the single-job cluster::slurm::decide
  bool no_resizes = false;  // --policy none: malleable jobs keep the nodes they start on
  // Full: one launch on every node Slurm gave (none can leave); Min, One: a launch on the
  // minimum or one process, spawning onto the rest; Recipe: one launch per node, every node
  // but the first able to leave, down to the job's minimum (docs/guide/slurm.md's recipe)
  enum class Start { Full, Min, One, Recipe } start = Start::Full;
  bool time_limits = true;
  bool no_growth = false;     // the growth lever off: a job never adds idle nodes
  bool no_give_back = false;  // the give-back lever off: a job never gives nodes back
  // The site's time limit follows the job's size (a lever, off by default): a job started
  // below its request runs under its limit scaled by its model's time on that size, and a
  // give-back extends what is left of the limit by the same ratio, never past the limit it
  // would have on its minimum size plus its resizes' costs (an operator's `scontrol
  // update JobId=J TimeLimit=...`; Slurm plans with the new limit), so neither is refused
  // by the limit (Cluster::set_limit_follows_size). The arbiter's --extend-limits on makes
  // both raises in Slurm by the same functions (limits::raise_at_start, raise_for_give_back).
  bool limit_follows_size = false;
  // A start below the request guarded by the limit (Cluster::set_start_guard); false:
  // Slurm's own start of a -N min-top job, under the limit as submitted.
  bool start_guard = true;
  cluster::slurm::ArbiterOptions arbiter_options;
  std::ostream* decisions = nullptr;  // JSON lines, one per resize decision (and refusal)
};

struct RunCounts {
  long decide_calls = 0;
  long limit_refusals = 0;   // give-backs the policy asked for, refused (or cut) by the limit
  long growth_refusals = 0;  // growths refused: their predicted end passed the limit
  long limit_extensions = 0;     // limit_follows_size: give-backs that extended their job's limit
  double limit_extension_s = 0;  // the seconds those extensions added, summed
  // Extensions cut at the limit the job would have on its minimum size (a job that grew and
  // gives back), and the seconds cut.
  long limit_extensions_capped = 0;
  double limit_extension_capped_s = 0;
  long queries_skipped = 0;  // policy queries left out: their own time would pass the limit
  long user_limit_held = 0;  // jobs a pass held for their user's limit (Cluster::set_user_limits)
  long starts_narrowed = 0;  // malleable jobs a pass held below their limit's floor (Cluster::narrowed)
};

// Simulates the workload to its end on `engine` (one call per process: SimGrid's engine
// runs once). Returns every job's record.
std::vector<JobRecord> simulate(Cluster cluster, const Costs& costs, const RunOptions& o, RunCounts& counts);

}  // namespace clustersim
