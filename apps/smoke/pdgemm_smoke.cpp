// SPDX-License-Identifier: BSD-3-Clause
// A real distributed computation that proves the tool chain: C = A*B with PDGEMM on a
// P x Q BLACS grid, every rank checking its local block of C against a serial OpenBLAS
// DGEMM of the same global matrices. Usage: pdgemm_smoke [N] [NB] [P] [Q]
#include <cblas.h>
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "malleable/redist/scalapack_api.h"

namespace {
// Deterministic global entries, so every rank can build the serial reference itself.
double entry(int seed, int i, int j) {
  unsigned h = static_cast<unsigned>(seed) * 2654435761u ^ static_cast<unsigned>(i) * 40503u ^
               static_cast<unsigned>(j) * 2246822519u;
  h ^= h >> 13;
  h *= 0x5bd1e995u;
  h ^= h >> 15;
  return static_cast<double>(h % 2001u) / 1000.0 - 1.0;
}
}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const int n = argc > 1 ? std::atoi(argv[1]) : 300;
  const int nb = argc > 2 ? std::atoi(argv[2]) : 32;
  int rank = 0, size = 1;
  Cblacs_pinfo(&rank, &size);
  const int p = argc > 3 ? std::atoi(argv[3]) : 2;
  const int q = argc > 4 ? std::atoi(argv[4]) : 2;
  if (n < 1 || nb < 1 || p < 1 || q < 1 || p * q > size) {
    if (rank == 0) {
      std::fprintf(stderr, "pdgemm_smoke: need N>=1, NB>=1 and a P x Q grid within %d ranks "
                           "(got N=%d NB=%d P=%d Q=%d)\n", size, n, nb, p, q);
    }
    MPI_Finalize();
    return 2;
  }
  int ctxt = 0;
  Cblacs_get(0, 0, &ctxt);
  Cblacs_gridinit(&ctxt, "Row", p, q);
  int nprow, npcol, myrow, mycol;
  Cblacs_gridinfo(ctxt, &nprow, &npcol, &myrow, &mycol);
  int bad = 0;
  double maxerr = 0.0, seconds = 0.0;
  if (myrow >= 0 && myrow < nprow) {
    const int izero = 0, ione = 1;
    const int mloc = numroc_(&n, &nb, &myrow, &izero, &nprow);
    const int nloc = numroc_(&n, &nb, &mycol, &izero, &npcol);
    const int lld = std::max(1, mloc);
    // 0-based local index -> 0-based global index along one grid dimension.
    auto to_global = [&](int local, int coord, int nprocs) {
      const int l1 = local + 1;
      return indxl2g_(&l1, &nb, &coord, &izero, &nprocs) - 1;
    };
    int desc[9], info = 0;
    descinit_(desc, &n, &n, &nb, &nb, &izero, &izero, &ctxt, &lld, &info);
    std::vector<double> a(static_cast<size_t>(lld) * std::max(1, nloc));
    std::vector<double> b(a.size()), c(a.size(), 0.0);
    for (int jl = 0; jl < nloc; ++jl) {
      const int jg = to_global(jl, mycol, npcol);
      for (int il = 0; il < mloc; ++il) {
        const int ig = to_global(il, myrow, nprow);
        a[il + static_cast<size_t>(jl) * lld] = entry(1, ig, jg);
        b[il + static_cast<size_t>(jl) * lld] = entry(2, ig, jg);
      }
    }
    const double one = 1.0, zero = 0.0;
    const double t0 = MPI_Wtime();
    pdgemm_("N", "N", &n, &n, &n, &one, a.data(), &ione, &ione, desc, b.data(), &ione, &ione,
            desc, &zero, c.data(), &ione, &ione, desc);
    seconds = MPI_Wtime() - t0;
    // Serial reference with OpenBLAS on the whole matrices.
    std::vector<double> ga(static_cast<size_t>(n) * n), gb(ga.size()), gc(ga.size());
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i) {
        ga[i + static_cast<size_t>(j) * n] = entry(1, i, j);
        gb[i + static_cast<size_t>(j) * n] = entry(2, i, j);
      }
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0, ga.data(), n, gb.data(),
                n, 0.0, gc.data(), n);
    for (int jl = 0; jl < nloc; ++jl) {
      const int jg = to_global(jl, mycol, npcol);
      for (int il = 0; il < mloc; ++il) {
        const int ig = to_global(il, myrow, nprow);
        maxerr = std::max(maxerr, std::fabs(c[il + static_cast<size_t>(jl) * lld] -
                                            gc[ig + static_cast<size_t>(jg) * n]));
      }
    }
    Cblacs_gridexit(ctxt);
  }
  double globerr = 0.0, tmax = 0.0;
  MPI_Allreduce(&maxerr, &globerr, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  MPI_Allreduce(&seconds, &tmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  const double tol = 1e-12 * n;
  bad = globerr > tol;
  if (rank == 0) {
    std::printf("pdgemm_smoke: N=%d NB=%d grid %dx%d on %d ranks: PDGEMM %.4f s, "
                "max |C - C_openblas| = %.3e (tol %.1e): %s\n",
                n, nb, p, q, size, tmax, globerr, tol, bad ? "FAILED" : "OK");
  }
  Cblacs_exit(1);
  MPI_Finalize();
  return bad ? 1 : 0;
}
