// SPDX-License-Identifier: BSD-3-Clause
// The expansion fallback's shell (fallback/carry_out.hpp): checkpoint, marker and
// the deadline (its thread is watchdog.cpp's spawn deadline). When the deadline passes each
// process ends itself with the restart status, and mpiexec ends the rest of the job, the
// newcomers of the spawn included.
#include "checkpoint/fallback/carry_out.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <optional>

#include <unistd.h>

#include "checkpoint/by_restart.hpp"
#include "common/broadcast.hpp"
#include "common/config.hpp"
#include "malleable/resize/session_options.hpp"
#include "checkpoint/fallback/fallback.hpp"
#include "parts/watchdog.hpp"

namespace resize::detail {

namespace {
// The fallback of a background expansion under way: it outlives the remap point that began
// it. Never destroyed (a static's destructor could run after the spawn deadline's).
std::optional<ExpansionFallback>& background_slot() {
  static auto* slot = new std::optional<ExpansionFallback>();
  return *slot;
}
}  // namespace

void arm_background_fallback(const FallbackInputs& in, const std::function<std::string(double*)>& checkpoint) {
  background_slot().reset();
  background_slot().emplace(in, checkpoint, true);
}

bool background_fallback_expired(MPI_Comm world) {
  auto& slot = background_slot();
  if (!slot || !slot->active()) return false;  // the same on every process (armed collectively)
  int e = spawn_deadline_expired() ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &e, 1, MPI_INT, MPI_MAX, world);
  if (e) disarm_spawn_deadline();
  return e != 0;
}

void background_fallback_waiting(bool waiting) {
  if (background_slot() && background_slot()->active()) spawn_deadline_deferred(!waiting);
}

void background_fallback_end(bool completed) {
  auto& slot = background_slot();
  if (!slot) return;
  if (completed) slot->succeeded();
  slot.reset();
}

void background_fallback_checkpointed(const std::string& file) {
  auto& slot = background_slot();
  if (slot && slot->active() && !file.empty() && slot->file() != kLevelsCheckpoint) slot->renew(file);
}

std::string background_fallback_file() {
  return background_slot() && background_slot()->active() ? background_slot()->file() : std::string();
}

std::string background_fallback_marker() { return background_slot() ? background_slot()->marker() : std::string(); }

void write_next_launch(const std::string& app, const std::string& dir, int iteration, const std::string& from_grid,
                       const Decision& d, const std::string& file, const std::vector<std::string>& hosts, bool root,
                       MPI_Comm world) {
  std::string why;
  if (root) {
    const std::string next = dir + "/" + app + ".next";
    try {
      std::ofstream out(next + ".tmp");
      out << next_launch_text(d.nprow, d.npcol, file, hosts);
      // The hosts are not the job's yet: the launcher asks for a new allocation with them.
      if (d.new_allocation) out << "new-allocation\n";
      out.close();
      if (!out) why = "cannot write " + next + ".tmp";
      else if (std::rename((next + ".tmp").c_str(), next.c_str()) != 0) why = "cannot rename " + next + ".tmp to " + next;
    } catch (const std::exception& e) {
      why = e.what();
    }
    if (why.empty()) {
      std::printf("[%s] resize by restart after iteration %d: %s -> %dx%d (%d processes); checkpoint %s, exit %d\n",
                  app.c_str(), iteration, from_grid.c_str(), d.nprow, d.npcol, d.nprow * d.npcol,
                  checkpoint_text(file).c_str(), kExitResizeByRestart);
      std::fflush(stdout);
    }
  }
  why = broadcast_text(why, 0, world);
  if (!why.empty()) throw CheckpointFailed("resize by restart: " + why);
}

std::string checkpoint_of_iteration(const std::vector<CheckpointRecord>& records, int iteration, bool root,
                                    MPI_Comm world) {
  std::string have;
  if (root && !records.empty() && records.back().after_iteration == iteration &&
      ::access(records.back().file.c_str(), R_OK) == 0)
    have = records.back().file;
  return broadcast_text(have, 0, world);
}

bool level_of_iteration(const std::vector<LevelRecord>& records, int iteration, bool root, MPI_Comm world) {
  int have = root && !records.empty() && records.back().after_iteration == iteration ? 1 : 0;
  MPI_Bcast(&have, 1, MPI_INT, 0, world);
  return have != 0;
}

