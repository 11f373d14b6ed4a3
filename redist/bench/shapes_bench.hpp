// SPDX-License-Identifier: BSD-3-Clause
// malleable-redist-bench redist's shape mode: one redistribution per "case" between two
// block-cyclic layouts, ScaLAPACK's PDGEMR2D, redist (C++ and C API), COSTA if the user
// built it, and the parallel memcpy floor of the moved bytes, timed round robin in one run
// and checked element for element against PDGEMR2D's result.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "calibration.hpp"

namespace redist::bench {

// "MxN:mbxnb@PxQ:mbxnb@PxQ": A's blocks and grid, then B's; both grids on the first ranks.
struct ShapeCase {
  std::int64_t m = 0, n = 0, mba = 0, nba = 0, mbb = 0, nbb = 0;
  calib::Grid ga, gb;
  std::string text, kind;
  int ranks() const { return std::max(ga.size(), gb.size()); }
};
ShapeCase parse_shape(const std::string& text, const std::string& kind = "");

// The tiny-block and long-thin cases (2-4 ranks) and the whole suite of 
// (expansion, many-to-few shrink, block-size change, reshapes, panel changes, tiny blocks,
// long thin matrices; up to 9 ranks), each with the kind of change it stands for.
const std::vector<ShapeCase>& tiny_cases();
const std::vector<ShapeCase>& suite_cases();

// COSTA's prefixed ScaLAPACK wrapper, costa_pdgemr2d (Fortran-style pointer arguments).
using CostaGemr2d = void(const int*, const int*, const double*, const int*, const int*, const int*, double*,
                         const int*, const int*, const int*, const int*);
// From <dir>/lib, <dir>/lib64 or <dir> itself (libcosta_prefixed_scalapack.so); nullptr
// for an empty dir; throws std::runtime_error naming what was tried.
CostaGemr2d* load_costa(const std::string& dir);

// COSTA's native API (costa::block_cyclic_layout per matrix on its own grid, or
// costa::custom_layout, then costa::transform), from redist/bench/costa_native.cpp compiled
// by the user against their COSTA build (scripts/bench/redist.sh shapes does it).
using CostaNative = int(int m, int n, int mba, int nba, int pra, int pca, const int* ranks_a, const double* a, int lda,
                        int mbb, int nbb, int prb, int pcb, const int* ranks_b, double* b, int ldb, MPI_Comm comm,
                        int layout_mode, char* err, int errlen);
// dlopen's the shared object at `path` (nullptr for an empty path); throws naming it.
CostaNative* load_costa_native(const std::string& path);

struct ShapeOptions {
  int reps = 3;
  CostaGemr2d* costa = nullptr;  // the ScaLAPACK wrapper, timed only where it applies
  std::string costa_dir;
  CostaNative* costa_native = nullptr;
  int costa_layout_mode = 0;  // 0: block_cyclic_layout (custom_layout for other rank maps); 1: custom_layout always
  // COSTA repetitions stop once they have taken this many seconds (its element-sized-block
  // cases take seconds per call); at least one always runs.
  double costa_budget_s = 30;
  // Extra redist transports to time ("datatype", "packed", "auto"): one line each with the
  // per-phase split (plan, argument check, local copies, transfers), for finding limits.
  std::vector<std::string> variants;
  // Bits/s of each node's link (the emulated cluster): > 0 adds the busiest node link's
  // bound (its inter-node bytes / rate, redist::node_traffic over the ranks' processor
  // names) and redist's and COSTA's time over it.
  double link_bits = 0;
};

// Collective over MPI_COMM_WORLD; ranks past a case's size sleep meanwhile. Rank 0 prints
// one line per case and appends a JSON object per case to `results`.
void run_shapes(const std::vector<ShapeCase>& cases, const ShapeOptions& opt, nlohmann::json& results);

}  // namespace redist::bench
