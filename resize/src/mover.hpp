// SPDX-License-Identifier: BSD-3-Clause
// Moving one matrix from its old grid to its new grid inside the current world.
// Internal to the MPI shell: PDGEMR2D (ScaLAPACK's caterpillar) or the redist executor,
// for the four ScaLAPACK element types (s, d, c, z), as redist and p?gemr2d move them.
#pragma once

#include <mpi.h>

#include <complex>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "malleable/redist/cost_model.hpp"
#include "malleable/redist/layout.hpp"
#include "malleable/redist/traffic.hpp"

#include "malleable/resize/session.hpp"

namespace resize::detail {

// The element type of a registered matrix, by ScaLAPACK's prefix letter.
enum class Scalar { S, D, C, Z };

template <class T> constexpr Scalar scalar_of();
template <> constexpr Scalar scalar_of<float>() { return Scalar::S; }
template <> constexpr Scalar scalar_of<double>() { return Scalar::D; }
template <> constexpr Scalar scalar_of<std::complex<float>>() { return Scalar::C; }
template <> constexpr Scalar scalar_of<std::complex<double>>() { return Scalar::Z; }

std::size_t scalar_bytes(Scalar t);
// "float", "double", "complex<float>", "complex<double>" (for error messages).
const char* scalar_name(Scalar t);

struct MatrixMove {
  int m = 0, n = 0;
  Scalar type = Scalar::D;
  const void* a = nullptr;     // elements of `type`
  const int* desca = nullptr;  // DESC[CTXT] = -1 off grid A
  void* b = nullptr;
  const int* descb = nullptr;  // DESC[CTXT] = -1 off grid B
  const Grid* grid_a = nullptr;
  const Grid* grid_b = nullptr;
};

// Collective over `world`; `gctxt` is a BLACS context spanning the whole world.
void move_matrix(Mover how, const MatrixMove& mv, MPI_Comm world, int gctxt);

// An extended-descriptor matrix (register_matrix_blocks) from layout `la` to `lb` with
// redist; `a` / `b` are null where this rank holds nothing. Collective over `world`.
void move_layout(Scalar type, MPI_Comm world, const redist::Layout& la, const void* a, std::int64_t lda,
                 const redist::Layout& lb, void* b, std::int64_t ldb);

// Elements whose owning world rank differs between the two layouts (pure).
std::int64_t moved_elements(const MatrixMove& mv);
// The same elements split by node (node_of_rank covers every world rank) (pure).
redist::NodeTraffic node_traffic(const MatrixMove& mv, const std::vector<int>& node_of_rank);

// Seconds the calibrated cost model (redist/cost_model.hpp, seed 001) predicts for moving
// a matrix with redist's default schedule over `world_size` ranks; `node_of_rank` gives
// each rank's node (empty or too short: one node) (pure).
double predict_move_seconds(const redist::CostParams& p, const MatrixMove& mv, int world_size,
                            const std::vector<int>& node_of_rank);
double predict_layout_move_seconds(const redist::CostParams& p, Scalar type, const redist::Layout& la,
                                   const redist::Layout& lb, int world_size, const std::vector<int>& node_of_rank);

}  // namespace resize::detail
