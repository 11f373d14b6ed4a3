// Moving one matrix from its old grid to its new grid inside the current world.
// Internal to the MPI shell: PDGEMR2D (ScaLAPACK's caterpillar) or the redist executor.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <vector>

#include "malleable/redist/traffic.hpp"

#include "malleable/resize/session.hpp"

namespace resize::detail {

struct MatrixMove {
  int m = 0, n = 0;
  const double* a = nullptr;
  const int* desca = nullptr;  // DESC[CTXT] = -1 off grid A
  double* b = nullptr;
  const int* descb = nullptr;  // DESC[CTXT] = -1 off grid B
  const Grid* grid_a = nullptr;
  const Grid* grid_b = nullptr;
};

// Collective over `world`; `gctxt` is a BLACS context spanning the whole world.
void move_matrix(Mover how, const MatrixMove& mv, MPI_Comm world, int gctxt);

// Elements whose owning world rank differs between the two layouts (pure).
std::int64_t moved_elements(const MatrixMove& mv);
// The same elements split by node (node_of_rank covers every world rank) (pure).
redist::NodeTraffic node_traffic(const MatrixMove& mv, const std::vector<int>& node_of_rank);

}  // namespace resize::detail
