// SPDX-License-Identifier: BSD-3-Clause
// The malleable version of plain.cpp (docs/guide/porting.md): the same x <- A x + b with PDGEMV,
// on a grid that grows and shrinks at remap points. Lines marked [port] are the changes.
//   mpiexec -n 4 porting_malleable_cxx [schedule|slurm [run.json]]   (default 3:expand:3x3,6:shrink:2x2)
// Under Slurm by the recipe of docs/guide/slurm.md (RESIZE_POLICY=slurm): any arguments.
#include <mpi.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "malleable/resize/policy.hpp"   // [port]
#include "malleable/resize/session.hpp"  // [port]

extern "C" void pdgemv_(const char* trans, const int* m, const int* n, const double* alpha, const double* a,
                        const int* ia, const int* ja, const int* desca, const double* x, const int* ix, const int* jx,
                        const int* descx, const int* incx, const double* beta, double* y, const int* iy,
                        const int* jy, const int* descy, const int* incy);

namespace {
constexpr int kN = 120, kNb = 16, kIters = 8;
double a_entry(int i, int j) { return std::sin(0.3 * i + 0.7 * j) / kN; }
double b_entry(int i) { return std::cos(0.1 * i); }
}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  double max_err = 0;
  {  // [port] the session lives in a scope that ends before MPI_Finalize
    resize::SessionOptions opts;                                       // [port]
    opts.app = "porting_malleable_cxx";                                // [port]
    opts.total_iterations = kIters;                                    // [port] the run's length
    // [port] the policy: a schedule, or "slurm" under Slurm (docs/guide/slurm.md), told the
    // run's iterations for its payoff test; RESIZE_POLICY=slurm in the environment (the
    // recipe) replaces either, with total_iterations as the run's iterations
    const std::string plan = argc > 1 ? argv[1] : "3:expand:3x3,6:shrink:2x2";
    opts.policy = plan == "slurm" ? resize::make_policy("slurm", "iterations=" + std::to_string(kIters), "")
                                  : resize::make_policy("scripted", plan, "");
    resize::Session s(argc, argv, std::move(opts));                    // [port] after MPI_Init
    const int one = 1, n = kN;
    // [port] matrices that must survive a remap point are registered: the session owns them
    // (descriptor, buffer, layout on every grid) and moves their data at every resize.
    auto a = s.register_matrix<double>("A", n, n, kNb, kNb);
    auto x = s.register_matrix<double>("x", n, 1, kNb, 1);
    // [port] a newcomer (spawned at an expansion) joins and resumes the loop where the
    // others are; only the original processes create the data (by global index):
    // is_newcomer() stays true after join(), so a newcomer keeps the data it received.
    // 0x0: every process started, near square (2x2 on 4; under Slurm, every node it got)
    int it = s.is_newcomer() ? s.join() : s.start(resize::Grid{0, 0, {}});
    if (!s.is_newcomer()) {
      a.for_each_local([](int i, int j, double& v) { v = a_entry(i, j); });
      x.for_each_local([](int i, int, double& v) { v = b_entry(i); });
    }
    const double d_one = 1.0, d_zero = 0.0;
    std::vector<double> y;  // [port] workspace: sized again for every grid (below)
    while (it < kIters) {
      s.begin_iteration();  // [port]
      if (s.in_grid()) {
        y.assign(x.size(), 0.0);  // [port] workspace for this grid, as long as the registered x
        pdgemv_("N", &n, &n, &d_one, a.data(), &one, &one, a.desc(), x.data(), &one, &one, x.desc(), &one, &d_zero,
                y.data(), &one, &one, x.desc(), &one);
        x.for_each_local([&](int i, int, double& v) { v = y[x.local_row(i)] + b_entry(i); });
      }
      s.end_iteration();  // [port]
      ++it;
      if (it < kIters) s.remap_point();  // [port] may resize: a and x then show the new grid's data
                                         // (none after the last iteration: nothing would use it)
    }
    std::vector<double> ref(kN), tmp(kN);
    for (int i = 0; i < kN; ++i) ref[i] = b_entry(i);
    for (int k = 0; k < kIters; ++k) {
      for (int i = 0; i < kN; ++i) {
        double sum = b_entry(i);
        for (int j = 0; j < kN; ++j) sum += a_entry(i, j) * ref[j];
        tmp[i] = sum;
      }
      ref.swap(tmp);
    }
    double err = 0;
    x.for_each_local([&](int i, int, double& v) { err = std::fmax(err, std::fabs(v - ref[i])); });
    // [port] the world is the session's (it changes at resizes), never MPI_COMM_WORLD
    MPI_Allreduce(&err, &max_err, 1, MPI_DOUBLE, MPI_MAX, s.world());
    // [port] the run's summary and JSON (malleable-plot), as the drivers print them
    char check[64];
    std::snprintf(check, sizeof check, "max error %.2e (tol 1e-12)", max_err);
    s.set_result_check(max_err < 1e-12, check);
    std::printf("%s", s.summary().c_str());  // world rank 0 (empty elsewhere)
    if (argc > 2) s.write_json(argv[2]);
    if (s.world_rank() == 0)
      std::printf("porting_malleable_cxx: %d iterations, now on %s, max error %.2e: %s\n", kIters,
                  s.grid().shape().c_str(), max_err, max_err < 1e-12 ? "OK" : "FAILED");
  }
  MPI_Finalize();
  return max_err < 1e-12 ? 0 : 1;
}
