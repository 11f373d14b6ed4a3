// SPDX-License-Identifier: BSD-3-Clause
// The benchmarks' command-line parsing under MPI: every rank parses the same argv.
#pragma once

#include <mpi.h>

#include <CLI/CLI.hpp>
#include <optional>

namespace redist::calib {

// Parses argv into `app`. On --help/--version or a usage error, world rank 0 prints
// CLI11's message, every rank finalizes MPI, and the exit status is returned; empty: go on.
inline std::optional<int> parse_or_exit(CLI::App& app, int argc, char** argv, int wrank) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = wrank == 0 ? app.exit(e) : 0;
    MPI_Finalize();
    return rc;
  }
  return std::nullopt;
}

}  // namespace redist::calib
