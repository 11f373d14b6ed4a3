// SPDX-License-Identifier: BSD-3-Clause
// A small C++ user of the installed package for the README's pkg-config line: picks a
// process grid for the world with gridmap and checks it on every rank.
#include <mpi.h>

#include <cstdio>

#include "malleable/blacs_dyn/blacs_dyn.h"
#include "malleable/gridmap/topology.hpp"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const auto t = gridmap::choose_topology(blacs_dyn_size());
  const bool ok = t.grid.size() == blacs_dyn_size();
  if (blacs_dyn_rank() == 0) std::printf("app.cpp: %d processes on a %dx%d grid\n", blacs_dyn_size(), t.grid.rows, t.grid.cols);
  MPI_Finalize();
  return ok ? 0 : 1;
}
