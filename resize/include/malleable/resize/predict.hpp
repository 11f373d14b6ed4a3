// SPDX-License-Identifier: BSD-3-Clause
// Measure, predict, decide. Pure, no MPI: the session
// feeds measurements in and policies read predictions out.
//
//  - SpeedEstimator: each process's speed (work units per second of its own compute),
//    smoothed so that one preempted iteration does not move it but a lasting load change
//    is followed within a few iterations (measured load, share and speed). Its relative speeds are the "measured powers" that feed
//    gridmap's heterogeneous mapping instead of a --powers list.
//  - ResizeHistory: spawn (expand) and exit (shrink) times, and the remaining "other"
//    resize time, predicted from the resizes measured before, in this run and earlier
//    ones (a JSON file the user can inspect).
//  - predict_payoff: predicted resize time and iteration time on the new grid give the
//    predicted payoff point; the payoff rule resizes only
//    when the predicted gain over the remaining iterations exceeds the predicted cost.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "malleable/resize/types.hpp"

namespace resize {

// ---------------------------------------------------------------------------------------
// Per-process speed.
class SpeedEstimator {
 public:
  struct Options {
    // Samples kept per process; the estimate is robust to a minority of outliers among them.
    int window = 5;
    // A lasting change: when this many consecutive samples all lie more than `jump`
    // (relative) away from the estimate on the same side, the estimate restarts from them.
    int confirm = 3;
    double jump = 0.25;
  };
  SpeedEstimator() = default;
  explicit SpeedEstimator(Options o);  // window, confirm >= 1, jump > 0 (throws Error)

  // One iteration of process `rank`: `work` units computed in `seconds` of its compute
  // (wall time of its own share, not waiting for others). Samples with work <= 0 or
  // seconds <= 0 or non-finite values are ignored (a process off the grid, a skipped
  // iteration). rank >= 0 (throws Error otherwise). A sample more than `jump` off the
  // estimate is held out of it until `confirm` such samples in a row (the estimate
  // restarts from them) or a sample back near the estimate or on the other side (it joins
  // the window, whose median absorbs it).
  void add(int rank, double work, double seconds);
  // Smoothed speed (work units per second); empty before the first sample of `rank`.
  std::optional<double> speed(int rank) const;
  // Number of samples of `rank` since its estimate last restarted (0: none).
  int samples(int rank) const;
  // Relative powers of ranks 0..n-1: speed / the largest known speed among them, in
  // (0, 1]. A rank without an estimate gets the mean of the known ones (1 if none is
  // known). n >= 0.
  std::vector<double> powers(int n) const;
  // After the world was renumbered: new rank k takes the history of old rank
  // old_of_new[k] (-1: a new process without history). Other ranks are forgotten.
  void renumber(const std::vector<int>& old_of_new);
  // Forgets `rank` (e.g. its process left or its load was reset by the user).
  void forget(int rank);

 private:
  struct Track {
    std::deque<double> recent;   // newest samples, at most window
    std::deque<double> pending;  // consecutive samples off the estimate on one side
    double estimate = 0;
    int count = 0;
  };
  Options opt_;
  std::map<int, Track> tracks_;
};

// ---------------------------------------------------------------------------------------
// Resize times from history.
struct ResizeEvent {
  Action action = Action::None;  // Expand, Shrink or Regrid (nobody spawned: t_spawn 0)
  int from_procs = 0, to_procs = 0;
  int hosts = 0;                 // nodes spawned on or given back (0: not known / one)
  double t_spawn = 0;            // spawn (expand) or exit (shrink), seconds
  double t_redist = 0;           // redistribution, seconds
  double t_other = 0;            // everything else, seconds
  double bytes_moved = 0;        // for reference (redistribution is predicted elsewhere)
  // The program that made it: "<app>-<16 hex digits of its executable path's hash>"
  // (resize_history_program); empty: not known (a history written before it was kept).
  std::string program{};
  // A respawn (docs/reference/apps.md, "Merge or respawn"): every process of the new grid
  // was spawned (to_procs of them; t_spawn is that spawn) and the old ones ended. JSON
  // "respawn": true (absent: false).
  bool respawn = false;
};

class ResizeHistory {
 public:
  // Newest events kept (older ones are dropped first).
  static constexpr std::size_t kMaxEvents = 200;

  // Ignores Action::None, and events with procs < 1, hosts < 0 or
  // times/bytes that are not finite and >= 0. An event without a program is this
  // history's program's (set_program). The newest kMaxEvents of each program are kept.
  void add(ResizeEvent e);
  // One file may hold several programs' events (RESIZE_HISTORY=<file> shared by a user's
  // programs): after set_program(key) only that program's events predict and are
  // events(); the others (and those of no known program) are kept and saved, never used.
  // Empty key (the default): every event.
  void set_program(const std::string& key);
  const std::string& program() const { return program_; }
  const std::vector<ResizeEvent>& events() const { return events_; }   // the program's
  const std::vector<ResizeEvent>& all_events() const { return all_; }  // every program's

