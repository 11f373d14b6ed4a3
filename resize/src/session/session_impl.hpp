// SPDX-License-Identifier: BSD-3-Clause
// Internal to the session's MPI shell, the facade's own state: Session::Impl composes the
// session's parts (parts/: the world, the registry, the recorder, the grid switch and the
// recording; checkpoint/session_checkpoint.hpp: the checkpoints; background/background_part.hpp:
// the background part). Included only by the facade's files in session/
// (tests/structure/check-structure.py's LAYERS: no room below includes session/).
#pragma once

#include <mpi.h>

#include <ctime>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "background/background_part.hpp"
#include "checkpoint/refresh.hpp"
#include "checkpoint/session_checkpoint.hpp"
#include "common/config.hpp"
#include "malleable/resize/session.hpp"
#include "parts/grid_switch.hpp"
#include "parts/registry.hpp"
#include "parts/resize_phases.hpp"
#include "parts/session_parts.hpp"
#include "parts/watchdog.hpp"
#include "policy/reconfigure.hpp"
#include "move/pages.hpp"

namespace resize {
namespace detail {

class ExpansionFallback;  // checkpoint/fallback/carry_out.hpp
struct JobState;          // report/resize_plan.hpp

// The expansion fallback around a respawn (docs/guide/checkpoint.md, "When a spawn does not
// complete"), set by Session::remap_or_restart while its resize runs and empty otherwise:
// a respawn's old processes never return there, and a shrink by respawn spawns too.
// `arm(spawned)`: the fallback of a spawn of that many processes (collective: the state
// secured, the marker, the deadline); `completed()`: the expansion's own fallback done
// (world rank 0 removes its marker once the matrices moved onto the new processes).
struct RespawnFallback {
  std::function<std::unique_ptr<ExpansionFallback>(int spawned)> arm;
  std::function<void()> completed;
};

inline double cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

}  // namespace detail

// A block-cyclic (or block) matrix's record with its checked shape and descriptor, the
// storage and element type still to set (register_matrix, the C API's resize_register*).
Registered uniform_registration(const std::string& name, int m, int n, int mb, int nb, Distribution dist,
                                int* desc);

// One session: a thin facade over its parts (parts/session_parts.hpp, parts/registry.hpp,
// checkpoint/session_checkpoint.hpp, background/background_part.hpp), each with one job, and what ties them together (options,
// identity, the iteration count, the watchdog). The phases are functions of the parts
// (parts/, checkpoint/, background/, report/), given the parts they need; the grid
// switch and the recording are views of the parts, made where a phase needs them. `cfg`:
// the environment, read once when the session is made (a newcomer's when it is spawned);
// no part reads the environment again.
struct Session::Impl {
  detail::SessionWorld job;          // the world and its grid
  detail::MatrixRegistry registry;   // the registered matrices and the application's state
  detail::ResizeRecorder recorder;   // metrics, history, powers, predictions
  detail::SessionCheckpoints ckpts;  // checkpoint cadences and what was written
  detail::SessionLife life;          // started, newcomer, rank 0, MPI_Finalize hook
  detail::ReportInputs report;       // the application's result check and problem text
  detail::IterationMeter meter;
  detail::ArrivalCheck arrivals;
  SessionOptions opt;
  config::Config cfg;
  detail::LaunchCommand launch;  // what a spawn runs
  detail::RefreshRule refresh;   // RESIZE_REFRESH_AFTER (checkpoint/refresh.hpp), parsed when made
  detail::Reconfigure reconfigure = detail::Reconfigure::Auto;  // RESIZE_RECONFIGURE, parsed when made
  detail::RespawnFallback respawn_fallback;  // set by remap_or_restart around its resize
  int iteration = 0;
  detail::Watchdog watchdog{60.0};
  detail::BackgroundPart bg;
  detail::Prefault prefault;  // after the registry: joined before the arrays it stages go
  // What start()'s new arrays serve (move/pages.hpp): Recovery while restart_from_levels
  // starts its grid, else Start. start() is public API without such a parameter, so the
  // restart says it here, on its own session, for that one call.
  detail::ArrayFor start_arrays = detail::ArrayFor::Start;

