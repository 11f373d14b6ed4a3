// SPDX-License-Identifier: BSD-3-Clause
// Internal to the session's MPI shell, the facade's own state and its operations:
// SessionState (Session::Impl is it) composes the session's parts (parts/: the world, the
// registry, the recorder, the grid switch and the recording;
// checkpoint/session_checkpoint.hpp: the checkpoints; background/background_part.hpp: the
// background part); the operations over it (the start, the checkpoint calls, the
// registration, the remap point, the expansion, the resize by restart) are declared below,
// each defined in one file of session/. Included only by the facade's files in session/
// (tests/structure/check-structure.py's LAYERS: no room below includes session/).
#pragma once

#include <mpi.h>

#include <algorithm>
#include <cstdint>
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
#include "exec/executor.hpp"
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
// complete"), set by remap_or_restart (session_by_restart.cpp) while its resize runs and empty otherwise:
// a respawn's old processes never return there, and a shrink by respawn spawns too.
// `arm(spawned)`: the fallback of a spawn of that many processes (collective: the state
// secured, the marker, the deadline); `markers()`: those the expansion's own fallbacks
// wrote (its blocking one's, the background one's), which world rank 0 removes once the
// matrices moved onto the new processes (the executor, given them as values before it
// runs: exec/executor.hpp's RespawnShare).
struct RespawnFallback {
  std::function<std::unique_ptr<ExpansionFallback>(int spawned)> arm;
  std::function<std::vector<std::string>()> markers;
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

namespace detail {

// The facade's state: one session's parts (parts/session_parts.hpp, parts/registry.hpp,
// checkpoint/session_checkpoint.hpp, background/background_part.hpp), each with one job, and
// what ties them together (options, identity, the iteration count, the watchdog); plain
// data with the makers of its views. The facade's operations (the start, the remap point
// and its act, the expansion's and the newcomers' side, the resize by restart, the
// checkpoint calls, the registration) are free functions or types over it, declared below
// by the file that holds them; the phases they hand the parts to are functions of the parts
// (parts/, checkpoint/, background/, report/), given the parts they need; the grid switch
// and the recording are views of the parts, made where a phase needs them. `cfg`: the
// environment, read once when the session is made (a newcomer's when it is spawned); no
// part reads the environment again.
struct SessionState {
  SessionWorld job;          // the world and its grid
  MatrixRegistry registry;   // the registered matrices and the application's state
  ResizeRecorder recorder;   // metrics, history, powers, predictions
  SessionCheckpoints ckpts;  // checkpoint cadences and what was written
  SessionLife life;          // started, newcomer, rank 0, MPI_Finalize hook
  ReportInputs report;       // the application's result check and problem text
  IterationMeter meter;
  ArrivalCheck arrivals;
  SessionOptions opt;
  config::Config cfg;
  LaunchCommand launch;  // what a spawn runs
  RefreshRule refresh;   // RESIZE_REFRESH_AFTER (checkpoint/refresh.hpp), parsed when made
  Reconfigure reconfigure = Reconfigure::Auto;  // RESIZE_RECONFIGURE, parsed when made
  RespawnFallback respawn_fallback;  // set by remap_or_restart around its resize
  int iteration = 0;
  Watchdog watchdog{60.0};
  BackgroundPart bg;
  Prefault prefault;  // after the registry: joined before the arrays it stages go
  // What start()'s new arrays serve (move/pages.hpp): Recovery while restart_from_levels
  // starts its grid, else Start. start() is public API without such a parameter, so the
  // restart says it here, on its own session, for that one call.
  ArrayFor start_arrays = ArrayFor::Start;

