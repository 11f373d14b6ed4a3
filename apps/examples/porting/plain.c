/* SPDX-License-Identifier: BSD-3-Clause */
/* A plain ScaLAPACK program in C (the "before" of docs/guide/porting.md): x <- A x + b with
 * PDGEMV on a fixed 2x2 grid, checked against the same recurrence computed serially.
 *   mpiexec -n 4 porting_plain_c */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

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

enum { N = 120, NB = 16, ITERS = 8 };
static double a_entry(int i, int j) { return sin(0.3 * i + 0.7 * j) / N; }
static double b_entry(int i) { return cos(0.1 * i); }
static int global_index(int l, int nb, int p, int np) { return (l / nb * np + p) * nb + l % nb; }

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int me, np, ctxt, nprow, npcol, myrow, mycol, info, zero = 0, one = 1, n = N, nb = NB;
  Cblacs_pinfo(&me, &np);
  Cblacs_get(-1, 0, &ctxt);
  Cblacs_gridinit(&ctxt, "R", 2, 2);
  Cblacs_gridinfo(ctxt, &nprow, &npcol, &myrow, &mycol);
  double err = 0.0, max_err = 0.0;
  if (myrow >= 0) {
    const int ml = numroc_(&n, &nb, &myrow, &zero, &nprow), nl = numroc_(&n, &nb, &mycol, &zero, &npcol);
    const int xl = numroc_(&one, &one, &mycol, &zero, &npcol), lld = ml > 1 ? ml : 1;
    int desca[9], descx[9];
    descinit_(desca, &n, &n, &nb, &nb, &zero, &zero, &ctxt, &lld, &info);
    descinit_(descx, &n, &one, &nb, &one, &zero, &zero, &ctxt, &lld, &info);
    double* a = calloc((size_t)lld * (nl > 0 ? nl : 1), sizeof *a);
    double* x = calloc((size_t)lld, sizeof *x);
    double* y = calloc((size_t)lld, sizeof *y);
    for (int jl = 0; jl < nl; ++jl)
      for (int il = 0; il < ml; ++il)
        a[il + (size_t)jl * lld] = a_entry(global_index(il, nb, myrow, nprow), global_index(jl, nb, mycol, npcol));
    if (xl > 0)
      for (int il = 0; il < ml; ++il) x[il] = b_entry(global_index(il, nb, myrow, nprow));
    const double d_one = 1.0, d_zero = 0.0;
    for (int it = 0; it < ITERS; ++it) {
      pdgemv_("N", &n, &n, &d_one, a, &one, &one, desca, x, &one, &one, descx, &one, &d_zero, y, &one, &one,
              descx, &one);
      if (xl > 0)
        for (int il = 0; il < ml; ++il) x[il] = y[il] + b_entry(global_index(il, nb, myrow, nprow));
    }
    double ref[N], tmp[N];
    for (int i = 0; i < N; ++i) ref[i] = b_entry(i);
    for (int k = 0; k < ITERS; ++k) {
      for (int i = 0; i < N; ++i) {
        double s = b_entry(i);
        for (int j = 0; j < N; ++j) s += a_entry(i, j) * ref[j];
        tmp[i] = s;
      }
      for (int i = 0; i < N; ++i) ref[i] = tmp[i];
    }
    if (xl > 0)
      for (int il = 0; il < ml; ++il) err = fmax(err, fabs(x[il] - ref[global_index(il, nb, myrow, nprow)]));
    free(a);
    free(x);
    free(y);
    Cblacs_gridexit(ctxt);
  }
  MPI_Allreduce(&err, &max_err, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  if (me == 0) printf("porting_plain_c: %d iterations on 2x2, max error %.2e: %s\n", ITERS, max_err, max_err < 1e-12 ? "OK" : "FAILED");
  MPI_Finalize();
  return max_err < 1e-12 ? 0 : 1;
}
