// SPDX-License-Identifier: BSD-3-Clause
// The expansion fallback's shell (fallback/fallback.hpp has the why and the pure part):
// the checkpoint and the marker before a spawn, the deadline of every process armed (its
// thread: watchdog.hpp's spawn deadline), and the marker's removal once the expansion
// succeeded.
#pragma once

#include <mpi.h>

#include <functional>
#include <string>
#include <vector>

#include "common/config.hpp"
#include "malleable/resize/predict.hpp"
#include "malleable/resize/report.hpp"
#include "malleable/resize/session_options.hpp"

namespace resize::detail {

// What the session knows about the expansion about to be tried.
struct FallbackInputs {
  std::string app;
  int iteration = 0;
  std::string from_grid;   // "2x2"
  int nprow = 0, npcol = 0;
  int nnew = 0;            // processes to spawn
  std::string dir;         // the checkpoint directory (DIR/<app>.next goes there)
  std::vector<std::string> hosts;  // the next launch's nodes (hosts_after_restart; empty: the launcher's)
  const std::vector<ResizeEvent>* history = nullptr;  // world rank 0's resize history
  MPI_Comm world = MPI_COMM_NULL;
  bool root = false;       // world rank 0
  bool progress = true;    // print the deadline and the checkpoint's time (world rank 0)
  // RESIZE_SPAWN_FALLBACK and RESIZE_SPAWN_DEADLINE as the session read them at its start.
  config::Text spawn_fallback, spawn_deadline;
  std::string what = "expansion by spawn";  // the resize, as the expired deadline names it
};

// The newest checkpoint of world rank 0's records if it is of `iteration` and readable (the
// cadence's checkpoint at this remap point: the state before the resize already), else
// empty; the same on every process of `world` (collective).
std::string checkpoint_of_iteration(const std::vector<CheckpointRecord>& records, int iteration, bool root,
                                    MPI_Comm world);

// Whether world rank 0's newest level checkpoint is of `iteration` (the levels' cadence
// wrote it at this remap point: reused); the same on every process of `world` (collective).
bool level_of_iteration(const std::vector<LevelRecord>& records, int iteration, bool root, MPI_Comm world);

// One expansion's fallback (collective to make, over `world`): when enabled
// (RESIZE_SPAWN_FALLBACK), the state before the resize secured by `checkpoint` (returns the
// file, the same on every process, and its seconds, < 0 for a checkpoint of this iteration
// reused), DIR/<app>.next with the marker written by world rank
// 0, and this process's deadline armed. Disarmed when the spawn returned
// (disarm_spawn_deadline, watchdog.hpp) or by the destructor.
// A checkpoint or marker that cannot be written (the same on every process) leaves it
// inactive with a warning on world rank 0: the expansion is tried without the fallback.
class ExpansionFallback {
 public:
  // `deferred`: the spawn runs in the background (arm_background_fallback).
  ExpansionFallback(const FallbackInputs& in, const std::function<std::string(double*)>& checkpoint,
                    bool deferred = false);
  ~ExpansionFallback();
  ExpansionFallback(const ExpansionFallback&) = delete;
  ExpansionFallback& operator=(const ExpansionFallback&) = delete;
  bool active() const { return active_; }
  const std::string& file() const { return file_; }  // the checkpoint (empty: not active)
  // The marker it wrote, DIR/<app>.next, which succeeded() removes ("": not active).
  std::string marker() const { return active_ ? next_ : std::string(); }
  // The expansion completed: world rank 0 removes the marker (DIR/<app>.next).
  void succeeded();
  // A newer checkpoint of the state (the cadence's, while a background spawn is under way):
  // the marker names it instead (world rank 0), so that the relaunch does not look for a
  // file `keep` has removed meanwhile.
  void renew(const std::string& file);

 private:
  bool active_ = false, root_ = false;
  int nprow_ = 0, npcol_ = 0;
  std::string file_, next_;
  std::vector<std::string> hosts_;
};

// A background expansion (the spawn on a helper thread while the old grid computes): the
// same checkpoint, marker and deadline, kept until the resize ends; but when the deadline
// passes, the next remap point ends the resize by restart from the state then (nothing
// computed meanwhile is lost) instead of the process at once. Only while the main thread
// waits for the spawn (background_fallback_waiting(true): a completing or cancelling
// point) does the deadline end the process as a blocking one does; and if no remap point
// comes within as long again (at least 10 s), too. Collective to arm.
void arm_background_fallback(const FallbackInputs& in, const std::function<std::string(double*)>& checkpoint);
// Collective over `world` at a remap point: whether the deadline of the background
// expansion under way passed on any process (then it is disarmed everywhere).
bool background_fallback_expired(MPI_Comm world);
// The main thread is about to wait for (true) or is done waiting for (false) the spawn.
void background_fallback_waiting(bool waiting);
// The background resize ended (`completed`: the marker removed) or is left (failed, ended
// by restart): its fallback disarmed.
void background_fallback_end(bool completed);
// The cadence wrote `file` (every process): while a background expansion's fallback with a
// global checkpoint is armed, its marker names that newer checkpoint.
void background_fallback_checkpointed(const std::string& file);
// Its checkpoint ("" if none is armed).
std::string background_fallback_file();
// Its marker, DIR/<app>.next ("" if none is armed).
std::string background_fallback_marker();

// A resize by restart: world rank 0 writes DIR/<app>.next (as .tmp, renamed) with the
// target grid, `file` and `hosts` (and "new-allocation" for such a decision) and says so;
// a failure is CheckpointFailed on every process (collective).
void write_next_launch(const std::string& app, const std::string& dir, int iteration, const std::string& from_grid,
                       const Decision& d, const std::string& file, const std::vector<std::string>& hosts, bool root,
                       MPI_Comm world);

}  // namespace resize::detail
