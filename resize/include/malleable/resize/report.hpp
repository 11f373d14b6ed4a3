// SPDX-License-Identifier: BSD-3-Clause
// Rendering a run's metrics: the final summary table, JSON and CSV. Pure.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "malleable/resize/metrics.hpp"

namespace resize {

// One checkpoint a driver wrote: after which iteration, what it cost (slowest
// rank), why it was taken, and for --checkpoint-every auto the Young/Daly interval
// sqrt(2 C MTBF) in force at that check (from the previous checkpoint's cost; < 0: none).
// Every file the session writes into the checkpoint directory has a record, also those
// the user's cadence did not ask for (the expansion fallback's before a spawn, the one a
// resize by restart starts from).
struct CheckpointRecord {
  int after_iteration = 0;
  double seconds = 0;
  // "first" (auto: measures C), "interval", "rule", "request" (the cadence's), "last" (the
  // job's end), "before spawn" (the expansion fallback's), "before shrink" / "before
  // restart" (a resize by restart starts from it: a shrink's, an expansion's), "before
  // refresh" (an expansion by restart because the launch spawned RESIZE_REFRESH_AFTER).
  std::string reason;
  double interval_s = -1;  // auto only
  std::string file;
};

// What a checkpoint served, from its reason: "scheduled" (the cadence's: first, interval,
// rule, request), "final" (last), "before a spawn", "before a shrink", "before a restart",
// "before a refresh";
// an unknown reason is given back as it is.
std::string checkpoint_purpose(const std::string& reason);

// One version of the checkpoint levels (Session::level_records, world rank 0): every
// process's local file, and with `partner` the copies of its partners' it keeps, all in
// the node-local level directory. Counted in the summary with its purpose, as the global
// files are.
struct LevelRecord {
  int after_iteration = 0;
  bool partner = false;                 // local only, or local + partner
  double seconds = 0;                   // slowest process
  std::int64_t node_bytes = 0;          // the most bytes one node wrote (its own + partner copies)
  std::int64_t total_bytes = 0;         // all nodes
  // "rule" (the level cadence's), "before spawn" / "before restart" / "before shrink" (the
  // state secured for a resize by restart or the expansion fallback): checkpoint_purpose.
  std::string reason = "rule";
  std::int64_t files = 0;               // files written on all nodes (local + partner copies)
};

// What each resize's parts are set against in the run's JSON (docs/measurements/redist.md,
// "Against the machine's bound"): the copy/shared-memory rates per rank of the
// redistribution's bound (malleable/redist/bound.hpp) and the bare start of the same
// processes. Absent (std::nullopt): no "bound" key in the resizes.
struct ResizeBounds {
  double copy_Bps = 0;  // bytes copied per second per rank, all ranks at once
  double shm_Bps = 0;   // bytes moved between ranks per second per rank
  std::string rates_from;  // where the rates come from ("environment", "probe: ...")
  double bare_spawn_s = -1, bare_join_s = -1;  // a bare spawn / join of the same processes; -1: unknown
  // Cores of each node (0: unknown): ranks beyond a node's cores do not copy in parallel,
  // so the bound counts min(ranks, cores per node x nodes) ranks at work.
  int cores_per_node = 0;
};

// The bounds for a run's report: MALLEABLE_BOUND=off: none; MALLEABLE_BOUND_COPY_BPS and
// MALLEABLE_BOUND_SHM_BPS (bytes/s per rank, as malleable-redist-bench bound measures them;
// the shared-memory rate defaults to the copy rate); else, where some resize moved bytes, a
// probe in this process when called (a memcpy of 64 MiB, best of 3: about 50 ms) whose rate
// stands for both (the single-copy bound, one core alone: an optimistic rate, so a low
// fraction). MALLEABLE_BARE_SPAWN_S / MALLEABLE_BARE_JOIN_S: the bare starts, seconds.
std::optional<ResizeBounds> resize_bounds(const Metrics& m);

struct RunInfo {
  std::string app;       // "pdgemm"
  std::string problem;   // "N=1200 NB=64"
  std::string policy;    // "scripted 3:expand:3x3:local2,6:shrink:2x2"
  std::string redistributor;  // "redist" or "pdgemr2d"
  std::string check;     // "max |C - C_ref| = 1.2e-13 (tol 1.2e-09): OK"
  bool check_ok = true;
  int cores = 0;         // hardware threads of the host (0: host_cores() is used)
  std::vector<std::string> command_line{};  // argv, for the JSON record
  long long n = 0, nb = 0;                // problem size as numbers (0: not applicable)
  std::string distribution{};             // "block-cyclic", "block", ...
  bool check_given = true;                // false: the program gave no result check
  std::string checkpoint_every{};         // --checkpoint-every as given ("" : no checkpoints asked)
  double mtbf_s = 0;                      // --mtbf in seconds (auto)
  std::vector<CheckpointRecord> checkpoints{};  // in the order written
  std::vector<LevelRecord> levels{};             // the level versions, in the order written
  std::optional<ResizeBounds> bounds{};          // set: each resize's JSON gains "bound"
};

// Iteration times per grid segment, each resize (DRMS split, payoff point and resize
// cost, wall and dedicated-core side by side) and the result check, as a text table.
std::string summary_table(const Metrics& m, const RunInfo& info);
std::string to_json(const Metrics& m, const RunInfo& info);
// One row per iteration: iteration,procs,grid,wall_s,dedicated_s,compute_s.
std::string iterations_csv(const Metrics& m);

// Logical processors of this host (std::thread::hardware_concurrency, else sysconf).
int host_cores();

// "n/a (never pays off)" style rendering of an optional count.
std::string count_or(const std::optional<std::int64_t>& v, const std::string& none);

}  // namespace resize
