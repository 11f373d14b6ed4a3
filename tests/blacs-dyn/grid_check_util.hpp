// SPDX-License-Identifier: BSD-3-Clause
// PDGEMM on a grid over the current world, checked against a serial OpenBLAS DGEMM of
// the same global matrices: the proof that BLACS/PBLAS really use the world blacs-dyn
// says is current.
#ifndef BLACS_DYN_TESTS_GRID_CHECK_HPP
#define BLACS_DYN_TESTS_GRID_CHECK_HPP

#include <cblas.h>
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "malleable/blacs_dyn/blacs_dyn.h"
#include "malleable/redist/scalapack_api.h"

namespace blacs_dyn_test {

inline double entry(int seed, int i, int j) {
  unsigned h = static_cast<unsigned>(seed) * 2654435761u ^ static_cast<unsigned>(i) * 40503u ^
               static_cast<unsigned>(j) * 2246822519u;
  h ^= h >> 13;
  h *= 0x5bd1e995u;
  h ^= h >> 15;
  return static_cast<double>(h % 2001u) / 1000.0 - 1.0;
}

// The most square p x q = np grid (p <= q).
inline void grid_shape(int np, int& p, int& q) {
  p = 1;
  for (int d = 1; d * d <= np; ++d)
    if (np % d == 0) p = d;
  q = np / p;
}

struct GridCheck {
  int np = 0, nprow = 0, npcol = 0;
  double maxerr = 0.0;
  bool ok = false;
};

// Collective over the current world. Builds the grid with the stock calls
// (blacs_pinfo, blacs_get(0, 0), blacs_gridinit) so it goes through the interposed
// entry points.
inline GridCheck pdgemm_on_world(int n, int nb) {
  GridCheck r;
  int me = 0;
  Cblacs_pinfo(&me, &r.np);
  grid_shape(r.np, r.nprow, r.npcol);
  int ctxt = 0;
  Cblacs_get(0, 0, &ctxt);
  Cblacs_gridinit(&ctxt, "Row", r.nprow, r.npcol);
  int nprow = 0, npcol = 0, myrow = -1, mycol = -1;
  Cblacs_gridinfo(ctxt, &nprow, &npcol, &myrow, &mycol);
  double err = 0.0;
  int bad = (nprow != r.nprow || npcol != r.npcol || myrow < 0) ? 1 : 0;
  if (!bad) {
    const int izero = 0, ione = 1;
    const int mloc = numroc_(&n, &nb, &myrow, &izero, &nprow);
    const int nloc = numroc_(&n, &nb, &mycol, &izero, &npcol);
    const int lld = std::max(1, mloc);
    auto to_global = [&](int local, int coord, int nprocs) {
      const int l1 = local + 1;
      return indxl2g_(&l1, &nb, &coord, &izero, &nprocs) - 1;
    };
    int desc[9], info = 0;
    descinit_(desc, &n, &n, &nb, &nb, &izero, &izero, &ctxt, &lld, &info);
    std::vector<double> a(static_cast<size_t>(lld) * std::max(1, nloc)), b(a.size()), c(a.size());
    for (int jl = 0; jl < nloc; ++jl)
      for (int il = 0; il < mloc; ++il) {
        const int ig = to_global(il, myrow, nprow), jg = to_global(jl, mycol, npcol);
        a[il + static_cast<size_t>(jl) * lld] = entry(1, ig, jg);
        b[il + static_cast<size_t>(jl) * lld] = entry(2, ig, jg);
      }
    const double one = 1.0, zero = 0.0;
    pdgemm_("N", "N", &n, &n, &n, &one, a.data(), &ione, &ione, desc, b.data(), &ione, &ione,
            desc, &zero, c.data(), &ione, &ione, desc);
    std::vector<double> ga(static_cast<size_t>(n) * n), gb(ga.size()), gc(ga.size());
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i) {
        ga[i + static_cast<size_t>(j) * n] = entry(1, i, j);
        gb[i + static_cast<size_t>(j) * n] = entry(2, i, j);
      }
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0, ga.data(), n, gb.data(), n,
                0.0, gc.data(), n);
    for (int jl = 0; jl < nloc; ++jl)
      for (int il = 0; il < mloc; ++il) {
        const int ig = to_global(il, myrow, nprow), jg = to_global(jl, mycol, npcol);
        err = std::max(err, std::fabs(c[il + static_cast<size_t>(jl) * lld] -
                                      gc[ig + static_cast<size_t>(jg) * n]));
      }
    Cblacs_gridexit(ctxt);
  }
  const MPI_Comm w = blacs_dyn_world();
  MPI_Allreduce(MPI_IN_PLACE, &err, 1, MPI_DOUBLE, MPI_MAX, w);
  MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, w);
  r.maxerr = err;
  r.ok = !bad && err < 1e-10 * n;
  return r;
}

}  // namespace blacs_dyn_test
#endif
