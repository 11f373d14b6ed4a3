/* SPDX-License-Identifier: BSD-3-Clause */
/* An unmodified ScaLAPACK program in C (it knows nothing of malleable), for the README's
 * link lines and the documented LD_PRELOAD commands: PDGEMM C = A * B on a 2 x (P/2)
 * grid, then C moved onto a 1 x P grid with PDGEMR2D, both checked against the serial
 * product. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

void Cblacs_pinfo(int* me, int* np);
void Cblacs_get(int ctxt, int what, int* val);
void Cblacs_gridinit(int* ctxt, const char* order, int nprow, int npcol);
void Cblacs_gridinfo(int ctxt, int* nprow, int* npcol, int* myrow, int* mycol);
void Cblacs_gridexit(int ctxt);
void Cblacs_exit(int cont);
int numroc_(const int* n, const int* nb, const int* iproc, const int* isrc, const int* np);
void descinit_(int* desc, const int* m, const int* n, const int* mb, const int* nb, const int* irsrc,
               const int* icsrc, const int* ctxt, const int* lld, int* info);
void pdgemm_(const char* ta, const char* tb, const int* m, const int* n, const int* k, const double* alpha,
             const double* a, const int* ia, const int* ja, const int* desca, const double* b,
             const int* ib, const int* jb, const int* descb, const double* beta, double* c,
             const int* ic, const int* jc, const int* descc);
void Cpdgemr2d(int m, int n, double* a, int ia, int ja, int* desca, double* b, int ib, int jb, int* descb,
               int gcontext);

static double av(int i, int j) { return (double)((i + 2 * j) % 7) - 3.0; }
static double bv(int i, int j) { return (double)((3 * i + j) % 5) * 0.5; }
static double absmax(double e, double d) { d = d < 0 ? -d : d; return d > e ? d : e; }

int main(void) {
  int me, np, ctxt, nprow, npcol, myrow, mycol, info, zero = 0, one = 1;
  const int n = 64, nb = 8;
  Cblacs_pinfo(&me, &np);
  Cblacs_get(0, 0, &ctxt);
  Cblacs_gridinit(&ctxt, "R", 2, np / 2);
  Cblacs_gridinfo(ctxt, &nprow, &npcol, &myrow, &mycol);
  double err = 0;
  if (myrow >= 0) {
    const int mloc = numroc_(&n, &nb, &myrow, &zero, &nprow), nloc = numroc_(&n, &nb, &mycol, &zero, &npcol);
    const int lld = mloc > 1 ? mloc : 1;
    int desc[9];
    descinit_(desc, &n, &n, &nb, &nb, &zero, &zero, &ctxt, &lld, &info);
    double* a = calloc((size_t)lld * nloc + 1, sizeof(double));
    double* b = calloc((size_t)lld * nloc + 1, sizeof(double));
    double* c = calloc((size_t)lld * nloc + 1, sizeof(double));
    for (int jl = 0; jl < nloc; ++jl)
      for (int il = 0; il < mloc; ++il) {
        const int i = (il / nb * nprow + myrow) * nb + il % nb, j = (jl / nb * npcol + mycol) * nb + jl % nb;
        a[il + jl * lld] = av(i, j);
        b[il + jl * lld] = bv(i, j);
      }
    const double alpha = 1.0, beta = 0.0;
    pdgemm_("N", "N", &n, &n, &n, &alpha, a, &one, &one, desc, b, &one, &one, desc, &beta, c, &one, &one, desc);
    for (int jl = 0; jl < nloc; ++jl)
      for (int il = 0; il < mloc; ++il) {
        const int i = (il / nb * nprow + myrow) * nb + il % nb, j = (jl / nb * npcol + mycol) * nb + jl % nb;
        double ref = 0;
        for (int k = 0; k < n; ++k) ref += av(i, k) * bv(k, j);
        err = absmax(err, c[il + jl * lld] - ref);
      }
    // C onto a 1 x P grid with 16 x 16 blocks (every process is in both grids).
    int ctxt2, pr2, pc2, myrow2, mycol2;
    const int nb2 = 16;
    Cblacs_get(0, 0, &ctxt2);
    Cblacs_gridinit(&ctxt2, "R", 1, np);
    Cblacs_gridinfo(ctxt2, &pr2, &pc2, &myrow2, &mycol2);
    const int nloc2 = numroc_(&n, &nb2, &mycol2, &zero, &pc2);
    int desc2[9];
    descinit_(desc2, &n, &n, &nb2, &nb2, &zero, &zero, &ctxt2, &n, &info);
    double* c2 = calloc((size_t)n * nloc2 + 1, sizeof(double));
    Cpdgemr2d(n, n, c, 1, 1, desc, c2, 1, 1, desc2, ctxt2);
    for (int jl = 0; jl < nloc2; ++jl)
      for (int i = 0; i < n; ++i) {
        const int j = (jl / nb2 * pc2 + mycol2) * nb2 + jl % nb2;
        double ref = 0;
        for (int k = 0; k < n; ++k) ref += av(i, k) * bv(k, j);
        err = absmax(err, c2[i + jl * n] - ref);
      }
    free(c2);
    Cblacs_gridexit(ctxt2);
    free(a);
    free(b);
    free(c);
    Cblacs_gridexit(ctxt);
  }
  double max_err = 0;
  MPI_Allreduce(&err, &max_err, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  if (me == 0) printf("app.c: PDGEMM and PDGEMR2D on %d processes, max error %.1e\n", np, max_err);
  Cblacs_exit(0);
  return max_err < 1e-10 ? 0 : 1;
}
