// SPDX-License-Identifier: BSD-3-Clause
// The time-limit rule, pure, one code for the trace simulator (sim/src/time_limit.hpp uses
// these names) and the arbiter daemon (cluster/src/daemon/state.cpp): plain numbers in and
// out, no Slurm, no I/O.
//
// Slurm ends a job at its start plus its time limit (sbatch --time) and its work is lost.
// A job that gives nodes back, or starts on fewer nodes than it asked for, runs longer; so
// a shrink, or a start below the request, is allowed only while the job's predicted end
// stays within its limit; or, where the site lets the limit follow the size (the
// simulator's --limit-follows-size, the arbiter's --extend-limits on), the give-back
// extends the limit by extend_with_size, within a cap.
//
// The predicted end of a job that goes to `n` nodes at `now`:
//   now + resize_s(n) + iterations_left * (iteration_s(n) + overhead_s)
// with resize_s the shrink's cost (0 when n is what it runs on), iteration_s(n) the
// predicted time of one iteration on n nodes and overhead_s what each remaining
// iteration spends outside its work (the policy's queries, counted at every iteration:
// an upper bound).
#pragma once

#include <functional>
#include <limits>
#include <optional>
#include <string>

namespace cluster::limits {

constexpr double kNoLimit = std::numeric_limits<double>::infinity();

struct EndPrediction {
  double now = 0;
  double resize_s = 0;     // the resize that takes the job to its new size (0: none)
  double iteration_s = 0;  // one iteration on the new size
  double overhead_s = 0;   // outside the work, per remaining iteration
  int iterations_left = 0;
  double end() const;
};

struct LimitVerdict {
  bool ok = true;
  double predicted_end = 0;
  double deadline = kNoLimit;
  std::string why;  // empty when ok; else "predicted end X s past the limit at Y s"
};

// Does the predicted end stay within `deadline` (absolute; kNoLimit: none)? The end may
// reach the deadline but not pass it.
LimitVerdict keeps_limit(const EndPrediction& p, double deadline);

// The fewest nodes in [lo, hi] whose predicted end (end_on(n), absolute) stays within
// `deadline`; hi when none does (the job keeps what it has: a shrink cannot help it), lo
// when there is no limit. end_on need not be monotone (a resize's cost may make a
// smaller step dearer than a larger one): every n is tried, the fewest that keeps the
// limit wins. Throws std::invalid_argument unless 1 <= lo <= hi.
int fewest_within(int lo, int hi, double deadline, const std::function<double(int)>& end_on);

// The limit that follows the size: a give-back at `now` from a size whose iteration takes
// t_from to one whose iteration takes t_to, its resize costing cost_s, extends the deadline
// by the resize and by what is left of the limit scaled by t_to / t_from; never past `cap`
// (the deadline the job would have on its minimum size, plus its resizes' costs: a job that
// grew and gives back gains no more than one started on its minimum), and never shortened.
struct LimitExtension {
  double by_s = 0;
  double cut_s = 0;  // what the cap cut (> 0: capped)
};
LimitExtension extend_with_size(double now, double deadline, double cap, double t_from, double t_to, double cost_s);

// The limit of a job started below its request: a job whose limit limit_s was set for
// top_nodes and that starts on start_nodes (fewer) runs under that limit scaled by its
// model's time on the smaller size over its time on the top (t_start / t_top), never by more
// than top_nodes / start_nodes (perfect scaling, the dearest case: the cap). t_start or t_top
// not above 0 (no model): the cap. start_nodes >= top_nodes, or no limit: the limit. The
// simulator's limit on n nodes (Cluster::limit_on, --limit-follows-size) is this, and so is
// the arbiter's raise at a start below the range (raise_at_start); the limit is not floored
// here (a model whose smaller size runs faster gives less: the simulator keeps that, the
// arbiter never lowers a limit).
struct StartLimit {
  double limit_s = 0;  // the limit on start_nodes
  double cap_s = 0;    // limit_s * top_nodes / start_nodes
  double cut_s = 0;    // what the cap cut (> 0: capped)
  double ratio = 1;    // the scale used
  bool modelled = false;
};
StartLimit limit_at_start(double limit_s, int start_nodes, int top_nodes, double t_start, double t_top);

// ---- the arbiter's use of the rule (Slurm's whole minutes) ----------------------------
//
// Every input but the model's times is Slurm's own record of the job: its start (squeue
// %S), its time limit now (its start and %L at the view's time), the nodes it holds (its
// own and its expander jobs', the view's), and what the arbiter noted at the job's first
// request: its limit then (the limit as submitted) and its nodes then. The job's model (its
// request's growth table: the measured iteration and the one predicted at the smaller size,
// the resize's cost) decides only how much, within the cap:
//   cap = start + submitted * start_nodes / nodes_after + the resizes' costs
// (the limit as submitted held for the nodes it started on; on fewer, a job that scales
// perfectly needs at most that share more; each resize's cost counted at most
// kMaxResizeCostS). A job that grew and gives back down to its start size gains its
// resizes' costs at most.
inline constexpr double kMaxResizeCostS = 600;

// What the arbiter keeps of a job of the recipe from its first request (Slurm's record then).
struct LimitBook {
  double start_s = 0;      // epoch seconds (squeue %S)
  double submitted_s = 0;  // its time limit at the first request, seconds
  int start_nodes = 0;     // the nodes it held then
  double costs_s = 0;      // the resizes' costs counted so far (each at most kMaxResizeCostS)
};

// A running job's time limit in seconds from Slurm's record: its start and its time left
// (%L) at `now`, rounded to Slurm's whole minutes; nullopt when unlimited or unknown
// (time_left_s < 0, no start, or a start after now).
std::optional<double> slurm_limit_s(double start_s, double time_left_s, double now);

// The cap (above) for a job of `book` holding `nodes_after` nodes after a give-back whose
// resize costs cost_s (counted within kMaxResizeCostS).
double limit_cap(const LimitBook& book, int nodes_after, double cost_s);

// A give-back's new time limit in Slurm's minutes, by extend_with_size within limit_cap:
// the limit now (limit_s, from Slurm's record), the give-back at `now` from `from` to
// `nodes_after` nodes, its iteration t_from -> t_to (the model's; t_to <= 0 or t_from <= 0:
// perfect scaling over the ranks' nodes, from_ranks -> to_ranks, the dearest case), its
// resize cost_s (the model's, at most kMaxResizeCostS). nullopt: nothing to raise by a
// whole minute (no limit, the same speed, the cap reached); the limit is never shortened.
struct LimitRaise {
  long old_min = 0, new_min = 0;
  double by_s = 0;      // what the rule gave, before the whole minutes
  double cut_s = 0;     // what the cap cut (> 0: capped)
  double cap_s = 0;     // the cap, epoch seconds
  double ratio = 1;     // t_to / t_from used
  std::string why;      // one line: the figures
};
// A start below the node range's top (--extend-limits): the job's limit as submitted
// (limit_s), the nodes Slurm started it on and the top of the range it asked for (Slurm's
// record), the model's times on both (t_start, t_top: the job's, how much within the cap),
// by limit_at_start. The new limit in whole minutes: the rule's seconds rounded up to
// Slurm's minute, never past the cap's whole minutes. nullopt: nothing to raise (at or
// above the top, no limit, not above the limit). cap_s here is the capped limit, seconds.
std::optional<LimitRaise> raise_at_start(double limit_s, int start_nodes, int top_nodes, double t_start, double t_top);

// An expander job (a node the job grew onto, a Slurm job of its own) ends no earlier than
// its job: after the job's limit was raised, the expander's (started at exp_start_s, its
// limit exp_limit_s, Slurm's record) becomes the job's end (job_start_s + job_limit_s) less
// its own start, rounded up to Slurm's minute. nullopt: it already ends then or later, a
// figure unknown, or it started before its job (not an expander of it). Its new end is the
// job's, which the rule capped: the expander gains nothing past it.
std::optional<LimitRaise> raise_expander(double job_start_s, double job_limit_s, double exp_start_s, double exp_limit_s);

std::optional<LimitRaise> raise_for_give_back(const LimitBook& book, double limit_s, double now, int nodes_after,
                                              double t_from, double t_to, int from_ranks, int to_ranks, double cost_s);

}  // namespace cluster::limits
