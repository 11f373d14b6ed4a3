// SPDX-License-Identifier: BSD-3-Clause
// Internal: the checkpoint part of a session (SessionCheckpoints: the cadences and what was
// written) and the session's checkpoint, restart and level calls as functions of the parts
// they are given (session_checkpoint.cpp, levels/write.cpp, levels/recover.cpp).
// The facade's Session methods (session/checkpoint_calls.cpp) check their calls and hand
// the work here, with a CheckpointView of the parts.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "checkpoint/file/format.hpp"
#include "checkpoint/file/io.hpp"
#include "common/config.hpp"
#include "malleable/resize/predict.hpp"
#include "malleable/resize/report.hpp"
#include "malleable/resize/session_options.hpp"
#include "parts/registry.hpp"
#include "parts/session_parts.hpp"

namespace resize::detail {
struct LevelState;  // checkpoint/levels/node_io.hpp

// Checkpoint cadence (Session::set_checkpointing, session_checkpoint.cpp) and the
// checkpoints written (world rank 0); checkpoint levels (checkpoint/levels/write.cpp):
// the cadence, the nodes and partners, and the level checkpoints written (world rank 0).
struct SessionCheckpoints {
  struct Checkpointing {
    CheckpointCadence cadence;
    checkpoint::Every every;
    double last = 0, cost = -1, previous_check = -1;
  };
  std::optional<Checkpointing> checkpointing;
  std::vector<CheckpointRecord> checkpoints;
  std::shared_ptr<LevelState> levels;
  std::vector<LevelRecord> level_records;
  // set_checkpointing's cadence, without its checks (checked where it was first set: a
  // newcomer's from the hand-over); the clock starts now.
  void adopt_global(const CheckpointCadence& c) {
    Checkpointing k;
    k.cadence = c;
    k.every = checkpoint::parse_every(c.every, c.mtbf_seconds);
    k.last = MPI_Wtime();
    checkpointing = std::move(k);
  }
};

// A view of the parts the checkpoint calls read and change: the world and its grid, the
// registered matrices, the checkpoint part, the options (the program's name, the progress
// lines), the configuration read when the session was made, the command line (the
// checkpoint's stamp), the resize history (written into a checkpoint) and the iteration
// count (a restart sets it).
struct CheckpointView {
  const SessionWorld& job;
  MatrixRegistry& registry;
  SessionCheckpoints& ckpts;
  const SessionOptions& opt;
  const config::Checkpoint& cfg;
  const LaunchCommand& launch;
  const ResizeHistory& history;
  int& iteration;
};

// What names a checkpoint beside the parts: the program, its executable, the iterations done.
struct CheckpointStamp {
  std::string app, exe;
  int iteration = 0;
};

double write_session_checkpoint(const std::string& path, const CheckpointStamp& stamp, const SessionWorld& job,
                                const MatrixRegistry& registry, const ResizeHistory& history,
                                const config::Checkpoint& cfg);
std::string checkpoint_mismatch(const std::string& file, const checkpoint::Header& h, const std::string& app,
                                const MatrixRegistry& registry);
void read_session_checkpoint(CheckpointReader& reader, const SessionWorld& job, MatrixRegistry& registry);
// Every registered matrix's order-independent checksum (collective over job.world).
std::vector<std::pair<std::string, std::uint64_t>> registry_checksums(const SessionWorld& job,
                                                                      const MatrixRegistry& registry);

// The session's calls (Session::checkpoint, checkpoint_in, restart, set_checkpointing,
// checkpoint_if_due; the levels' set_level_checkpointing, checkpoint_levels,
// level_checkpoint_if_due, restart_from_levels), given the parts. `start`: the session's
// start on grid g (a Session method: the restarts begin with it); `recovery` says the new
// arrays serve a recovery (move/pages.hpp).
using StartOn = std::function<void(const Grid& g, bool recovery)>;
double write_checkpoint(CheckpointView v, const std::string& path);
std::string checkpoint_into(CheckpointView v, const std::string& dir, int keep, double* seconds);
int restart_from_file(CheckpointView v, const std::string& file, const Grid& g, const StartOn& start);
void check_checkpointing(const CheckpointCadence& c);  // throws; then ckpts.adopt_global(c)
std::string checkpoint_when_due(CheckpointView v, bool last);
void set_levels(CheckpointView v, const LevelCadence& c);
double write_levels_now(CheckpointView v, bool partner);
std::string levels_when_due(CheckpointView v, bool last);
int restart_from_level_copies(CheckpointView v, const std::string& dir, const Grid& g, const std::string& global_dir,
                              const StartOn& start);
// The levels' node communicators released (the session's end or MPI_Finalize).
void release_levels(SessionCheckpoints& ckpts);

}  // namespace resize::detail
