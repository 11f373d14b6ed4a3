#include "mover.hpp"

#include <algorithm>
#include <vector>

#include "malleable/redist/plan.hpp"
#include "malleable/redist/redistribute.hpp"

extern "C" void Cpdgemr2d(int m, int n, const double* a, int ia, int ja, const int* desca,
                          double* b, int ib, int jb, const int* descb, int gcontext);

namespace resize::detail {

namespace {
// The descriptor + grid as redist's extended descriptor (uniform blocks = block-cyclic).
redist::Layout layout_of(const int* desc, const Grid& g) {
  return redist::Layout::block_cyclic(desc[2], desc[3], desc[4], desc[5], g.nprow, g.npcol,
                                      desc[6], desc[7], g.rank_map());
}
}  // namespace

void move_matrix(Mover how, const MatrixMove& mv, MPI_Comm world, int gctxt) {
  if (how == Mover::Pdgemr2d) {
    Cpdgemr2d(mv.m, mv.n, mv.a, 1, 1, mv.desca, mv.b, 1, 1, mv.descb, gctxt);
    return;
  }
  const bool in_a = mv.desca[1] >= 0, in_b = mv.descb[1] >= 0;
  redist::redistribute<double>(world, layout_of(mv.desca, *mv.grid_a), in_a ? mv.a : nullptr,
                               in_a ? mv.desca[8] : 1, layout_of(mv.descb, *mv.grid_b),
                               in_b ? mv.b : nullptr, in_b ? mv.descb[8] : 1);
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


}  // namespace resize::detail