  GridSwitch grid_switch() { return {job, registry, watchdog, opt, recorder, prefault, cfg}; }
  ResizeRecording recording() { return {recorder, job, opt, watchdog, iteration, cfg.session.heap_trim}; }
  Executor executor() { return {grid_switch(), recording(), launch}; }
  CheckpointView checkpoint_view() {
    return {job, registry, ckpts, opt, cfg.checkpoint, launch, recorder.history, iteration};
  }
  void progress(const std::string& line) const { progress_line(opt, job.root(), line); }
  // Iterations left in the job (-1: not known).
  int remaining() const { return opt.total_iterations >= 0 ? std::max(0, opt.total_iterations - iteration) : -1; }
};

// The first grid, agreed on by every process (Session::start; session_start.cpp).
int start_session(SessionState& s, const Grid& asked);

// The checkpoint, restart and level calls (checkpoint_calls.cpp): each checks its call and
// hands the work to the checkpoint room's functions of the parts
// (checkpoint/session_checkpoint.hpp), given a CheckpointView of the parts they read and
// change; the restarts begin with start_session (start_on).
struct CheckpointCalls {
  SessionState& s;
  double checkpoint(const std::string& path);
  std::string checkpoint_in(const std::string& dir, int keep, double* seconds);
  int restart(const std::string& file, const Grid& g);
  void set_checkpointing(const CheckpointCadence& c);
  std::string checkpoint_if_due(bool last);
  std::vector<std::pair<std::string, std::uint64_t>> checksums() const;
  void set_level_checkpointing(const LevelCadence& c);
  double checkpoint_levels(bool partner);
  std::string level_checkpoint_if_due(bool last);
  int restart_from_levels(const std::string& dir, const Grid& g, const std::string& global_dir);
  // A restart's start on grid g, its arrays for a recovery when asked (move/pages.hpp).
  StartOn start_on();
};

// The remap point and one resize from the decision to its record (remap_point.cpp): every
// process arrived, world rank 0 asks the policy, the decision is broadcast, checked into a
// target grid and carried out (expand, shrink, regrid, or begun in the background).
struct RemapPoint {
  SessionState& s;
  RemapResult remap_point();
  RemapResult resize_now(const Decision& d);
  Session::DryRun dry_run();
  RemapResult complete_resize();
  RemapResult cancel_resize();
  // Every process arrived at this remap point, or the job ends naming the ones that did not.
  void arrive();
  // World rank 0 only: the policy's decision at this remap point (a policy that throws
  // gives Decision::none naming the error), with how an expansion brings its processes
  // (Decision::by); when the policy decides nothing, the launches waiting to join now
  // (malleable-run --join) make an expansion. Used by remap_point and next_decision.
  Decision ask_policy();
  Decision ask_policy_alone();
  // World rank 0's decision, on every process of the world (collective).
  Decision broadcast_decision(const Decision& d) const;
  // Broadcasts rank 0's decision, plans it on world rank 0 into one plan for every process
  // and hands it to the executor (expand, shrink, regrid, respawn), or begins it in the
  // background.
  RemapResult act(Decision d);
  // A decision while a resize is under way in the background (BackgroundPart).
  RemapResult decide_during_background(const Decision& d);
  // World rank 0: the job as plan_resize and plan_steps read it for `d`
  // (report/resize_plan.hpp; the rates left out: plan_texts adds them).
  JobState job_state(const Decision& d);
  // World rank 0: `d` planned over job_state (plan_steps; `whole`: plan_resize with the
  // report's rates), never throwing: what reading the job raised is the plan's refusal.
  ResizePlan planned(const Decision& d, const std::vector<std::string>& hosts, bool whole);
  // `d`'s plan (plan_steps) made on world rank 0 over `hosts` (every rank's node, the
  // same on every process), on every process (collective: one broadcast).
  ResizePlan agree_plan(const Decision& d, std::vector<std::string> hosts);
  // A plan carried out in the background (begun here).
  RemapResult begin_background(const ResizePlan& plan, double t_start);
  // Collective: `d` (the same on every process) planned on world rank 0, its JSON and
  // table on every process; nothing moves (the dry run: Session::dry_run, RESIZE_DRY_RUN).
  std::pair<std::string, std::string> plan_texts(const Decision& d);
  // The remap point under RESIZE_DRY_RUN=1: `d`'s plan printed on world rank 0, not acted on.
  RemapResult dry_run_point(const Decision& d);
  // MPI_Finalize with a background resize under way (`state`: the SessionState): cancelled.
  static void finalize_hook(void* state);
};

// An expansion, the facade's side (session_expand.cpp): the newcomers' join, the state a
// background expansion hands the newcomers, and a respawn's carry.
struct Expansion {
  SessionState& s;
  // The state an expansion from `from` to `to` hands its newcomers, packed; `background`:
  // the expansion is one begun in the background. `respawn_from`: a respawn from a world
  // of that many processes (`to` on the ranks after them).
  std::vector<char> pack_expansion(const Grid& from, const Grid& to, bool background = false, int respawn_from = 0);
  // The newcomers' side of the executor's expansion (Session::join).
  int join();
  // World rank 0's carry for a respawn as the session's parts hold it at `now` (MPI_Wtime:
  // its clocks' ages), without the resize's decision, record and seconds (the executor's,
  // exec/respawn.cpp); it throws what the policy's state() throws. The new rank 0 taking
  // it; the newcomers' side after the move.
  RankZeroCarry read_carry(double now) const;
  void adopt_carry(const RankZeroCarry& c);
  void join_respawn(const ExpansionState& st);
};

// What the session's parts other than the executor's hand an expansion's newcomers
// (remap_point.cpp): the background settings, the checkpoint cadences, the generation
// check; `background`: the expansion is one begun in the background; `respawn_from`: a
// respawn from a world of that many processes (0: a merge).
ExpansionState handover_share(const SessionState& s, bool background, int respawn_from);

// A resize decided by the policy but carried out by checkpoint, exit and restart with the
// new process count (session_by_restart.cpp): Session::next_decision, remap_or_restart.
struct ByRestart {
  SessionState& s;
  Decision next_decision();
  ResizeStep remap_or_restart(Mechanism m);
};

// Registration (session_matrix.cpp): a matrix in the application's std::vector, uniform
// blocks (`desc` its descriptor) or an extended descriptor's block sizes (`lld` its
// leading dimension); a matrix the session owns, its state returned for the handle made
// on `session` (Matrix<T>).
template <class T>
void register_vector(MatrixRegistry& registry, const std::string& name, int m, int n, int mb, int nb,
                     Distribution dist, int* desc, std::vector<T>& buf);
template <class T>
void register_blocks(MatrixRegistry& registry, const std::string& name, int m, int n, Session::BlockSizes sizes,
                     std::vector<T>& buf, int* lld);
template <class T>
std::shared_ptr<MatrixState> register_handle(SessionState& s, const Session* session, const std::string& name, int m, int n,
                                             int mb, int nb, Distribution dist, Session::BlockSizes sizes);

}  // namespace detail

// The public Session's state (malleable/resize/session.hpp names it Session::Impl): the
// facade's state above, and nothing more.
struct Session::Impl : detail::SessionState {};

}  // namespace resize