  detail::GridSwitch grid_switch() { return {job, registry, watchdog, opt, recorder, prefault, cfg}; }
  detail::ResizeRecording recording() { return {recorder, job, opt, watchdog, iteration, cfg.session.heap_trim}; }
  detail::CheckpointView checkpoint_view() {
    return {job, registry, ckpts, opt, cfg.checkpoint, launch, recorder.history, iteration};
  }
  void progress(const std::string& line) const { detail::progress_line(opt, job.root(), line); }

  void arrive();
  void warn_schedule(bool at_end) const;
  void release_mpi();
  void release_levels();  // the levels' node communicators (checkpoint/levels/write.cpp)
  // A restart's start() on `s` (checkpoint_calls.cpp), given to the checkpoint room's restarts.
  static detail::StartOn start_on(Session& s);
  // World rank 0 only: the policy's decision at this remap point (a policy that throws
  // gives Decision::none naming the error), with how an expansion brings its processes
  // (Decision::by); when the policy decides nothing, the launches waiting to join now
  // (malleable-run --join) make an expansion. Used by remap_point and next_decision.
  Decision ask_policy();
  Decision ask_policy_alone();
  // World rank 0's decision, on every process of the world (collective).
  Decision broadcast_decision(const Decision& d) const;
  // Broadcasts rank 0's decision, validates it into a target grid and carries it out
  // (expand, shrink, regrid, or begun in the background).
  RemapResult act(Decision d);
  // A decision while a resize is under way in the background (BackgroundPart).
  RemapResult decide_during_background(const Decision& d);
  // World rank 0: the job as plan_resize reads it for `d` (report/resize_plan.hpp; the
  // rates left out: plan_texts adds them), in session_expand.cpp.
  detail::JobState job_state(const Decision& d);
  // Collective: `d` (the same on every process) planned on world rank 0, its JSON and
  // table on every process; nothing moves (the dry run: Session::dry_run, RESIZE_DRY_RUN).
  std::pair<std::string, std::string> plan_texts(const Decision& d);
  // The remap point under RESIZE_DRY_RUN=1: `d`'s plan printed on world rank 0, not acted on.
  RemapResult dry_run_point(const Decision& d);
  // Iterations left in the job (-1: not known).
  int remaining() const;
  // The state an expansion from `from` to `to` hands its newcomers, packed; `background`:
  // the expansion is one begun in the background.
  // `respawn_from`: a respawn from a world of that many processes (`to` on the ranks after them).
  std::vector<char> pack_expansion(const Grid& from, const Grid& to, bool background = false, int respawn_from = 0);
  // Merge or respawn (session_expand.cpp): world rank 0's choice for `d` onto `target`
  // (policy/reconfigure.hpp), on every process (collective); the respawn carried out (the
  // old processes' side: it returns only when its spawn failed); world rank 0's carry;
  // the new rank 0 taking it; the newcomers' side after the move.
  detail::ReconfigureChoice choose_reconfiguration(const Decision& d, const Grid& target, const detail::NodePlan& np);
  detail::Outcome respawn_resize(const Decision& d, const Grid& target, const detail::NodePlan& np, ResizeRecord& rec,
                                 double t_start);
  std::vector<char> pack_carry(const ResizeRecord& rec, const Decision& d, double elapsed) const;
  void adopt_carry(const detail::RankZeroCarry& c);
  void join_respawn(const detail::ExpansionState& st);
  // A merge's expansion: its spawn's "env" (merge_spawn_env; cleared by spawn_processes).
  void set_merge_spawn_env(const Grid& target, const detail::NodePlan& np) const;
  // MPI_Finalize with a background resize under way: cancelled.
  static void finalize_hook(void* self);
};

}  // namespace resize
