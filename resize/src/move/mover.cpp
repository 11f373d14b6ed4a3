// SPDX-License-Identifier: BSD-3-Clause
// One matrix moved between two grids of the world (mover.hpp): ScaLAPACK's PDGEMR2D or
// redist::redistribute (the session's Redist mover moves all matrices at once instead:
// session/session_move.cpp).
#include "move/mover.hpp"

#include <complex>

#include "malleable/redist/plan.hpp"
#include "malleable/redist/redistribute.hpp"

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

namespace {

template <class T>
void redist_move(const MatrixMove& mv, MPI_Comm world) {
  const bool in_a = mv.desca[1] >= 0, in_b = mv.descb[1] >= 0;
  redist::redistribute<T>(world, matrix_layout(mv.desca, *mv.grid_a), in_a ? static_cast<const T*>(mv.a) : nullptr,
                          in_a ? mv.desca[8] : 1, matrix_layout(mv.descb, *mv.grid_b),
                          in_b ? static_cast<T*>(mv.b) : nullptr, in_b ? mv.descb[8] : 1);
}
}  // namespace

void move_matrix(Mover how, const MatrixMove& mv, MPI_Comm world, int gctxt) {
  if (how == Mover::Pdgemr2d) {
    switch (mv.type) {
      case Scalar::S:
        Cpsgemr2d(mv.m, mv.n, static_cast<const float*>(mv.a), 1, 1, mv.desca, static_cast<float*>(mv.b), 1, 1,
                  mv.descb, gctxt);
        return;
      case Scalar::D:
        Cpdgemr2d(mv.m, mv.n, static_cast<const double*>(mv.a), 1, 1, mv.desca, static_cast<double*>(mv.b), 1,
                  1, mv.descb, gctxt);
        return;
      case Scalar::C: Cpcgemr2d(mv.m, mv.n, mv.a, 1, 1, mv.desca, mv.b, 1, 1, mv.descb, gctxt); return;
      case Scalar::Z: Cpzgemr2d(mv.m, mv.n, mv.a, 1, 1, mv.desca, mv.b, 1, 1, mv.descb, gctxt); return;
    }
    return;
  }
  switch (mv.type) {
    case Scalar::S: redist_move<float>(mv, world); return;
    case Scalar::D: redist_move<double>(mv, world); return;
    case Scalar::C: redist_move<std::complex<float>>(mv, world); return;
    case Scalar::Z: redist_move<std::complex<double>>(mv, world); return;
  }
}

void move_layout(Scalar type, MPI_Comm world, const redist::Layout& la, const void* a, std::int64_t lda,
                 const redist::Layout& lb, void* b, std::int64_t ldb) {
  const auto run = [&]<class T>(T*) {
    redist::redistribute<T>(world, la, static_cast<const T*>(a), lda, lb, static_cast<T*>(b), ldb);
  };
  switch (type) {
    case Scalar::S: run(static_cast<float*>(nullptr)); return;
    case Scalar::D: run(static_cast<double*>(nullptr)); return;
    case Scalar::C: run(static_cast<std::complex<float>*>(nullptr)); return;
    case Scalar::Z: run(static_cast<std::complex<double>*>(nullptr)); return;
  }
}

}  // namespace resize::detail
