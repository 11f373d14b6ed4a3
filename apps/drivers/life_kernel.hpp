// SPDX-License-Identifier: BSD-3-Clause
// Game of Life on a 2D block layout (thesis §3.7.4): each process holds one
// contiguous block, exchanges its 8-neighbour halo, then updates. Rows of process row
// pr are [row_start[pr], row_start[pr+1]); the blocks may have unequal sizes
// (heterogeneous mapping, §6.4). Cells outside the board are dead.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <vector>

#include "malleable/resize/types.hpp"

namespace apps {

struct LifeBlocks {
  std::vector<int> row_start, col_start;  // nprow+1 and npcol+1 offsets
  resize::Grid grid;                      // world rank of each grid position
  int myrow = -1, mycol = -1;
  int rows() const { return row_start[myrow + 1] - row_start[myrow]; }
  int cols() const { return col_start[mycol + 1] - col_start[mycol]; }
};

// Uniform blocks of ceil(n/p) (ScaLAPACK's block distribution); throws if a process
// would get no row or column.
std::vector<int> uniform_starts(int n, int p);
// Sizes proportional to `weights` (largest-remainder rounding, every part >= 1).
std::vector<int> proportional_starts(int n, const std::vector<double>& weights);

// One generation on the local block `cells` (column-major, leading dimension ld, values
// 0/1), repeated `reps` times on the same input to emulate a slower processor (§6.4:
// 1000/PP repetitions); returns the CPU seconds spent in the update (not the exchange),
// and its wall seconds in *wall_seconds if given (a throttled or preempted process takes
// longer in wall time for the same CPU time: what a measured speed must see).
double life_step(MPI_Comm comm, const LifeBlocks& b, double* cells, int ld, int reps,
                 double* wall_seconds = nullptr);
// The same update on a private n x n board with dead borders, `reps` times: a process
// off the grid measures its speed with it. Returns CPU seconds; wall
// seconds in *wall_seconds if given.
double life_probe(int n, int reps, double* wall_seconds = nullptr);

// Serial reference: `gens` generations of an n x n board (column-major).
void life_serial(std::vector<std::uint8_t>& board, int n, int gens);
// The initial board: a deterministic random soup with ~30% live cells.
std::uint8_t life_initial(std::int64_t i, std::int64_t j, int seed = 7);

}  // namespace apps
