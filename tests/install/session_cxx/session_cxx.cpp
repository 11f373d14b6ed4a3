// SPDX-License-Identifier: BSD-3-Clause
// A malleable program as a user writes it against the installed package: x <- A x + b
// with PDGEMV, on a grid that grows from 1x2 to 1x3 (one spawned process, which is this
// installed program again and must find the libraries by itself) and shrinks back,
// checked against the same recurrence computed serially. The session lives in main's
// scope and is destroyed after MPI_Finalize, which must be harmless.
#include <mpi.h>

#include <cmath>
#include <cstdio>
#include <vector>

#include "malleable/resize/policy.hpp"
#include "malleable/resize/session.hpp"

extern "C" void pdgemv_(const char* trans, const int* m, const int* n, const double* alpha,
                        const double* a, const int* ia, const int* ja, const int* desca,
                        const double* x, const int* ix, const int* jx, const int* descx,
                        const int* incx, const double* beta, double* y, const int* iy,
                        const int* jy, const int* descy, const int* incy);
extern "C" int numroc_(const int* n, const int* nb, const int* iproc, const int* isrc,
                       const int* nprocs);

namespace {
constexpr int kN = 96, kNb = 16, kIters = 4;
double a_entry(int i, int j) { return std::sin(0.3 * i + 0.7 * j) / kN; }
double b_entry(int i) { return std::cos(0.1 * i); }

// Global row/column of local index l on process coordinate p (block-cyclic, source 0).
int global_index(int l, int nb, int p, int np) { return (l / nb * np + p) * nb + l % nb; }

// Calls f(global_i, global_j, local_offset) for every local element.
template <class F>
void for_local(resize::Session& s, const int* desc, F f) {
  if (!s.in_grid()) return;
  const int nprow = s.grid().nprow, npcol = s.grid().npcol, zero = 0;
  const int myrow = s.myrow(), mycol = s.mycol();
  const int mloc = numroc_(&desc[2], &desc[4], &myrow, &zero, &nprow);
  const int nloc = numroc_(&desc[3], &desc[5], &mycol, &zero, &npcol);
  for (int jl = 0; jl < nloc; ++jl)
    for (int il = 0; il < mloc; ++il)
      f(global_index(il, desc[4], myrow, nprow), global_index(jl, desc[5], mycol, npcol),
        il + jl * desc[8]);
}
}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  resize::SessionOptions opts;
  opts.app = "session_cxx";
  opts.progress = false;
  opts.policy = resize::make_policy("scripted", "1:expand:1x3,3:shrink:1x2", "");
  resize::Session s(argc, argv, std::move(opts));
  int desca[9], descx[9], descy[9];
  std::vector<double> a, x, y;
  s.register_matrix("A", kN, kN, kNb, kNb, resize::Distribution::BlockCyclic, desca, a);
  s.register_matrix("x", kN, 1, kNb, 1, resize::Distribution::BlockCyclic, descx, x);
  s.register_matrix("y", kN, 1, kNb, 1, resize::Distribution::BlockCyclic, descy, y);
  int it = s.is_newcomer() ? s.join() : s.start(resize::Grid{1, 2, {}});
  if (it == 0) {  // only the original processes create the data
    for_local(s, desca, [&](int i, int j, int off) { a[static_cast<std::size_t>(off)] = a_entry(i, j); });
    for_local(s, descx, [&](int i, int, int off) { x[static_cast<std::size_t>(off)] = b_entry(i); });
  }
  const int one = 1;
  const double d_one = 1.0, d_zero = 0.0;
  while (it < kIters) {
    s.begin_iteration();
    if (s.in_grid()) {
      // y <- A x, then x <- y + b (every buffer is re-read: a remap point reallocates them)
      pdgemv_("N", &kN, &kN, &d_one, a.data(), &one, &one, desca, x.data(), &one, &one, descx,
              &one, &d_zero, y.data(), &one, &one, descy, &one);
      for_local(s, descx, [&](int i, int, int off) {
        x[static_cast<std::size_t>(off)] = y[static_cast<std::size_t>(off)] + b_entry(i);
      });
    }
    s.end_iteration();
    ++it;
    s.remap_point();
  }
  std::vector<double> ref(kN), tmp(kN);
  for (int i = 0; i < kN; ++i) ref[static_cast<std::size_t>(i)] = b_entry(i);
  for (int k = 0; k < kIters; ++k) {
    for (int i = 0; i < kN; ++i) {
      double sum = 0;
      for (int j = 0; j < kN; ++j) sum += a_entry(i, j) * ref[static_cast<std::size_t>(j)];
      tmp[static_cast<std::size_t>(i)] = sum + b_entry(i);
    }
    ref = tmp;
  }
  double err = 0;
  for_local(s, descx, [&](int i, int, int off) {
    err = std::fmax(err, std::fabs(x[static_cast<std::size_t>(off)] - ref[static_cast<std::size_t>(i)]));
  });
  double max_err = 0;
  MPI_Allreduce(&err, &max_err, 1, MPI_DOUBLE, MPI_MAX, s.world());
  const bool ok = max_err < 1e-12 && s.grid().npcol == 2 && s.metrics().resizes().size() == (s.world_rank() == 0 ? 2u : 0u);
  if (s.world_rank() == 0)
    std::printf("session_cxx: %d iterations, grid %s, max error %.2e, %zu resizes: %s\n", it,
                s.grid().shape().c_str(), max_err, s.metrics().resizes().size(), ok ? "ok" : "FAILED");
  MPI_Finalize();
  return ok ? 0 : 1;
}  // ~Session runs here, after MPI_Finalize
