// SPDX-License-Identifier: BSD-3-Clause
// A text broadcast from one process to all (its length, then its bytes): the session's
// agreements (start signatures, decisions by restart, checkpoint-level errors) share it.
#pragma once

#include <mpi.h>

#include <string>

namespace resize::detail {

// Collective over `comm`: `root`'s text on every process.
inline std::string broadcast_text(std::string text, int root, MPI_Comm comm) {
  int len = static_cast<int>(text.size());
  MPI_Bcast(&len, 1, MPI_INT, root, comm);
  text.resize(static_cast<std::size_t>(len));
  MPI_Bcast(text.data(), len, MPI_CHAR, root, comm);
  return text;
}

}  // namespace resize::detail
