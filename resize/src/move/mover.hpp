// SPDX-License-Identifier: BSD-3-Clause
// Moving one matrix from its old grid to its new grid inside the current world.
// Internal to the MPI shell: PDGEMR2D (ScaLAPACK's caterpillar) or the redist executor,
// for the four ScaLAPACK element types (s, d, c, z), as redist and p?gemr2d move them.
#pragma once

#include <mpi.h>

#include <cstdint>

#include "malleable/redist/layout.hpp"

#include "malleable/resize/session_options.hpp"
#include "common/scalar.hpp"

namespace resize::detail {

// One matrix's move (move_matrix): its elements of `type` on grid A and on grid B, each
// with its ScaLAPACK descriptor. Not a description of the matrix: its shape is the
// descriptors' (M, N: DESC[2], DESC[3], set also off the grid).
struct DescriptorMove {
  Scalar type = Scalar::D;
  const void* a = nullptr;     // elements of `type`
  const int* desca = nullptr;  // DESC[CTXT] = -1 off grid A
  void* b = nullptr;
  const int* descb = nullptr;  // DESC[CTXT] = -1 off grid B
  const Grid* grid_a = nullptr;
  const Grid* grid_b = nullptr;
};

// Collective over `world`; `gctxt` is a BLACS context spanning the whole world.
void move_matrix(Mover how, const DescriptorMove& mv, MPI_Comm world, int gctxt);

// An extended-descriptor matrix (register_matrix_blocks) from layout `la` to `lb` with
// redist; `a` / `b` are null where this rank holds nothing. Collective over `world`.
void move_layout(Scalar type, MPI_Comm world, const redist::Layout& la, const void* a, std::int64_t lda,
                 const redist::Layout& lb, void* b, std::int64_t ldb);

// redist's layout of a ScaLAPACK descriptor on a grid (block-cyclic).
inline redist::Layout matrix_layout(const int* desc, const Grid& g) {
  return redist::Layout::block_cyclic(desc[2], desc[3], desc[4], desc[5], g.nprow, g.npcol, desc[6], desc[7],
                                      g.rank_map());
}

}  // namespace resize::detail
