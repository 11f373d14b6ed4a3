// SPDX-License-Identifier: BSD-3-Clause
// The malleable version of plain.cpp (docs/porting.md): the same x <- A x + b with PDGEMV,
// on a grid that grows and shrinks at remap points. Lines marked [port] are the changes.
//   mpiexec -n 4 porting_malleable_cxx [schedule]      (default 3:expand:3x3,6:shrink:2x2)
#include <mpi.h>

#include <cmath>
#include <cstdio>
#include <vector>

#include "malleable/resize/policy.hpp"   // [port]
#include "malleable/resize/session.hpp"  // [port]

extern "C" {
int numroc_(const int* n, const int* nb, const int* iproc, const int* isrc, const int* np);
void pdgemv_(const char* trans, const int* m, const int* n, const double* alpha, const double* a, const int* ia,
             const int* ja, const int* desca, const double* x, const int* ix, const int* jx, const int* descx,
             const int* incx, const double* beta, double* y, const int* iy, const int* jy, const int* descy,
             const int* incy);
}

namespace {
constexpr int kN = 120, kNb = 16, kIters = 8;
double a_entry(int i, int j) { return std::sin(0.3 * i + 0.7 * j) / kN; }
double b_entry(int i) { return std::cos(0.1 * i); }
int global_index(int l, int nb, int p, int np) { return (l / nb * np + p) * nb + l % nb; }
}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  double max_err = 0;
  {  // [port] the session lives in a scope that ends before MPI_Finalize
    resize::SessionOptions opts;                                       // [port]
    opts.app = "porting_malleable_cxx";                                // [port]
    opts.policy = resize::make_policy("scripted", argc > 1 ? argv[1] : "3:expand:3x3,6:shrink:2x2", "");
    resize::Session s(argc, argv, std::move(opts));                    // [port] after MPI_Init
    const int zero = 0, one = 1, n = kN, nb = kNb;
    // [port] matrices that must survive a remap point are registered: the session owns their
    // layout (it fills the descriptors) and moves their data at every resize.
    int desca[9], descx[9];
    std::vector<double> a, x;
    s.register_matrix("A", n, n, nb, nb, resize::Distribution::BlockCyclic, desca, a);
    s.register_matrix("x", n, 1, nb, 1, resize::Distribution::BlockCyclic, descx, x);
    // [port] a newcomer (spawned at an expansion) joins and resumes the loop where the
    // others are; only the original processes create the data.
    int it = s.is_newcomer() ? s.join() : s.start(resize::Grid{2, 2, {}});
    const auto rows_here = [&]() {  // local rows of x on the current grid
      if (!s.in_grid()) return 0;
      int myrow = s.myrow(), nprow = s.grid().nprow;
      return numroc_(&n, &nb, &myrow, &zero, &nprow);
    };
    const auto has_x = [&]() { return s.in_grid() && s.mycol() == 0; };  // x lives in grid column 0
    if (!s.is_newcomer() && s.in_grid()) {
      const int myrow = s.myrow(), mycol = s.mycol(), nprow = s.grid().nprow, npcol = s.grid().npcol;
      const int ml = numroc_(&n, &nb, &myrow, &zero, &nprow), nl = numroc_(&n, &nb, &mycol, &zero, &npcol);
      for (int jl = 0; jl < nl; ++jl)
        for (int il = 0; il < ml; ++il)
          a[static_cast<std::size_t>(il + jl * desca[8])] =
              a_entry(global_index(il, nb, myrow, nprow), global_index(jl, nb, mycol, npcol));
      if (has_x())
        for (int il = 0; il < ml; ++il) x[static_cast<std::size_t>(il)] = b_entry(global_index(il, nb, myrow, nprow));
    }
    const double d_one = 1.0, d_zero = 0.0;
    std::vector<double> y;  // [port] workspace: sized again for every grid (below)
    while (it < kIters) {
      s.begin_iteration();  // [port]
      if (s.in_grid()) {
        y.assign(x.size(), 0.0);  // [port] workspace for this grid, from the registered x
        pdgemv_("N", &n, &n, &d_one, a.data(), &one, &one, desca, x.data(), &one, &one, descx, &one, &d_zero,
                y.data(), &one, &one, descx, &one);
        if (has_x())
          for (int il = 0; il < rows_here(); ++il)
            x[static_cast<std::size_t>(il)] = y[static_cast<std::size_t>(il)] + b_entry(global_index(il, nb, s.myrow(), s.grid().nprow));
      }
      s.end_iteration();  // [port]
      ++it;
      s.remap_point();    // [port] may resize: a.data(), x.data(), desca, descx change
    }
    std::vector<double> ref(kN), tmp(kN);
    for (int i = 0; i < kN; ++i) ref[static_cast<std::size_t>(i)] = b_entry(i);
    for (int k = 0; k < kIters; ++k) {
      for (int i = 0; i < kN; ++i) {
        double sum = b_entry(i);
        for (int j = 0; j < kN; ++j) sum += a_entry(i, j) * ref[static_cast<std::size_t>(j)];
        tmp[static_cast<std::size_t>(i)] = sum;
      }
      ref.swap(tmp);
    }
    double err = 0;
    if (has_x())
      for (int il = 0; il < rows_here(); ++il)
        err = std::fmax(err, std::fabs(x[static_cast<std::size_t>(il)] -
                                       ref[static_cast<std::size_t>(global_index(il, nb, s.myrow(), s.grid().nprow))]));
    // [port] the world is the session's (it changes at resizes), never MPI_COMM_WORLD
    MPI_Allreduce(&err, &max_err, 1, MPI_DOUBLE, MPI_MAX, s.world());
    if (s.world_rank() == 0)
      std::printf("porting_malleable_cxx: %d iterations, now on %s, max error %.2e: %s\n", kIters,
                  s.grid().shape().c_str(), max_err, max_err < 1e-12 ? "OK" : "FAILED");
  }
  MPI_Finalize();
  return max_err < 1e-12 ? 0 : 1;
}
