// SPDX-License-Identifier: BSD-3-Clause
// The session's use of the two shared collectives (malleable_internal/collective.hpp):
// a text or bytes broadcast from one process to all (its length, then its bytes: start
// signatures, decisions, decisions by restart, checkpoint states and errors), and the
// agreement on the error of the lowest failing rank.
#pragma once

#include <mpi.h>

#include <optional>
#include <string>
#include <vector>

#include "malleable_internal/collective.hpp"

namespace resize::detail {

// Collective over `comm`: `root`'s text on every process.
inline std::string broadcast_text(std::string text, int root, MPI_Comm comm) {
  malleable::collective::broadcast_bytes(comm, root, text);
  return text;
}

// Collective over `comm`: `root`'s bytes on every process.
inline std::vector<char> broadcast_bytes(std::vector<char> bytes, int root, MPI_Comm comm) {
  malleable::collective::broadcast_bytes(comm, root, bytes);
  return bytes;
}

// Collective over `comm`: "" if `why` is empty everywhere, else the `why` of the lowest
// rank where it is not (the same on every process). `wait` waits for a request.
template <class Wait = malleable::collective::BlockingWait>
std::optional<malleable::collective::Failure> lowest_failure(MPI_Comm comm, const std::string& why,
                                                             const Wait& wait = {}) {
  return malleable::collective::lowest_failure(comm, !why.empty(), 0, why, wait);
}

}  // namespace resize::detail
