// SPDX-License-Identifier: BSD-3-Clause
// The Session's checkpoint, restart and level calls (CheckpointCalls, session_impl.hpp):
// each checks its call and hands the work to the checkpoint room's functions of the parts
// (checkpoint/session_checkpoint.hpp), given a CheckpointView of the parts they read and
// change. The Session's methods (session.cpp) and the resize by restart
// (session_by_restart.cpp) call them.
#include "session/session_impl.hpp"

namespace resize::detail {

// A restart's start on grid g, its arrays for a recovery when `recovery` (move/pages.hpp):
// start() is public API without that parameter, so the restart says it on the session.
StartOn CheckpointCalls::start_on() {
  return [&st = s](const Grid& g, bool recovery) {
    st.start_arrays = recovery ? ArrayFor::Recovery : ArrayFor::Start;
    try {
      start_session(st, g);
    } catch (...) {
      st.start_arrays = ArrayFor::Start;
      throw;
    }
    st.start_arrays = ArrayFor::Start;
  };
}

double CheckpointCalls::checkpoint(const std::string& path) {
  if (!s.life.started) throw Error("checkpoint " + path + ": the session has not started (call start, restart or join first)");
  return write_checkpoint(s.checkpoint_view(), path);
}

std::string CheckpointCalls::checkpoint_in(const std::string& dir, int keep, double* seconds) {
  if (!s.life.started) throw Error("checkpoint into " + dir + ": the session has not started (call start, restart or join first)");
  return checkpoint_into(s.checkpoint_view(), dir, keep, seconds);
}

int CheckpointCalls::restart(const std::string& file, const Grid& g) {
  return restart_from_file(s.checkpoint_view(), file, g, start_on());
}

void CheckpointCalls::set_checkpointing(const CheckpointCadence& c) {
  check_checkpointing(c);
  s.ckpts.adopt_global(c);
}

std::string CheckpointCalls::checkpoint_if_due(bool last) {
  if (!s.ckpts.checkpointing) throw Error("checkpoint_if_due: no checkpoint cadence (call set_checkpointing first)");
  return checkpoint_when_due(s.checkpoint_view(), last);
}

std::vector<std::pair<std::string, std::uint64_t>> CheckpointCalls::checksums() const {
  if (!s.life.started) throw Error("checksums: the session has not started");
  return registry_checksums(s.job, s.registry);
}

void CheckpointCalls::set_level_checkpointing(const LevelCadence& c) { set_levels(s.checkpoint_view(), c); }

double CheckpointCalls::checkpoint_levels(bool partner) {
  if (!s.life.started) throw Error("checkpoint_levels: the session has not started");
  return write_levels_now(s.checkpoint_view(), partner);
}

std::string CheckpointCalls::level_checkpoint_if_due(bool last) {
  if (!s.ckpts.levels) throw Error("level_checkpoint_if_due: no level cadence (call set_level_checkpointing first)");
  return levels_when_due(s.checkpoint_view(), last);
}

int CheckpointCalls::restart_from_levels(const std::string& dir, const Grid& g, const std::string& global_dir) {
  return restart_from_level_copies(s.checkpoint_view(), dir, g, global_dir, start_on());
}

}  // namespace resize::detail
