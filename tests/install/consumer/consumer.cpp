// SPDX-License-Identifier: BSD-3-Clause
// Out-of-tree consumer of the installed package: picks a grid with gridmap, remaps a
// block-cyclic matrix from a 2x2 grid onto it with redist, and checks every element.
#include <mpi.h>

#include <cstdio>
#include <vector>

#include "malleable/blacs_dyn/blacs_dyn.h"
#include "malleable/gridmap/topology.hpp"
#include "malleable/redist/redistribute.hpp"

namespace {
double value(std::int64_t i, std::int64_t j) { return static_cast<double>(i * 1000 + j); }

std::vector<double> fill(const redist::Layout& l, int pr, int pc, std::int64_t& ld) {
  const std::int64_t mloc = l.local_rows(pr), nloc = l.local_cols(pc);
  ld = mloc > 0 ? mloc : 1;
  std::vector<double> v(static_cast<std::size_t>(ld * (nloc > 0 ? nloc : 1)), -1.0);
  for (std::int64_t jl = 0; jl < nloc; ++jl)
    for (std::int64_t il = 0; il < mloc; ++il)
      v[il + jl * ld] = value(l.local_to_row(pr, il), l.local_to_col(pc, jl));
  return v;
}
}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const int size = blacs_dyn_size();
  const int rank = blacs_dyn_rank();
  const gridmap::TopologyChoice to = gridmap::choose_topology(size);
  const auto a = redist::Layout::block_cyclic(37, 29, 4, 3, 2, 2);
  const auto b = redist::Layout::block_cyclic(37, 29, 5, 2, to.grid.rows, to.grid.cols);
  int pr, pc;
  std::int64_t lda = 1, ldb = 1;
  std::vector<double> va{0.0}, vb{0.0}, expect{0.0};
  if (a.coords_of(rank, pr, pc)) va = fill(a, pr, pc, lda);
  if (b.coords_of(rank, pr, pc)) {
    expect = fill(b, pr, pc, ldb);
    vb.assign(expect.size(), -1.0);
  }
  redist::redistribute(blacs_dyn_world(), a, va.data(), lda, b, vb.data(), ldb);
  int bad = vb != expect, anybad = 0;
  MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, blacs_dyn_world());
  if (rank == 0)
    std::printf("consumer: 2x2 -> %s on %d ranks: %s\n", gridmap::to_string(to.grid).c_str(),
                size, anybad ? "MISMATCH" : "OK");
  MPI_Finalize();
  return anybad;
}
