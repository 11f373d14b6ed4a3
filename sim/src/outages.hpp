// SPDX-License-Identifier: BSD-3-Clause
// Outages read off a log's own schedule, pure (docs/measurements/workload.md, "A second
// log with waits"): the spells in which the log ran no job at all while a job waited (the
// machine had nothing to run on: down, or held for maintenance). A spell shorter than
// min_s is left out (a scheduler's pass, a drained queue); only spells up to the window's
// last submission count (after it the window's late jobs wait for jobs it left out: the
// log's next month), a spell open then cut there. Jobs without a recorded wait are left
// out of the schedule (counted).
// In the simulation an outage takes the whole machine from its start to its end; a node
// still running a job goes down when that job ends (a drain: Slurm's DRAIN then DOWN), and
// no job starts or grows onto a node that is down.
#pragma once

#include <cstddef>
#include <limits>
#include <vector>

namespace clustersim {

struct TraceJobs;
struct PeriodPolicy;

struct Outage {
  double start_s = 0, end_s = 0;  // simulated seconds (the window's clock)
  int nodes = 0;                  // down during [start_s, end_s)
  bool operator==(const Outage&) const = default;
};

// window_s > 0 adds the partial outages: the log's schedule cut into windows of window_s
// from its first submission; in a window whose queue never emptied, the nodes the log
// never used at once in it (the machine less its peak) are down for the window (a
// scheduler with jobs waiting all the time ran what the machine let it; the peak is at
// most the capacity it had, so this is the least capacity lost).
struct OutageEvidence {
  std::vector<Outage> outages;    // by start; the whole-machine spells disjoint, a window may overlap them
  double down_s = 0;              // the whole-machine spells' total length
  double shorter_s = 0;           // nothing ran with a job waiting, in spells under min_s
  std::size_t shorter = 0, no_wait = 0;
  std::size_t partial = 0;        // windows with nodes down
  double partial_node_s = 0;      // their node-seconds down
};
// rules: the site's rules the replay keeps (a prime-time rule, periods.hpp): a job then
// counts as waiting only while they let it start (its requested time, else its run, as the
// estimate), so a spell or a window in which only jobs the rules held waited is no outage.
OutageEvidence infer_outages(const TraceJobs& t, double min_s, double window_s = 0,
                             const PeriodPolicy* rules = nullptr);

// The nodes the outages hold down at t (at most `total`).
int nodes_down(const std::vector<Outage>& o, double t, int total);
// The first start or end of an outage strictly after t (infinity: none).
double next_outage_cut(const std::vector<Outage>& o, double t);

}  // namespace clustersim
