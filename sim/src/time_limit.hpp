// SPDX-License-Identifier: BSD-3-Clause
// The time-limit rule, pure: Slurm ends a job at its start plus its time limit (sbatch
// --time) and its work is lost. A job that gives nodes back, or starts on fewer nodes
// than it asked for, runs longer; so a shrink, or a start below the request, is allowed
// only while the job's predicted end stays within its limit.
//
// The predicted end of a job that goes to `n` nodes at `now`:
//   now + resize_s(n) + iterations_left * (iteration_s(n) + overhead_s)
// with resize_s the shrink's cost (0 when n is what it runs on), iteration_s(n) the
// predicted time of one iteration on n nodes and overhead_s what each remaining
// iteration spends outside its work (the policy's queries, counted at every iteration:
// an upper bound). Plain numbers in and out, so that any caller (the simulator's
// adapter, the arbiter's give-back rules) applies the same rule.
#pragma once

#include <functional>
#include <limits>
#include <string>

namespace clustersim {

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

// The limit that follows the size (RunOptions::limit_follows_size): a give-back at `now`
// from a size whose iteration takes t_from to one whose iteration takes t_to, its resize
// costing cost_s, extends the deadline by the resize and by what is left of the limit scaled
// by t_to / t_from; never past `cap` (the deadline the job would have on its minimum size,
// plus its resizes' costs: a job that grew and gives back gains no more than one started on
// its minimum), and never shortened.
struct LimitExtension {
  double by_s = 0;
  double cut_s = 0;  // what the cap cut (> 0: capped)
};
LimitExtension extend_with_size(double now, double deadline, double cap, double t_from, double t_to, double cost_s);

}  // namespace clustersim
