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
#include "common/scalar.hpp"
#include "move/move_share.hpp"

namespace resize::detail {

// The element type of a registered matrix, by ScaLAPACK's prefix letter.
// (enum class Scalar: common/scalar.hpp)

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

// redist's layout of a ScaLAPACK descriptor on a grid (block-cyclic).
redist::Layout matrix_layout(const int* desc, const Grid& g);

// A resize's redistribution figures, each rank from its own plan (redist::make_plan with
// for_rank: O(its partners), never the whole job's P_A x P_B pairs), the job-wide numbers
// by reductions. Lives for one move of the registered matrices; every
// member function is collective over `world`, called in the same order on every rank.
class MoveAccounting {
 public:
  // One MPI_Bcast from rank 0: whether to predict, and the cost model (rank 0's `params`;
  // the others' are ignored). node_of_rank covers every world rank (shorter: one node, and
  // no within/between split). With a cost model whose cores_per_node > 0, the ranks of
  // each node get a communicator (MPI_Comm_split) for the node bounds.
  MoveAccounting(MPI_Comm world, const redist::CostParams* params, const std::vector<int>& node_of_rank);
  ~MoveAccounting();
  MoveAccounting(const MoveAccounting&) = delete;
  MoveAccounting& operator=(const MoveAccounting&) = delete;
  // This rank's share of moving one matrix from `la` to `lb` (redist's default schedule);
  // with a cost model, the prediction's reductions: an allreduce (max) of the step span, an
  // allreduce (sum) within the node when cores_per_node > 0, an allreduce (max) of the
  // slots (move_share.hpp): O(steps of the schedule) doubles.
  void add(Scalar type, const redist::Layout& la, const redist::Layout& lb);
  // The same from this rank's plan (make_plan for its rank, the default schedule) when the
  // caller has it already.
  void add(Scalar type, const redist::RedistPlan& plan);
  // One MPI_Allreduce (sum) of the counts and one (max) of peak_bytes; afterwards the
  // fields below are job-wide.
  void reduce();
  bool predicting() const { return predict_; }
  bool mapped() const { return mapped_; }
  std::int64_t bytes_moved = 0, bytes_intra_node = 0, bytes_inter_node = 0;
  double predicted_s = 0;  // the cost model's seconds, summed over the matrices added
  // The redist mover's batches (the same on every rank) and the most bytes of matrix
  // buffers and redist staging this rank held (after reduce(): any rank).
  int batches = 0;
  std::int64_t peak_bytes = 0;
  // This rank's seconds per phase of the move (the caller adds them); after reduce(): the
  // slowest rank's per phase (one more MPI_Allreduce, max).
  MovePhases phases;

 private:
  MPI_Comm world_, node_ = MPI_COMM_NULL;
  int rank_ = 0, size_ = 0;
  bool predict_ = false, mapped_ = false;
  redist::CostParams params_;
  CostRegime regime_;
  const std::vector<int>& node_of_rank_;
};

}  // namespace resize::detail
