// SPDX-License-Identifier: BSD-3-Clause
// The executor of a resize: a plan (policy/plan.hpp, made by report/resize_plan.hpp's
// plan_steps on world rank 0 and handed to every process) carried out in a straight line,
// start the processes, hand the state over, one exchange of the matrices, commit (the
// grid, the descriptors, the record), with no call back into the session's facade: what
// the session hands it are values (executor.cpp; a respawn's old side, respawn.cpp). The
// spawn that every expansion runs (the background's too) is this room's. Internal to the
// session's MPI shell.
#pragma once

#include <string>
#include <vector>

#include "parts/handover.hpp"
#include "parts/resize_phases.hpp"
#include "policy/plan.hpp"

namespace resize::detail {

// What the session hands the executor for a respawn besides the newcomers' share, as
// values made on every process before it runs (session/remap_point.cpp): world rank 0's
// carry (RankZeroCarry, read at `read_at`, MPI_Wtime; its record, decision and seconds
// are the executor's, set after the move, and its clocks age by the seconds held), and
// the spawn fallbacks' markers (checkpoint/fallback/carry_out.hpp, armed by the session
// under remap_or_restart): world rank 0 removes `markers` (the expansion's own fallbacks')
// and `shrink_marker` (a shrink's) once the matrices moved, as each fallback's
// succeeded() does (the old processes never return to the caller that armed them), and
// `shrink_marker` also when the spawn failed (the shrink goes on as a merge).
struct RespawnShare {
  RankZeroCarry carry;  // world rank 0's (empty elsewhere)
  double read_at = 0;
  std::vector<std::string> markers;
  std::string shrink_marker;
};

// One resize from its plan to its record, over the parts it changes: `gs` (the world and
// its grid, `gs.job`, whose one owner the executor is while it runs; the registered
// matrices and their move), `record` (the resize's record) and `launch` (what a spawn
// runs). SessionState::executor() makes one.
struct Executor {
  GridSwitch gs;
  ResizeRecording record;
  const LaunchCommand& launch;

  // Carries out `plan` (the same on every process of the world): a merge's expansion or
  // shrink, a regrid, or a respawn (`how` "respawn": `respawn` its values; it returns
  // only when its spawn failed); the record begun before and concluded (or the refusal,
  // or the failed spawn recorded) after. `share`: what the session's other parts hand the
  // newcomers of an expansion (the background settings, the checkpoint cadences, the
  // generation check; a respawn's respawn_from set); the executor adds its own parts'
  // (fill_handover).
  RemapResult run(const ResizePlan& plan, const ExpansionState& share, double t_start, RespawnShare respawn = {});

 private:
  Outcome carry_out(const ResizePlan& plan, const ExpansionState& share, RespawnShare& respawn, ResizeRecord& rec,
                    double t_start);
  // A merge's expansion: the arrays staged, the processes started, the state handed
  // over, then commit.
  Outcome expand(const ResizePlan& plan, ExpansionState state, ResizeRecord& rec, double t_start);
  void stage_arrays(const ResizePlan& plan, int nnew);
  std::string start_processes(const ResizePlan& plan, int nnew, ResizeRecord& rec);
  void hand_over(ExpansionState& state, ResizeRecord& rec);
  // The one exchange of the matrices and the switch onto the grown grid (the grid, the
  // descriptors, the record's times); returns the progress line.
  std::string commit(const Grid& from, const Grid& to, ResizeRecord& rec, double t_start);
  // A respawn (respawn.cpp, docs/reference/apps.md "Merge or respawn"): its spawn's "env"
  // and predicted spawn, then respawn_move; a shrink whose respawn could not spawn goes on
  // as a merge's (nothing changed yet).
  Outcome respawn(const ResizePlan& plan, const ExpansionState& share, RespawnShare& values, ResizeRecord& rec,
                  double t_start);
  // The old processes' side: the whole new grid spawned as `layout` says, the state handed
  // over, every matrix moved onto the new processes, world rank 0's carry handed to the new
  // rank 0 (hand_carry), and every old process ends: it does not return on them. It
  // returns only when the spawn failed ({action, false, why}: nothing changed).
  Outcome respawn_move(const Decision& d, const RespawnLayout& layout, ExpansionState state, RespawnShare& values,
                       ResizeRecord& rec, double t_start);
  void hand_carry(const Decision& d, RespawnShare& values, const ResizeRecord& rec, double t_start);
};

// The fields of an expansion's hand-over that the executor's parts hold: the iteration,
// the mover and its budget, the grids, the matrices and the powers before and after the
// decision (the application's state is packed at the hand-over itself).
void fill_handover(ExpansionState& st, const Grid& from, const Grid& to, const MatrixRegistry& registry,
                   const ResizeRecorder& recorder, const SessionOptions& opt, int iteration);

// A merge's expansion onto `plan.to`: its spawn's "env" (merge_spawn_env over the nodes
// the merge places the grid on; `world_size`: the world's processes now; `yield_set`:
// OMPI_MCA_mpi_yield_when_idle set by the user), for the next spawn only.
void set_merge_spawn_env(const ResizePlan& plan, int world_size, bool yield_set);

// The spawn of an expansion, shared by the blocking and the background paths: `cmd` by
// the decision's schema, the node plan's hosts, or `nnew` processes; `seconds` measured.
// Returns "" or the spawn's error (the world unchanged). `watchdog`: its phases are set
// (null from the background's helper thread, whose phases belong to the main thread).
std::string spawn_processes(const Decision& d, const NodePlan& node_plan, int nnew, const LaunchCommand& cmd,
                            Watchdog* watchdog, double& seconds);
// Open MPI's "env" key (newline-separated assignments) for the spawns of spawn_processes
// until set again ("": none): a merge's (set_merge_spawn_env) or a respawn's
// (Executor::respawn), cleared after each spawn.
void set_spawn_env(const std::string& env);
// Processes spawn_processes brought into this process's world since it started (the
// world's size before and after each expansion, whichever thread expanded). Open MPI keeps
// state for each of them for this process's life: the refresh (RESIZE_REFRESH_AFTER,
// checkpoint/refresh.hpp) counts them. A newcomer starts at 0.
int processes_spawned();

}  // namespace resize::detail
