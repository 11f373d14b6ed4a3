// SPDX-License-Identifier: BSD-3-Clause
// The opening of a program (or a benchmark's case) that runs on the whole of
// MPI_COMM_WORLD: MPI_Init, then this process's rank in the world and the world's size.
#pragma once

#include <mpi.h>

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

}  // namespace malleable_internal
