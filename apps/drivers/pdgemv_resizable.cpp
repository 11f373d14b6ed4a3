// SPDX-License-Identifier: BSD-3-Clause
// Resizable PDGEMV (thesis §3.7.2): x <- s * (A * x) repeated (a power iteration with a
// fixed scale s = sqrt(3/N)). A is N x N block-cyclic, x an N x 1 column on process
// column 0. Checked against the same recurrence with serial OpenBLAS DGEMV.
#include <cblas.h>
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "driver.hpp"
#include "malleable/redist/scalapack_api.h"

int main(int argc, char** argv) {
  apps::CommonOptions o = apps::start(argc, argv, 1000, 64, 10);  // MPI_THREAD_MULTIPLE with --background
  resize::Matrix<double> a, x;  // the session's (moved at every resize)
  std::vector<double> y;
  apps::DistOption dist;
  apps::DriverHooks h;
  h.name = "pdgemv";
  h.problem = [&] { return apps::describe_problem(o.n, o.nb, dist.dist); };
  h.setup = [&](resize::Session& s) {
    const resize::Distribution d = dist.parse(o);
    a = s.register_matrix<double>("A", o.n, o.n, o.nb, o.nb, d);
    x = s.register_matrix<double>("x", o.n, 1, o.nb, 1, d);
  };
  h.init = [&](resize::Session&) {
    apps::fill(a, 1);
    apps::fill(x, 3);
  };
  h.iterate = [&](resize::Session& s) {
    if (!s.in_grid()) return;
    y.assign(x.size(), 0.0);
    const double one = 1.0, zero = 0.0, scale = std::sqrt(3.0 / o.n);
    const int ione = 1;
    pdgemv_("N", &o.n, &o.n, &one, a.data(), &ione, &ione, a.desc(), x.data(), &ione, &ione, x.desc(), &ione,
            &zero, y.data(), &ione, &ione, x.desc(), &ione);
    double* xp = x.data();
    for (std::size_t k = 0; k < x.size(); ++k) xp[k] = scale * y[k];
  };
  h.check = [&](resize::Session& s) {
    const int n = o.n;
    std::vector<double> ref(static_cast<std::size_t>(n));
    if (s.world_rank() == 0) {
      std::vector<double> am(static_cast<std::size_t>(n) * n), t(ref.size());
      for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i) am[i + static_cast<std::size_t>(j) * n] = apps::entry(1, i, j);
      for (int i = 0; i < n; ++i) ref[static_cast<std::size_t>(i)] = apps::entry(3, i, 0);
      for (int k = 0; k < s.iteration(); ++k) {
        cblas_dgemv(CblasColMajor, CblasNoTrans, n, n, std::sqrt(3.0 / n), am.data(), n, ref.data(), 1, 0.0,
                    t.data(), 1);
        ref.swap(t);
      }
    }
    MPI_Bcast(ref.data(), n, MPI_DOUBLE, 0, s.world());
    double refmax = 0.0;
    for (double v : ref) refmax = std::max(refmax, std::fabs(v));
    const double err = apps::max_diff(s, x, ref);
    const double tol = 1e-12 * n * std::max(1, s.iteration()) * std::max(1.0, refmax);
    char msg[200];
    std::snprintf(msg, sizeof msg, "x = (sA)^%d x0: max |x - x_openblas| = %.3e (tol %.1e): %s", s.iteration(),
                  err, tol, err <= tol ? "OK" : "FAILED");
    return apps::Check{err <= tol, msg};
  };
  const int rc = apps::run_driver(argc, argv, o, [&](void* app) { dist.add_to(app); }, h);
  MPI_Finalize();
  return rc;
}