namespace {
// World rank 0 (`root`): why the expansion goes on without the fallback, `what` having
// failed before the spawn.
void warn_without_fallback(bool root, const std::string& app, const char* what, const std::string& why) {
  if (!root) return;
  std::fprintf(stderr, "[%s] warning: %s before the spawn failed (%s): expanding without the fallback\n", app.c_str(),
               what, why.c_str());
  std::fflush(stderr);
}

// The marker: the next launch from `file` with the spawn marker, written to next.tmp and
// renamed to `next`. "" or why not.
std::string write_marker(const std::string& next, const FallbackInputs& in, const std::string& file) {
  std::string why;
  try {
    std::ofstream out(next + ".tmp");
    out << next_launch_text(in.nprow, in.npcol, file, in.hosts) << kSpawnMarker << "\n";
    out.close();
    if (!out) why = "cannot write " + next + ".tmp";
    else if (std::rename((next + ".tmp").c_str(), next.c_str()) != 0)
      why = "cannot rename " + next + ".tmp to " + next;
  } catch (const std::exception& e) {
    why = e.what();
  }
  return why;
}

// The progress line of world rank 0: the checkpoint before the spawn, its time
// (t_checkpoint < 0: this iteration's, reused) and the deadline (`deadline`).
void say_checkpointed(const FallbackInputs& in, const std::string& file, double t_checkpoint,
                      const std::string& deadline) {
  char took[64];
  if (t_checkpoint < 0) std::snprintf(took, sizeof took, "(this iteration's, reused)");
  else std::snprintf(took, sizeof took, "in %.1f ms", t_checkpoint * 1e3);
  std::printf("   before the spawn after iter %d: checkpoint %s %s; %s\n", in.iteration, checkpoint_text(file).c_str(),
              took, deadline.c_str());
  std::fflush(stdout);
}
}  // namespace

ExpansionFallback::ExpansionFallback(const FallbackInputs& in, const std::function<std::string(double*)>& checkpoint,
                                     bool deferred) {
  // Parsed on every process: a bad value is the same Error everywhere, before anything.
  const bool on = parse_fallback_enabled(in.spawn_fallback);
  const DeadlineRule rule = parse_deadline_rule(in.spawn_deadline);
  if (!on || in.nnew < 1) return;
  root_ = in.root;
  double t_checkpoint = 0;
  try {
    file_ = checkpoint(&t_checkpoint);
  } catch (const CheckpointFailed& e) {
    // The same on every process (the writer agrees on failures): the expansion is tried
    // without the fallback rather than the job ended for a checkpoint it did not ask for.
    warn_without_fallback(in.root, in.app, "the checkpoint", e.what());
    file_.clear();
    return;
  }
  next_ = in.dir + "/" + in.app + ".next";
  nprow_ = in.nprow;
  npcol_ = in.npcol;
  hosts_ = in.hosts;
  // World rank 0: the deadline from its history, and the marker (.tmp, renamed).
  std::string why, text;
  double seconds = rule.floor;
  if (root_) {
    const SpawnDeadline d = spawn_deadline(in.history ? *in.history : std::vector<ResizeEvent>{}, in.nnew, rule);
    seconds = d.seconds;
    text = describe(d, rule);
    why = write_marker(next_, in, file_);
  }
  why = broadcast_text(why, 0, in.world);
  if (!why.empty()) {  // as a failed checkpoint: no fallback for this expansion
    warn_without_fallback(root_, in.app, "the marker of the checkpoint", why);
    file_.clear();
    return;
  }
  MPI_Bcast(&seconds, 1, MPI_DOUBLE, 0, in.world);
  std::string message;
  if (root_) {
    message = expired_message(in.app, in.iteration, text, in.from_grid, in.nprow, in.npcol, file_, next_, in.what);
    if (in.progress) say_checkpointed(in, file_, t_checkpoint, text);
  }
  arm_spawn_deadline(seconds, std::move(message), deferred);
  active_ = true;
}

void ExpansionFallback::renew(const std::string& file) {
  file_ = file;
  if (!root_) return;
  std::ofstream out(next_ + ".tmp");
  out << next_launch_text(nprow_, npcol_, file_, hosts_) << kSpawnMarker << "\n";
  out.close();
  if (!out || std::rename((next_ + ".tmp").c_str(), next_.c_str()) != 0)
    std::fprintf(stderr, "resize: warning: cannot rewrite %s for the checkpoint %s: a relaunch would start from the older one\n",
                 next_.c_str(), file_.c_str());
}

ExpansionFallback::~ExpansionFallback() {
  if (active_) disarm_spawn_deadline();
}

void ExpansionFallback::succeeded() {
  if (!active_) return;
  disarm_spawn_deadline();
  if (root_) std::remove(next_.c_str());
}

}  // namespace resize::detail
