// SPDX-License-Identifier: BSD-3-Clause
// The opening of a program (or a benchmark's case) that runs on the whole of
// MPI_COMM_WORLD: MPI_Init, then this process's rank in the world and the world's size;
// then its command line, parsed with CLI11 on every rank.
#pragma once

#include <mpi.h>

#include <CLI/CLI.hpp>
#include <optional>

namespace malleable_internal {

struct World {
  int rank = 0;
  int size = 0;
};

inline World init_world(int* argc, char*** argv) {
  MPI_Init(argc, argv);
  World w;
  MPI_Comm_rank(MPI_COMM_WORLD, &w.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &w.size);
  return w;
}

// Parses argv into `app`. On --help/--version or a usage error, the ranks that `print`
// print CLI11's message, every rank finalizes MPI, and the exit status is returned (CLI11's
// where printed, else 0); empty: go on.
inline std::optional<int> parse_or_finalize(CLI::App& app, int argc, char** argv, bool print) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = print ? app.exit(e) : 0;
    MPI_Finalize();
    return rc;
  }
  return std::nullopt;
}

}  // namespace malleable_internal
