// SPDX-License-Identifier: BSD-3-Clause
// A plain ScaLAPACK program (the "before" of docs/guide/porting.md): x <- A x + b with PDGEMV on
// a fixed 2x2 grid, checked against the same recurrence computed serially.
//   mpiexec -n 4 porting_plain_cxx
#include <mpi.h>

#include <cmath>
#include <cstdio>
#include <vector>

extern "C" {
void Cblacs_pinfo(int* me, int* np);
void Cblacs_get(int ctxt, int what, int* val);
void Cblacs_gridinit(int* ctxt, const char* order, int nprow, int npcol);
void Cblacs_gridinfo(int ctxt, int* nprow, int* npcol, int* myrow, int* mycol);
void Cblacs_gridexit(int ctxt);
int numroc_(const int* n, const int* nb, const int* iproc, const int* isrc, const int* np);
void descinit_(int* desc, const int* m, const int* n, const int* mb, const int* nb, const int* irsrc,
               const int* icsrc, const int* ctxt, const int* lld, int* info);
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
  int me = 0, np = 0, ctxt = 0, nprow = 0, npcol = 0, myrow = 0, mycol = 0, info = 0;
  Cblacs_pinfo(&me, &np);
  Cblacs_get(-1, 0, &ctxt);
  Cblacs_gridinit(&ctxt, "R", 2, 2);
  Cblacs_gridinfo(ctxt, &nprow, &npcol, &myrow, &mycol);
  const int zero = 0, one = 1, n = kN, nb = kNb;
  double err = 0;
  if (myrow >= 0) {
    const int ml = numroc_(&n, &nb, &myrow, &zero, &nprow), nl = numroc_(&n, &nb, &mycol, &zero, &npcol);
    const int xl = numroc_(&one, &one, &mycol, &zero, &npcol), lld = std::max(1, ml);
    int desca[9], descx[9];
    descinit_(desca, &n, &n, &nb, &nb, &zero, &zero, &ctxt, &lld, &info);
    descinit_(descx, &n, &one, &nb, &one, &zero, &zero, &ctxt, &lld, &info);
    std::vector<double> a(static_cast<std::size_t>(lld * std::max(1, nl))), x(static_cast<std::size_t>(lld * std::max(1, xl))),
        y(x.size());
    for (int jl = 0; jl < nl; ++jl)
      for (int il = 0; il < ml; ++il)
        a[static_cast<std::size_t>(il + jl * lld)] =
            a_entry(global_index(il, nb, myrow, nprow), global_index(jl, nb, mycol, npcol));
    if (xl > 0)
      for (int il = 0; il < ml; ++il) x[static_cast<std::size_t>(il)] = b_entry(global_index(il, nb, myrow, nprow));
    const double d_one = 1.0, d_zero = 0.0;
    for (int it = 0; it < kIters; ++it) {
      pdgemv_("N", &n, &n, &d_one, a.data(), &one, &one, desca, x.data(), &one, &one, descx, &one, &d_zero,
              y.data(), &one, &one, descx, &one);
      if (xl > 0)
        for (int il = 0; il < ml; ++il)
          x[static_cast<std::size_t>(il)] = y[static_cast<std::size_t>(il)] + b_entry(global_index(il, nb, myrow, nprow));
    }
    std::vector<double> ref(kN), tmp(kN);
    for (int i = 0; i < kN; ++i) ref[static_cast<std::size_t>(i)] = b_entry(i);
    for (int k = 0; k < kIters; ++k) {
      for (int i = 0; i < kN; ++i) {
        double s = b_entry(i);
        for (int j = 0; j < kN; ++j) s += a_entry(i, j) * ref[static_cast<std::size_t>(j)];
        tmp[static_cast<std::size_t>(i)] = s;
      }
      ref.swap(tmp);
    }
    if (xl > 0)
      for (int il = 0; il < ml; ++il)
        err = std::fmax(err, std::fabs(x[static_cast<std::size_t>(il)] - ref[static_cast<std::size_t>(global_index(il, nb, myrow, nprow))]));
    Cblacs_gridexit(ctxt);
  }
  double max_err = 0;
  MPI_Allreduce(&err, &max_err, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  if (me == 0) std::printf("porting_plain_cxx: %d iterations on 2x2, max error %.2e: %s\n", kIters, max_err, max_err < 1e-12 ? "OK" : "FAILED");
  MPI_Finalize();
  return max_err < 1e-12 ? 0 : 1;
}
