// SPDX-License-Identifier: BSD-3-Clause
// Resizable PDGETRF (thesis §3.7.3): each iteration factors A = P L U (on a copy) and
// solves A x = b with PDGETRS, then b <- x / ||x||_inf (inverse iteration, so every
// iteration depends on the data carried through the resizes). Checked by the residual
// ||A x - b||_inf / (||A||_inf ||x||_inf N eps) of the last solve, and x against the same
// recurrence with serial LAPACKE_dgesv on world rank 0.
#include <lapacke.h>
#include <mpi.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <vector>

#include "driver.hpp"
#include "malleable/redist/scalapack_api.h"

int main(int argc, char** argv) {
  apps::CommonOptions o = apps::start(argc, argv, 600, 32, 8);  // MPI_THREAD_MULTIPLE with --background
  resize::Matrix<double> a, b;  // the session's (moved at every resize)
  std::vector<double> lu, x, b_last;  // scratch: lu has a's layout, x and b_last b's
  std::vector<int> ipiv;
  int info_max = 0;
  apps::DriverHooks h;
  h.name = "pdgetrf";
  h.problem = [&] { return "N=" + std::to_string(o.n) + " NB=" + std::to_string(o.nb); };
  h.setup = [&](resize::Session& s) {
    a = s.register_matrix<double>("A", o.n, o.n, o.nb, o.nb);
    b = s.register_matrix<double>("b", o.n, 1, o.nb, 1);
  };
  h.init = [&](resize::Session&) {
    apps::fill(a, 1);
    apps::fill(b, 4);
  };
  h.iterate = [&](resize::Session& s) {
    if (!s.in_grid()) return;
    const int ione = 1;
    const int* da = a.desc();
    const int* db = b.desc();
    lu.assign(a.data(), a.data() + a.size());
    x.assign(b.data(), b.data() + b.size());
    b_last = x;
    ipiv.assign(static_cast<std::size_t>(a.lld()) + static_cast<std::size_t>(a.mb()), 0);
    int info = 0;
    pdgetrf_(&o.n, &o.n, lu.data(), &ione, &ione, da, ipiv.data(), &info);
    info_max = std::max(info_max, std::abs(info));
    pdgetrs_("N", &o.n, &ione, lu.data(), &ione, &ione, da, ipiv.data(), x.data(), &ione, &ione, db, &info);
    info_max = std::max(info_max, std::abs(info));
    double work = 0.0;
    const double xn = pdlange_("M", &o.n, &ione, x.data(), &ione, &ione, db, &work);
    double* bp = b.data();
    for (std::size_t k = 0; k < b.size(); ++k) bp[k] = x[k] / xn;
  };
  h.check = [&](resize::Session& s) {
    const int n = o.n, ione = 1;
    double resid = 0.0;
    if (s.in_grid()) {
      const int* da = a.desc();
      const int* db = b.desc();
      // r = b_last - A x
      std::vector<double> r = b_last;
      const double mone = -1.0, one = 1.0;
      pdgemv_("N", &n, &n, &mone, a.data(), &ione, &ione, da, x.data(), &ione, &ione, db, &ione, &one,
              r.data(), &ione, &ione, db, &ione);
      std::vector<double> work(static_cast<std::size_t>(da[8]) + 64, 0.0);
      const double rn = pdlange_("I", &n, &ione, r.data(), &ione, &ione, db, work.data());
      std::vector<double> work2(static_cast<std::size_t>(std::max(da[8], 1)) * 4 + 1024, 0.0);
      const double an = pdlange_("I", &n, &n, a.data(), &ione, &ione, da, work2.data());
      const double xn = pdlange_("I", &n, &ione, x.data(), &ione, &ione, db, work.data());
      resid = rn / (an * xn * n * DBL_EPSILON);
    }
    double g = 0.0;
    MPI_Allreduce(&resid, &g, 1, MPI_DOUBLE, MPI_MAX, s.world());
    // Serial LAPACK reference of the same inverse iteration.
    std::vector<double> ref(static_cast<std::size_t>(n));
    if (s.world_rank() == 0) {
      std::vector<double> am(static_cast<std::size_t>(n) * n), f(am.size());
      std::vector<int> piv(static_cast<std::size_t>(n));
      for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i) am[i + static_cast<std::size_t>(j) * n] = apps::entry(1, i, j);
      for (int i = 0; i < n; ++i) ref[static_cast<std::size_t>(i)] = apps::entry(4, i, 0);
      for (int k = 0; k < s.iteration(); ++k) {
        std::vector<double> prev = ref;
        f = am;
        LAPACKE_dgesv(LAPACK_COL_MAJOR, n, 1, f.data(), n, piv.data(), ref.data(), n);
        if (k + 1 < s.iteration()) {
          double m = 0.0;
          for (double v : ref) m = std::max(m, std::fabs(v));
          for (double& v : ref) v /= m;
        }
      }
    }
    MPI_Bcast(ref.data(), n, MPI_DOUBLE, 0, s.world());
    double refmax = 0.0;
    for (double v : ref) refmax = std::max(refmax, std::fabs(v));
    const double err = apps::max_diff(s, b.map(), x.data(), b.lld(), ref) / std::max(refmax, 1e-300);
    int info_all = 0;
    MPI_Allreduce(&info_max, &info_all, 1, MPI_INT, MPI_MAX, s.world());
    const bool ok = info_all == 0 && g < 16.0 && err < 1e-8;
    char msg[240];
    std::snprintf(msg, sizeof msg,
                  "residual ||Ax-b||/(||A|| ||x|| N eps) = %.3f (bound 16), max |x - x_lapacke|/|x| = %.2e "
                  "(tol 1e-8), info %d: %s",
                  g, err, info_all, ok ? "OK" : "FAILED");
    return apps::Check{ok, msg};
  };
  const int rc = apps::run_driver(argc, argv, o, nullptr, h);
  MPI_Finalize();
  return rc;
}
