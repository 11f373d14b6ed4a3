// SPDX-License-Identifier: BSD-3-Clause
// Internal: the session's checkpoint and restart as functions of the parts they read
// (session_checkpoint.cpp); Session's methods only check their calls and report progress.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "checkpoint/checkpoint_io.hpp"
#include "session/session_impl.hpp"

namespace resize::detail {

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

}  // namespace resize::detail
