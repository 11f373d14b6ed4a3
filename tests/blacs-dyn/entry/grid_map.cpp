// SPDX-License-Identifier: BSD-3-Clause
// blacs_dyn::Grid over a rank map (Grid(comm, nprow, npcol, ranks): Csys2blacs_handle +
// blacs_gridmap), on 4 processes:
//   - 2x2 over {3, 1, 2, 0} and 1x3 over {2, 0, 1} on the world: the shape, ranks(), this
//     process's row and column are where the map puts it (and, summed over the grid,
//     every member's), rank 3 is outside the 1x3 grid (context -1);
//   - 1x2 over {1, 0} on each half of an MPI_Comm_split: ranks of that communicator;
//   - bad maps (a rank twice, outside the communicator, the wrong length, 3x2 on 4) throw
//     blacs_dyn::Error(BLACS_DYN_ERR_ARG) on every process, and the grid made next works;
//   - a grid made before blacs_exit(1), released after it while a new grid holds the same
//     context number, leaves the new grid alone (it still sums over its rows);
//   - a grid destroyed after MPI_Finalize calls nothing (PASS is printed after that).
//   mpiexec -n 4 blacs_dyn_grid_map
#include <mpi.h>

#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "malleable/blacs_dyn/blacs_dyn.hpp"

extern "C" {
void Cblacs_exit(int not_done);
void Cdgsum2d(int icontxt, const char* scope, const char* top, int m, int n, double* a, int lda, int rdest, int cdest);
}