  // Predicted spawn (Expand) or exit (Shrink) seconds for a resize from -> to processes,
  // from the events of the same action (a respawn's counts as an expansion's spawn of its
  // to_procs; predict a respawn's spawn as Expand from 0 to its processes): a least-squares line in the number of processes
  // added or removed when the history has at least two distinct counts, otherwise the
  // median of the events with that action (scaled by count for a different count is NOT
  // done: one point gives no slope). Empty without an event of that action.
  std::optional<double> predict_spawn(Action a, int from_procs, int to_procs) const;
  // Predicted redistribution seconds for `bytes` moved between processes, when the
  // machine has no calibrated cost model: the same line-or-median over every event that
  // moved bytes (any action). Empty without one.
  std::optional<double> predict_redist(double bytes) const;
  // (With fewer than 3 events the smallest time is predicted, not a line or a median:
  // resize times on a shared machine are only ever inflated, and one or two samples
  // cannot tell an outlier.)
  // Predicted "other" seconds (decision, state hand-over, grids, buffers): median of
  // the events of that action. Empty without one.
  std::optional<double> predict_other(Action a, int from_procs, int to_procs) const;

  // JSON text: {"format":"malleable.resize_history","version":1,"events":[{...}]}.
  std::string to_json() const;
  // Throws Error naming `source` and the field at fault on a malformed text.
  static ResizeHistory from_json(const std::string& text, const std::string& source = "resize history");
  // Atomic write (temporary file + rename), creating the directory; load throws Error
  // naming the path when it cannot be read or parsed.
  void save(const std::string& path) const;
  static ResizeHistory load(const std::string& path);

 private:
  std::vector<ResizeEvent> all_;     // in the order added, every program's
  std::vector<ResizeEvent> events_;  // those of program_ (all_ when it is empty)
  std::string program_;
};

// Where a session keeps its resize history across runs: one file per
// application, so one program's spawn times never predict another's (and in a file
// several programs share, each event names its program: ResizeHistory::set_program).
//   $RESIZE_HISTORY unset: $XDG_CACHE_HOME (absolute; else $HOME/.cache)
//     /malleable/history/<app>-<16 hex digits of the executable path's hash>.json;
//   $RESIZE_HISTORY=off (or empty): in memory only, nothing read or written;
//   $RESIZE_HISTORY=<file>: that file.
// A $HOME that is not an existing directory (HOME=/nonexistent) is not created: in memory.
// No cache directory (neither XDG_CACHE_HOME nor HOME set): in memory.
// These variables are read at the call; a Session reads them once, when it is made.
struct HistoryLocation {
  std::string path;  // empty: keep the history in memory
  std::string why;   // with an empty path: the reason, for a notice
  bool off = false;  // the user turned it off (no notice needed)
};
HistoryLocation resize_history_location(const std::string& app, const std::string& executable);
// The key of a program's events in a history: resize_history_file_name without ".json".
// The problem size is not part of it: spawn and exit times do not depend on it, and a
// redistribution is predicted from the bytes it moves (predict_redist).
std::string resize_history_program(const std::string& app, const std::string& executable);
// "<app>-<hash>.json": the application's name with characters outside [A-Za-z0-9._-]
// replaced by '_', and a 64-bit FNV-1a hash of the executable's path (stable across
// runs, builds and machines).
std::string resize_history_file_name(const std::string& app, const std::string& executable);

// ---------------------------------------------------------------------------------------
// Payoff prediction and the payoff rule (gain over the remaining iterations > cost).

// The thesis's T_Th of a layout: the slowest process's compute time,
// max over p of work[p] / speed[p] (processes with work 0 are skipped). Throws Error on
// sizes that differ or a non-positive speed where work > 0.
double compute_time(const std::vector<double>& work, const std::vector<double>& speed);

struct PayoffPrediction {
  double t_spawn = 0, t_redist = 0, t_other = 0;
  double t_resize = 0;          // t_spawn + t_redist + t_other
  double t_iter_now = 0;        // measured iteration time on the current grid
  double t_iter_new = 0;        // predicted iteration time on the new grid/layout
  int remaining = 0;            // iterations left after this remap point (<= 0: unknown)
  std::optional<std::int64_t> payoff;  // ceil(t_resize / (now - new)); empty: never pays
                                       // (now <= new, or beyond 2^62 iterations)
  double gain = 0;              // (now - new) * remaining (0 when remaining unknown)
  bool pays = false;            // gain > t_resize (remaining unknown: payoff exists)
  std::string why;              // one line: the numbers behind `pays`
};
// Inputs must be finite and >= 0 (throws Error naming the one at fault).
PayoffPrediction predict_payoff(double t_iter_now, double t_iter_new, double t_spawn, double t_redist,
                                double t_other, int remaining);

// A resize's start and move priced by one model, the one the dry run's planner
// (resize/src/report/resize_plan.hpp) and the cluster simulator (sim/src/costs.cpp) call:
//   start_s        = bare_start_s where > 0, else start_fixed_s + start_per_unit_s * started
//                    (units: processes for the planner, nodes for the simulator)
//   redistribute_s = max(memory, link), where
//     memory = (kept / copy_Bps + moved / shm_Bps) / ranks_at_work: the run report's
//              copy/shared-memory bound (malleable/redist/bound.hpp); 0 without the rates
//     link   = link_ratio * link_bytes / (link_nodes * link_Bps): each node of the smaller
//              side moving its share through its one link, times the measured ratio of
//              time to that bound; 0 without a link rate
struct ResizePriceInput {
  double bare_start_s = -1, start_fixed_s = 0, start_per_unit_s = 0;
  int started = 0;
  double kept_bytes = 0, moved_bytes = 0, copy_Bps = 0, shm_Bps = 0;
  int ranks_at_work = 1;
  double link_bytes = 0, link_Bps = 0, link_ratio = 1;
  int link_nodes = 1;
};
struct ResizePrice {
  double start_s = 0, redistribute_s = 0;
};
// Throws Error for counts < 1 where a term needs them (ranks_at_work, link_nodes).
ResizePrice price_resize(const ResizePriceInput& in);

}  // namespace resize
