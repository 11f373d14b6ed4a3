// SPDX-License-Identifier: BSD-3-Clause
// First-come-first-served with EASY backfilling (Lifka 1995; Mu'alem & Feitelson 2001),
// pure: which waiting jobs start now. Jobs start in submission order while they fit; when
// the oldest waiting job (the head) does not fit, it gets a reservation at the earliest
// time enough running jobs have ended by their estimates (the shadow time), and a later job
// may start now if it fits the idle nodes and either ends by its estimate before the
// shadow time or uses only nodes the head will not need then (the extra nodes).
// With node ranges (Slurm's --nodes=min-max, a malleable job's range with its requested
// size as the top), a job that does not fit at its size starts on fewer nodes, not below
// its minimum, with its estimate scaled by Amdahl's law: the head on the idle nodes, a
// backfilled job on the idle nodes if it then ends before the shadow time, else on the
// extra nodes.
#pragma once

#include <string>
#include <vector>

namespace clustersim {

struct Waiting {
  std::string id;
  int nodes = 1;         // nodes it asks for
  double estimate_s = 0; // run time estimate on those nodes
  int min_nodes = 0;     // with ranges: the fewest it starts on (0: nodes, rigid)
  double serial_fraction = 0;  // scales the estimate to other sizes
  bool limit = false;          // estimate_s is a time limit (sbatch --time): the same on any size
  double comm_fraction = 0;    // the job model's communication term (workload.hpp)
  // A limit that follows the size (Cluster::set_limit_follows_size): the size the limit was
  // asked for; on fewer nodes the limit scales with the model (0: the same on any size).
  int limit_nodes = 0;
  double estimate_on(int n) const;
};
struct Running {
  int nodes = 0;
  double estimated_end = 0;  // absolute
};

struct Start {
  std::size_t index = 0;  // into the queue
  int nodes = 0;          // nodes it starts on
  bool operator==(const Start&) const = default;
};
struct EasyResult {
  std::vector<Start> start;        // in the order they start
  double shadow = -1;              // the head's reservation (< 0: none needed)
  int extra = 0;                   // nodes free at the shadow time beyond the head's
};

// queue: waiting jobs, oldest first. Throws Error if a job asks for more than `total`.
// ranges: start jobs with a range below their size (see above).
EasyResult easy_backfill(double now, int idle, int total, const std::vector<Waiting>& queue,
                         std::vector<Running> running, bool ranges = false);

// Conservative backfilling, as Slurm's sched/backfill plans: every waiting job, oldest
// first, gets the earliest start at which its nodes are free for its whole estimate on
// the profile of free nodes (running jobs ending by their estimates, the jobs before it
// placed), and a job starts now only if that earliest start is now; so no job delays any
// job submitted before it, not only the head. With ranges a job starts now on the most
// nodes (up to its size, not below its minimum) free for its estimate on that many; it
// is planned on its minimum. shadow and extra stay unset.
// Slurm plans in blocks of bf_resolution seconds (SchedulerParameters, default 60): the
// slot a waiting job is planned in is widened to whole blocks of the wall clock, its
// start rounded down and its end up, and a job started now keeps its nodes to its end
// rounded up. A later job that would end a few seconds before a planned start is then not
// backfilled. step 0: exact times; origin: the wall clock's seconds past a whole block at
// simulated time 0.
struct Resolution {
  double step = 0;
  double origin = 0;
  double down(double t) const;
  double up(double t) const;
};
EasyResult conservative_backfill(double now, int idle, int total, const std::vector<Waiting>& queue,
                                 const std::vector<Running>& running, bool ranges = false, Resolution res = {});

}  // namespace clustersim
