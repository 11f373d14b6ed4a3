// SPDX-License-Identifier: BSD-3-Clause
#include "mover.hpp"

#include <algorithm>
#include <vector>

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

std::size_t scalar_bytes(Scalar t) {
  switch (t) {
    case Scalar::S: return sizeof(float);
    case Scalar::D: return sizeof(double);
    case Scalar::C: return sizeof(std::complex<float>);
    case Scalar::Z: return sizeof(std::complex<double>);
  }
  return 0;
}

const char* scalar_name(Scalar t) {
  switch (t) {
    case Scalar::S: return "float";
    case Scalar::D: return "double";
    case Scalar::C: return "complex<float>";
    case Scalar::Z: return "complex<double>";
  }
  return "?";
}

namespace {
// The descriptor + grid as redist's extended descriptor (uniform blocks = block-cyclic).
redist::Layout layout_of(const int* desc, const Grid& g) {
  return redist::Layout::block_cyclic(desc[2], desc[3], desc[4], desc[5], g.nprow, g.npcol,
                                      desc[6], desc[7], g.rank_map());
}

template <class T>
void redist_move(const MatrixMove& mv, MPI_Comm world) {
  const bool in_a = mv.desca[1] >= 0, in_b = mv.descb[1] >= 0;
  redist::redistribute<T>(world, layout_of(mv.desca, *mv.grid_a), in_a ? static_cast<const T*>(mv.a) : nullptr,
                          in_a ? mv.desca[8] : 1, layout_of(mv.descb, *mv.grid_b),
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

redist::NodeTraffic node_traffic(const MatrixMove& mv, const std::vector<int>& node_of_rank) {
  const auto a = layout_of(mv.desca, *mv.grid_a), b = layout_of(mv.descb, *mv.grid_b);
  return redist::node_traffic(a, b, redist::Region::whole(a), static_cast<int>(node_of_rank.size()), node_of_rank);
}

std::int64_t moved_elements(const MatrixMove& mv) {
  int size = 0;
  for (int r : mv.grid_a->rank_map()) size = std::max(size, r + 1);
  for (int r : mv.grid_b->rank_map()) size = std::max(size, r + 1);
  return redist::plan_stats(layout_of(mv.desca, *mv.grid_a), layout_of(mv.descb, *mv.grid_b), size)
      .elements_moved;
}

double predict_layout_move_seconds(const redist::CostParams& p, Scalar type, const redist::Layout& la,
                                   const redist::Layout& lb, int world_size, const std::vector<int>& node_of_rank) {
  const auto plan = redist::make_plan(la, lb, redist::Region::whole(la), world_size);
  const bool mapped = static_cast<int>(node_of_rank.size()) >= world_size;
  return redist::predict(p, plan, scalar_bytes(type),
                         mapped ? std::span<const int>(node_of_rank) : std::span<const int>())
      .total_s;
}

double predict_move_seconds(const redist::CostParams& p, const MatrixMove& mv, int world_size,
                            const std::vector<int>& node_of_rank) {
  return predict_layout_move_seconds(p, mv.type, layout_of(mv.desca, *mv.grid_a), layout_of(mv.descb, *mv.grid_b),
                                     world_size, node_of_rank);
}

}  // namespace resize::detail
