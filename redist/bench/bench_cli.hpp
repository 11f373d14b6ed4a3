// SPDX-License-Identifier: BSD-3-Clause
// malleable-redist-bench's cases (main.cpp dispatches on the first argument, as SLATE's
// tester) and their command-line parsing under MPI: every rank parses the same argv.
#pragma once

#include <mpi.h>

#include <CLI/CLI.hpp>
#include <optional>

#include "malleable_internal/mpi_world.hpp"

namespace redist::calib {

// Parses argv into `app`. On --help/--version or a usage error, world rank 0 prints
// CLI11's message, every rank finalizes MPI, and the exit status is returned; empty: go on.
inline std::optional<int> parse_or_exit(CLI::App& app, int argc, char** argv, int wrank) {
  return malleable_internal::parse_or_finalize(app, argc, argv, wrank == 0);
}

}  // namespace redist::calib

namespace redist::bench {

// One case each: argv[0] is the case's name, the rest its options.
// An MPI case runs through main.cpp's with_mpi, which calls MPI_Init and hands it its rank
// in MPI_COMM_WORLD and the world's size; it calls MPI_Finalize before it returns.
using MpiCase = int (*)(int rank, int size, int argc, char** argv);

int case_redist(int rank, int size, int argc, char** argv);   // redist_bench.cpp
int case_multi(int rank, int size, int argc, char** argv);    // multi_bench.cpp
int case_budget(int rank, int size, int argc, char** argv);   // budget_bench.cpp
int case_cost(int rank, int size, int argc, char** argv);     // cost_bench.cpp
int case_exec(int rank, int size, int argc, char** argv);     // exec_probe.cpp
int case_passes(int rank, int size, int argc, char** argv);   // passes_probe.cpp
int case_bound(int rank, int size, int argc, char** argv);    // bound_bench.cpp
int case_mapped(int rank, int size, int argc, char** argv);   // mapped_bench.cpp
// between-jobs calls MPI_Init itself; cma uses no MPI.
int case_between_jobs(int argc, char** argv);  // between_jobs_redist.cpp
int case_cma(int argc, char** argv);           // cma_probe.cpp

// The program's own path (its argv[0]): what a case that spawns itself starts.
const char* program_path();

}  // namespace redist::bench
