// SPDX-License-Identifier: BSD-3-Clause
// One matrix moved between two grids of the world (mover.hpp): ScaLAPACK's PDGEMR2D or
// redist, as a batch of one of the move's builder (move_items.hpp; the session's Redist
// mover moves all matrices at once instead: parts/grid_switch.cpp).
#include "move/mover.hpp"

#include "move/move_items.hpp"

// ScaLAPACK's REDIST entry points (C interface); the complex ones take interleaved
// (re, im) arrays, which std::complex is (layout-compatible with T[2]).
extern "C" {
void Cpsgemr2d(int m, int n, const float* a, int ia, int ja, const int* desca, float* b, int ib, int jb,
               const int* descb, int gcontext);
void Cpdgemr2d(int m, int n, const double* a, int ia, int ja, const int* desca, double* b, int ib, int jb,
               const int* descb, int gcontext);
void Cpcgemr2d(int m, int n, const void* a, int ia, int ja, const int* desca, void* b, int ib, int jb,
               const int* descb, int gcontext);
void Cpzgemr2d(int m, int n, const void* a, int ia, int ja, const int* desca, void* b, int ib, int jb,
               const int* descb, int gcontext);
}

namespace resize::detail {

void move_matrix(Mover how, const DescriptorMove& mv, MPI_Comm world, int gctxt) {
  if (how == Mover::Pdgemr2d) {
    const int m = mv.desca[2], n = mv.desca[3];
    switch (mv.type) {
      case Scalar::S:
        Cpsgemr2d(m, n, static_cast<const float*>(mv.a), 1, 1, mv.desca, static_cast<float*>(mv.b), 1, 1,
                  mv.descb, gctxt);
        return;
      case Scalar::D:
        Cpdgemr2d(m, n, static_cast<const double*>(mv.a), 1, 1, mv.desca, static_cast<double*>(mv.b), 1,
                  1, mv.descb, gctxt);
        return;
      case Scalar::C: Cpcgemr2d(m, n, mv.a, 1, 1, mv.desca, mv.b, 1, 1, mv.descb, gctxt); return;
      case Scalar::Z: Cpzgemr2d(m, n, mv.a, 1, 1, mv.desca, mv.b, 1, 1, mv.descb, gctxt); return;
    }
    return;
  }
  const bool in_a = mv.desca[1] >= 0, in_b = mv.descb[1] >= 0;
  move_layout(mv.type, world, matrix_layout(mv.desca, *mv.grid_a), in_a ? mv.a : nullptr, in_a ? mv.desca[8] : 1,
              matrix_layout(mv.descb, *mv.grid_b), in_b ? mv.b : nullptr, in_b ? mv.descb[8] : 1);
}

void move_layout(Scalar type, MPI_Comm world, const redist::Layout& la, const void* a, std::int64_t lda,
                 const redist::Layout& lb, void* b, std::int64_t ldb) {
  // The layouts come from global descriptors, the same on every rank: a planning error
  // is every rank's alike.
  int rank = 0, size = 0;
  MPI_Comm_rank(world, &rank);
  MPI_Comm_size(world, &size);
  MoveItems batch;
  batch.add(la, a, lda, lb, b, ldb, type, size, rank);
  batch.run(world);
}

}  // namespace resize::detail