namespace {
bool g_ok = true;
int g_rank = 0;
void expect(bool cond, const std::string& what) {
  if (g_rank == 0 || !cond) std::printf("%s: %s (rank %d)\n", cond ? "ok" : "FAILED", what.c_str(), g_rank);
  g_ok = g_ok && cond;
}

// The grid has the shape and the map it was given, and this process sits where the map
// puts `me` (a rank of the grid's communicator).
void check_placed(const blacs_dyn::Grid& g, int nprow, int npcol, const std::vector<int>& map, int me,
                  const std::string& what) {
  int at = -1;
  for (std::size_t k = 0; k < map.size(); ++k)
    if (map[k] == me) at = static_cast<int>(k);
  expect(g.nprow() == nprow && g.npcol() == npcol && g.ranks() == map, what + ": shape and ranks()");
  if (at < 0) {
    expect(!g.in_grid() && g.context() == -1 && g.myrow() == -1, what + ": outside the grid, no context");
    return;
  }
  expect(g.in_grid() && g.myrow() == at / npcol && g.mycol() == at % npcol, what + ": my row and column from the map");
  // Every member writes its rank where BLACS placed it; summed over the grid's "All"
  // scope (its communicators) that is the map on every member.
  std::vector<double> seen(map.size(), 0.0);
  seen[static_cast<std::size_t>(g.myrow() * npcol + g.mycol())] = me;
  Cdgsum2d(g.context(), "All", " ", static_cast<int>(seen.size()), 1, seen.data(), static_cast<int>(seen.size()), -1, -1);
  bool same = true;
  for (std::size_t k = 0; k < map.size(); ++k) same = same && seen[k] == map[k];
  expect(same, what + ": every member sits where the map says (summed over the grid)");
}

// A row sum over the grid (a BLACS collective on its context): npcol * (row + 1).
bool row_sum_works(const blacs_dyn::Grid& g) {
  double v = g.myrow() + 1.0;
  Cdgsum2d(g.context(), "Row", " ", 1, 1, &v, 1, -1, -1);
  return v == g.npcol() * (g.myrow() + 1.0);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const MPI_Comm world = blacs_dyn::World::comm();
  MPI_Comm_rank(world, &g_rank);
  int size = 0;
  MPI_Comm_size(world, &size);
  if (size != 4) {
    if (g_rank == 0) std::printf("FAILED: run on 4 processes\n");
    MPI_Finalize();
    return 1;
  }
  {
    std::optional<blacs_dyn::Grid> late;  // destroyed after MPI_Finalize
    {
      const std::vector<int> m22{3, 1, 2, 0}, m13{2, 0, 1};
      blacs_dyn::Grid a(world, 2, 2, m22);
      check_placed(a, 2, 2, m22, g_rank, "2x2 over {3,1,2,0}");
      expect(row_sum_works(a), "2x2 over {3,1,2,0}: a row sum on it");
      blacs_dyn::Grid b(world, 1, 3, m13);
      check_placed(b, 1, 3, m13, g_rank, "1x3 over {2,0,1}");
      b.release();
      b.release();  // twice: harmless
      expect(b.context() == -1 && !b.in_grid() && b.ranks() == m13, "release: no context, the map stays");
      blacs_dyn::Grid moved = std::move(a);
      expect(a.context() == -1 && !a.in_grid(), "a moved-from grid holds no context");
      check_placed(moved, 2, 2, m22, g_rank, "the moved-to grid");
    }
    {
      MPI_Comm half = MPI_COMM_NULL;
      MPI_Comm_split(world, g_rank % 2, g_rank, &half);
      int hr = 0;
      MPI_Comm_rank(half, &hr);
      const std::vector<int> m{1, 0};
      blacs_dyn::Grid h(half, 1, 2, m);
      check_placed(h, 1, 2, m, hr, "1x2 over {1,0} on a half of the world");
      expect(row_sum_works(h), "1x2 on a half: a row sum on it");
      h.release();
      MPI_Comm_free(&half);
    }
    const auto refused = [&](int nprow, int npcol, std::vector<int> map, const std::string& want) {
      try {
        blacs_dyn::Grid g(world, nprow, npcol, map);
        expect(false, "a bad map (" + want + ") is refused");
      } catch (const blacs_dyn::Error& e) {
        const std::string w = e.what();
        expect(e.code() == BLACS_DYN_ERR_ARG && w.find(want) != std::string::npos, "refused: " + w);
      }
    };
    refused(2, 2, {0, 1, 1, 3}, "rank 1 in the map is there twice");
    refused(1, 3, {0, 1, 4}, "rank 4 in the map is outside the communicator of 4");
    refused(1, 3, {0, -1, 2}, "rank -1 in the map is outside");
    refused(2, 2, {0, 1, 2}, "the rank map has 3 entries");
    refused(3, 2, {0, 1, 2, 3, 0, 1}, "does not fit a communicator of 4");
    {
      blacs_dyn::Grid after(world, 2, 2, std::vector<int>{0, 1, 2, 3});
      expect(after.in_grid() && row_sum_works(after), "after the refusals a grid works");
    }
    {
      // blacs_exit(1) frees every context; the next grid may get the old one's number.
      std::optional<blacs_dyn::Grid> before;
      before.emplace(world, 2, 2, std::vector<int>{0, 1, 2, 3});
      const int old_ctxt = before->context();
      Cblacs_exit(1);
      blacs_dyn::Grid now(world, 2, 2, std::vector<int>{1, 0, 3, 2});
      expect(now.context() == old_ctxt, "after blacs_exit(1) the new grid reuses the context number " + std::to_string(old_ctxt));
      before.reset();  // must not exit `now`'s context
      check_placed(now, 2, 2, {1, 0, 3, 2}, g_rank, "the grid made after blacs_exit(1)");
      expect(row_sum_works(now), "the grid made after blacs_exit(1) still works after the old one's release");
    }
    late.emplace(world, 1, 4, std::vector<int>{3, 2, 1, 0});
    check_placed(*late, 1, 4, {3, 2, 1, 0}, g_rank, "1x4 kept past MPI_Finalize");
    int all = g_ok ? 1 : 0, every = 0;
    MPI_Allreduce(&all, &every, 1, MPI_INT, MPI_MIN, world);
    g_ok = every == 1;
    MPI_Finalize();
  }  // `late` released here, after MPI_Finalize
  if (g_rank == 0) std::printf("%s\n", g_ok ? "PASS" : "FAILED");
  return g_ok ? 0 : 1;
}
