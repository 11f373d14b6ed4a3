#include "mover.hpp"

#include <algorithm>
#include <vector>

#ifdef MALL_HAVE_REDIST
#include "redist/plan.hpp"
#include "redist/redistribute.hpp"
#endif

extern "C" void Cpdgemr2d(int m, int n, const double* a, int ia, int ja, const int* desca,
                          double* b, int ib, int jb, const int* descb, int gcontext);

namespace resize::detail {

#ifdef MALL_HAVE_REDIST
namespace {
// The descriptor + grid as redist's extended descriptor (uniform blocks = block-cyclic).
redist::Layout layout_of(const int* desc, const Grid& g) {
  return redist::Layout::block_cyclic(desc[2], desc[3], desc[4], desc[5], g.nprow, g.npcol,
                                      desc[6], desc[7], g.rank_map());
}
}  // namespace

bool redist_executor_available() { return true; }

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

std::int64_t moved_elements(const MatrixMove& mv) {
  int size = 0;
  for (int r : mv.grid_a->rank_map()) size = std::max(size, r + 1);
  for (int r : mv.grid_b->rank_map()) size = std::max(size, r + 1);
  return redist::plan_stats(layout_of(mv.desca, *mv.grid_a), layout_of(mv.descb, *mv.grid_b), size)
      .elements_moved;
}

#else

bool redist_executor_available() { return false; }

void move_matrix(Mover, const MatrixMove& mv, MPI_Comm, int gctxt) {
  Cpdgemr2d(mv.m, mv.n, mv.a, 1, 1, mv.desca, mv.b, 1, 1, mv.descb, gctxt);
}

namespace {
// Owner (process row or column) of each global index for a block-cyclic dimension.
std::vector<int> owners(int n, int nb, int nprocs) {
  std::vector<int> o(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) o[static_cast<std::size_t>(i)] = (i / nb) % nprocs;
  return o;
}
}  // namespace

std::int64_t moved_elements(const MatrixMove& mv) {
  const auto ra = owners(mv.m, mv.desca[4], mv.grid_a->nprow);
  const auto ca = owners(mv.n, mv.desca[5], mv.grid_a->npcol);
  const auto rb = owners(mv.m, mv.descb[4], mv.grid_b->nprow);
  const auto cb = owners(mv.n, mv.descb[5], mv.grid_b->npcol);
  std::int64_t moved = 0;
  for (int j = 0; j < mv.n; ++j)
    for (int i = 0; i < mv.m; ++i)
      moved += mv.grid_a->rank_at(ra[static_cast<std::size_t>(i)], ca[static_cast<std::size_t>(j)]) !=
               mv.grid_b->rank_at(rb[static_cast<std::size_t>(i)], cb[static_cast<std::size_t>(j)]);
  return moved;
}
#endif

}  // namespace resize::detail
