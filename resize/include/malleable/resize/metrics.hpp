// SPDX-License-Identifier: BSD-3-Clause
// What a resizable run measured: per-iteration times on each grid, each resize split as
// DRMS does (spawn or exit, redistribution, other), and the derived payoff
// point and resize cost. Pure: the MPI shell feeds it numbers.
//
// Two clocks, side by side. "wall" is elapsed time (the max over ranks). "dedicated" is
// the max over ranks of the process CPU time (CLOCK_PROCESS_CPUTIME_ID) for the same
// iteration: an estimate of the iteration time if every rank had its own core, which
// matters when more ranks than cores share a machine (the 2-core demo host). It includes
// CPU spent polling inside MPI, so it over-estimates a dedicated-core iteration.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "malleable/resize/background.hpp"
#include "malleable/resize/types.hpp"

namespace resize {

struct IterationSample {
  int iteration = 0;       // 1-based
  int procs = 0;           // world size in the grid
  std::string grid;        // "3x3"
  double wall = 0.0;       // seconds, max over ranks
  double dedicated = 0.0;  // seconds, max over ranks of CPU time
  double compute = 0.0;    // seconds, max over ranks of kernel CPU time
};

// When the application reports its compute (Session::report_compute): each
// world rank's work units and compute seconds in one iteration (0: none, e.g. a rank that
// computed nothing), and the smoothed relative powers after it (speed / fastest).
struct RankSamples {
  int iteration = 0;
  std::vector<double> work, compute, powers;
};

// The node of every rank, compact (docs/measurements/scale.md): runs of consecutive ranks on one node, so
// a record costs O(runs), one per node when ranks are placed node by node (Open MPI's and
// Slurm's default), not O(P) strings. hosts[node] is a node's name, in order of first
// appearance; runs are (node, ranks) in rank order.
struct RankHosts {
  std::vector<std::string> hosts;
  std::vector<std::pair<int, int>> runs;
  static RankHosts of(const std::vector<std::string>& rank_hosts);
  int ranks() const;                      // the world's size (sum of the runs)
  bool empty() const { return runs.empty(); }
  std::vector<std::string> expand() const;  // one name per rank: O(P), for output only
};

// The clock an iteration time is taken on (Segment::median_on): "wall", "dedicated" or
// "compute" in the run's JSON and summary.
enum class Clock { Wall, Dedicated, Compute };
std::string to_string(Clock c);
// "compute" and "dedicated"; anything else is the wall clock.
Clock clock_named(const std::string& name);

// Where a resize's predicted redistribution time came from: the machine's calibrated cost
// model ("cost model"), the history of earlier resizes ("history"), or none ("").
enum class PredictedBy { None, CostModel, History };
std::string to_string(PredictedBy p);

// What was predicted before a resize (< 0: not known). Spawn/exit and other from the
// history of earlier resizes (ResizeHistory); the redistribution from the calibrated cost
// model (malleable-calibrate) or the history; the iteration time after from the policy
// (Decision::predicted_iteration) and before as measured then; the predicted payoff
// point follows.
struct ResizePrediction {
  double t_spawn = -1.0, t_redist = -1.0, t_other = -1.0;
  PredictedBy redist_by = PredictedBy::None;
  double t_iteration_before = -1.0, t_iteration_after = -1.0;
  double t_resize_policy = -1.0;   // the policy's own resize time prediction (Decision)
  Clock clock = Clock::Wall;       // the iteration times' clock
  std::string reasoning;           // the policy's reasoning (Decision::prediction)
  // t_spawn + t_redist + t_other, or < 0 when a part is unknown.
  double t_total() const { return t_spawn >= 0 && t_redist >= 0 && t_other >= 0 ? t_spawn + t_redist + t_other : -1.0; }
};

// How a background resize made progress: a helper thread (MPI_THREAD_MULTIPLE), or the
// application's progress calls.
enum class BackgroundProgress { HelperThread, ProgressCalls };
std::string to_string(BackgroundProgress p);

// A resize begun in the background at one remap point and completed (or cancelled) at a
// later one. Then the record's t_total is the time the application was stopped (the begin
// point plus the completing point); t_spawn ran at the begin point, t_redist (the variable
// matrices) at the completing point, while the constant matrices moved during
// t_overlapped.
struct BackgroundPhase {
  Background mode = Background::Wait;
  BackgroundProgress progress = BackgroundProgress::HelperThread;
  // Cancelled before it switched (the record's ok is false; the job stays on from_grid):
  // at the job's end, or superseded by a shrink (docs/reference/apps.md).
  bool cancelled = false;
  int began_after = -1;            // the remap point that began it
  double t_begin = 0.0;            // stopped at the begin point
  double t_complete = 0.0;         // stopped at the completing (or cancelling) point
  double t_wait = 0.0;             // of that, waiting for the spawn and the background messages
  double t_overlapped = 0.0;       // between the two, the old grid computing
  int iterations_overlapped = 0;   // iterations the old grid ran meanwhile
  int completion_deferred = 0;     // completing points that found it not done (continue)
  double iteration_slowdown = -1.0;  // their mean over the median before (< 0 unknown)
  std::int64_t bytes = 0;          // of the record's bytes_moved, moved in the background
};

// The bytes a resize moved, beyond the record's totals: within and between nodes, and the
// redist mover's memory (SessionOptions::move_budget_bytes): the exchanges the matrices
// went in, and the most bytes one process held during the move (its matrices' old and new
// buffers at the worst batch, plus redist's own staging at its peak); 0 with the PDGEMR2D
// mover.
// phases: the redist mover's seconds, each the slowest process's (maximum over the
// world): allocating the new buffers (stage), planning, the exchange (of it: packing,
// unpacking, the local copies; the rest is waiting and the on-node window's setup) and
// committing the buffers (freeing the old ones) with the accounting. prefault_s: before
// the move, not in it: a thread's time staging the new buffers and faulting their pages
// in while the process waited for something else (an old process: the spawn; a
// newcomer: the hand-over's collectives); the move's wait for that thread is in stage_s.
struct MovePhases {
  double stage_s = 0, plan_s = 0, exchange_s = 0, pack_s = 0, unpack_s = 0, local_copy_s = 0, commit_s = 0;
  double prefault_s = 0;
};
struct MoveStats {
  std::int64_t bytes_total = 0;  // bytes of all registered matrices
  std::int64_t bytes_intra_node = 0, bytes_inter_node = 0;
  int batches = 0;
  std::int64_t peak_bytes = 0;
  MovePhases phases;
};

// The resize's "other" time (t_other) by step, seconds on world rank 0. An expansion by
// spawn sets every field but heap_trim_s (their sum is t_other up to the rounding of the
// clock); a shrink and a regrid set grids_s and release_s. heap_trim_s comes after: not
// in t_other, nor in t_total.
struct OtherPhases {
  double decision_s = 0;  // remap point to the spawn: the decision's broadcast, every rank's node, the target grid, the prefault thread started
  double handover_s = 0;  // the state packed, shared with the newcomers and unpacked (waits for each newcomer to reach its join)
  double hosts_s = 0;     // every rank's node in the grown world
  double grids_s = 0;     // the BLACS grids of the old and the new shape (collective)
  double release_s = 0;   // after the move: the old grid released, the new one adopted
  // Once the resize concluded, every process gives its free heap back (malloc_trim(0));
  // -1: not called (RESIZE_HEAP_TRIM=off, a C library other than glibc, a resize that
  // did not succeed).
  double heap_trim_s = -1;
};

struct ResizeRecord {
  int after_iteration = 0;  // remap point
  Action action = Action::None;
  std::string from_grid, to_grid;
  int from_procs = 0, to_procs = 0;
  Placement placement = Placement::Local2;
  bool ok = true;           // false: the resize failed (or was cancelled), the job stayed on from_grid
  std::string message;      // why it failed, or notes
  // DRMS breakdown, seconds (wall, measured on world rank 0 around each phase).
  // How the processes came or went: "spawn" or "join" (an expansion: t_spawn is then the
  // time to the merged world), "exit" (a shrink; "exit of joined launches" when whole
  // joined launches left), "restart" (a resize by restart, recorded by its launcher's next
  // run), "" (a regrid).
  std::string mechanism;
  double t_spawn = 0.0;     // spawn or join (expand: to the merged world) or exit (shrink)
  double t_redist = 0.0;    // redistribution of every registered matrix
  double t_other = 0.0;     // decision, state hand-over, BLACS grids, buffers
  double t_total = 0.0;     // t_spawn + t_redist + t_other
  ResizePrediction predicted;
  std::int64_t bytes_moved = 0;  // bytes that changed rank (all matrices)
  MoveStats move;                // the move's bytes, batches and phases (bytes_total: all registered matrices)
  OtherPhases other;             // t_other by step
  std::vector<HostShare> hosts;      // the decision's nodes (expand: added; shrink: given back)
  RankHosts rank_hosts;              // node of every rank after the resize (runs)
  std::optional<BackgroundPhase> background;  // a resize begun in the background
  // How an expansion or a shrink by spawn reconfigured the job (docs/reference/apps.md,
  // "Merge or respawn"): "merge" (the processes that stay keep their places) or "respawn"
  // (every process of the new grid spawned at once, the old ones ended; mechanism
  // "respawn", t_spawn that spawn), with the reason; "" where nothing was chosen.
  std::string reconfigure, reconfigure_why;
  bool cancelled() const { return background && background->cancelled; }
};

// Payoff point ceil(t_r / (t_p1 - t_p2)): iterations
// on the new grid to amortise the resize. Empty when t_p2 >= t_p1 (never pays off).
std::optional<std::int64_t> payoff_point(double t_r, double t_p1, double t_p2);
// Resize cost ceil(t_r / t_p2): iterations the new
// grid could have run during the resize. Throws Error if t_p2 <= 0.
std::int64_t resize_cost(double t_r, double t_p2);

// A maximal run of consecutive iterations on one grid.
struct Segment {
  std::string grid;
  int procs = 0;
  int first_iteration = 0, last_iteration = 0;
  int count() const { return last_iteration - first_iteration + 1; }
  double mean_wall = 0.0, mean_dedicated = 0.0;  // steady state (see Metrics::segments)
  double median_wall = 0.0, median_dedicated = 0.0;
  double mean_compute = 0.0, median_compute = 0.0;
  double min_wall = 0.0, min_dedicated = 0.0;
  double median_on(Clock clock) const {
    return clock == Clock::Compute ? median_compute : clock == Clock::Dedicated ? median_dedicated : median_wall;
  }
  // The median on a clock named "wall", "dedicated" or "compute" (anything else: wall).
  double median_on(const std::string& clock) const { return median_on(clock_named(clock)); }
};

// One resize with the iteration times before and after it and the derived metrics.
struct ResizeAnalysis {
  ResizeRecord record;
  std::optional<Segment> before, after;
  std::optional<std::int64_t> payoff_wall, payoff_dedicated;  // empty: never pays off
  std::optional<std::int64_t> cost_wall, cost_dedicated;      // empty: no "after" data
  std::optional<std::int64_t> payoff_compute, cost_compute;
};

class Metrics {
 public:
  void add_iteration(const IterationSample& s) { iterations_.push_back(s); }
  void add_rank_samples(RankSamples s) { rank_samples_.push_back(std::move(s)); }
  const std::vector<RankSamples>& rank_samples() const { return rank_samples_; }
  void add_resize(const ResizeRecord& r) { resizes_.push_back(r); }
  const std::vector<IterationSample>& iterations() const { return iterations_; }
  const std::vector<ResizeRecord>& resizes() const { return resizes_; }

  // Segments of iterations on one grid. The first iteration after a resize is a
  // transient (caches, first-touch of new buffers) and is left
  // out of the statistics when the segment has more than one iteration.
  std::vector<Segment> segments() const;
  // Every successful resize with its neighbouring segments, payoff point and resize cost
  // computed from wall and from dedicated-core iteration times (t_r is the wall resize
  // time in both: spawning and moving data do not speed up with dedicated cores). The
  // iteration time of a segment is its median: on a shared host one preempted iteration
  // can take ten times the others and would dominate a mean.
  std::vector<ResizeAnalysis> analyse() const;
  // Median steady-state iteration time (wall or dedicated) of the latest segment if it
  // has at least `min_iters` steady iterations; empty otherwise.
  std::optional<double> current_time(int min_iters, bool dedicated) const;

 private:
  std::vector<IterationSample> iterations_;
  std::vector<ResizeRecord> resizes_;
  std::vector<RankSamples> rank_samples_;
};

}  // namespace resize
