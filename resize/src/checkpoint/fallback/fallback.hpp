// SPDX-License-Identifier: BSD-3-Clause
// An expansion by spawn that may not complete, made a resize by restart (pure part).
// MPI_Comm_spawn cannot be interrupted: a spawn that hangs (a newcomer stuck in MPI_Init,
// Open MPI's PMIx lookup that never answers) or dies (a newcomer that crashes, a node that
// refuses the launch) would cost the job. So before the spawn the session secures the
// state before the resize (a checkpoint) and writes DIR/<app>.next for the target size with
// a marker line; a spawn that has not returned by its deadline makes every process exit
// with the restart status, and malleable-run relaunches at the target size from
// that checkpoint (also when the launch ends with another status while the marker is
// there). This file decides: the deadline from the session's own spawn times, the
// settings, the texts. The shell is fallback/carry_out.cpp.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "malleable/resize/predict.hpp"

namespace resize::detail {

// How a spawn's deadline is derived: factor x the expected spawn time, at least `floor`
// and at most `cap` seconds (RESIZE_SPAWN_DEADLINE=FLOOR[:FACTOR[:CAP]]).
struct DeadlineRule {
  double floor = 60;   // seconds; also the deadline of a session with no spawn yet
  double factor = 4;   // times the expected spawn time
  double cap = 150;    // seconds; below blacs-dyn's join timeout (180 s), which ends the job
};

// RESIZE_SPAWN_DEADLINE's text (nullopt or empty: the defaults). Throws Error naming the
// variable and its value unless it is FLOOR[:FACTOR[:CAP]] with 0 < FLOOR <= CAP and
// FACTOR >= 1, all finite.
DeadlineRule parse_deadline_rule(const std::optional<std::string>& text);

// RESIZE_SPAWN_FALLBACK's text: unset, empty, "on", "1": on; "off", "0": off. Throws
// Error naming the value otherwise.
bool parse_fallback_enabled(const std::optional<std::string>& text);

// A spawn's deadline and what it was derived from.
struct SpawnDeadline {
  double seconds = 0;   // the deadline
  double expected = 0;  // the expected spawn time (0: no spawn in the history)
  int samples = 0;      // expansions of the history it was derived from
  bool floored = false, capped = false;
};

// The deadline for a spawn of `nnew` processes from the expansions in `history` (the
// newest kMaxSamples Expand events with t_spawn > 0): each one's spawn time, scaled up in
// proportion when it spawned fewer processes than `nnew` (never down), and the largest of
// those is the expected time (a deadline must not fire on a spawn as slow as one already
// seen). Then factor x expected, clamped to [floor, cap]. No such event: the floor.
inline constexpr std::size_t kMaxSamples = 20;
SpawnDeadline spawn_deadline(const std::vector<ResizeEvent>& history, int nnew, const DeadlineRule& rule);

// "spawn deadline 30.0 s (floor; 4 x the slowest of 3 spawns scaled to 5 processes: 1.2 s)"
std::string describe(const SpawnDeadline& d, const DeadlineRule& rule);

// Which checkpoint secures the state before the spawn: the cheapest configured level that
// survives the relaunch. What each level survives (docs/guide/checkpoint.md, "When a spawn
// does not complete"): every failure the fallback handles (the spawn hangs, a newcomer
// dies, a new node refuses the launch, Slurm takes the new nodes back) leaves the job's
// current nodes and what they keep in node-local storage: the local level (node memory)
// survives when the relaunch runs on all of them again. A relaunch elsewhere (a node of
// the job gone as well, a new allocation) needs the global level.
enum class FallbackLevel { Local, Global };
const char* fallback_level_name(FallbackLevel l);
// `levels`: the session keeps checkpoint levels (set_level_checkpointing); `now`: the
// current world's hosts (one per rank, repeats allowed); `relaunch`: the hosts the relaunch
// names (empty: the launcher's own, the same as now).
FallbackLevel fallback_level(bool levels, const std::vector<std::string>& now, const std::vector<std::string>& relaunch);

// The checkpoint name DIR/<app>.next carries when the state is in the levels: the launcher
// relaunches with --restart-levels instead of --restart FILE.
inline constexpr const char* kLevelsCheckpoint = "levels";
// What the progress line and the messages call the checkpoint `file` (kLevelsCheckpoint:
// "the local checkpoint level (node memory)").
std::string checkpoint_text(const std::string& file);
// The restart options of a relaunch by hand from `file` ("--restart FILE" or
// "--restart-levels").
std::string restart_option(const std::string& file);

// The marker line the launcher knows a pre-spawn .next by (malleable-run).
inline constexpr const char* kSpawnMarker = "spawn-fallback";

// What every process's deadline thread says (world rank 0) when the spawn did not return:
// the iteration, the deadline, the checkpoint to restart from and how. `what`: the resize
// whose spawn it was ("expansion by spawn", or a respawn's: "shrink by respawn").
std::string expired_message(const std::string& app, int iteration, const std::string& deadline_text,
                            const std::string& from_grid, int nprow, int npcol, const std::string& file,
                            const std::string& next_path, const std::string& what = "expansion by spawn");

}  // namespace resize::detail
