/* SPDX-License-Identifier: BSD-3-Clause */
/* An unmodified ScaLAPACK program: it knows nothing of blacs-dyn and uses only the stock
 * Fortran entry points (blacs_pinfo_, blacs_get_, blacs_gridinit_, descinit_, pdgesv_).
 * Solves A x = b for a diagonally dominant A and x_true(i) = 1 + i/n on the most square
 * grid of the world, and prints one RESULT line. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "unmodified_solve.h"

void blacs_pinfo_(int* me, int* np);
void blacs_get_(int* ctxt, int* what, int* val);
void blacs_gridinit_(int* ctxt, const char* order, int* nprow, int* npcol);
void blacs_gridinfo_(int* ctxt, int* nprow, int* npcol, int* myrow, int* mycol);
void blacs_gridexit_(int* ctxt);
void dgsum2d_(int* ctxt, const char* scope, const char* top, int* m, int* n, double* a, int* lda,
              int* rdest, int* cdest);
void dgamx2d_(int* ctxt, const char* scope, const char* top, int* m, int* n, double* a, int* lda,
              int* ra, int* ca, int* ldia, int* rdest, int* cdest);
int numroc_(const int* n, const int* nb, const int* iproc, const int* isrc, const int* nprocs);
int indxl2g_(const int* il, const int* nb, const int* iproc, const int* isrc, const int* nprocs);
void descinit_(int* desc, const int* m, const int* n, const int* mb, const int* nb, const int* irsrc,
               const int* icsrc, const int* ctxt, const int* lld, int* info);
void pdgesv_(const int* n, const int* nrhs, double* a, const int* ia, const int* ja, const int* desca,
             int* ipiv, double* b, const int* ib, const int* jb, const int* descb, int* info);

static double entry(int i, int j) {
  unsigned h = (unsigned)i * 2654435761u ^ (unsigned)j * 40503u;
  h ^= h >> 13;
  h *= 0x5bd1e995u;
  h ^= h >> 15;
  return (double)(h % 2001u) / 1000.0 - 1.0;
}

int unmodified_solve(int n, int nb) {
  int me, np, ctxt, zero = 0, one = 1, neg = -1, info = 0;
  blacs_pinfo_(&me, &np);
  int p = 1;
  for (int d = 1; d * d <= np; ++d)
    if (np % d == 0) p = d;
  int q = np / p;
  blacs_get_(&neg, &zero, &ctxt);
  blacs_gridinit_(&ctxt, "R", &p, &q);
  int nprow, npcol, myrow, mycol;
  blacs_gridinfo_(&ctxt, &nprow, &npcol, &myrow, &mycol);
  const int mloc = numroc_(&n, &nb, &myrow, &zero, &nprow);
  const int nloc = numroc_(&n, &nb, &mycol, &zero, &npcol);
  const int bloc = numroc_(&one, &nb, &mycol, &zero, &npcol);
  const int lld = mloc > 1 ? mloc : 1;
  int desca[9], descb[9];
  descinit_(desca, &n, &n, &nb, &nb, &zero, &zero, &ctxt, &lld, &info);
  descinit_(descb, &n, &one, &nb, &nb, &zero, &zero, &ctxt, &lld, &info);
  double* a = malloc(sizeof(double) * (size_t)lld * (size_t)(nloc > 0 ? nloc : 1));
  double* b = malloc(sizeof(double) * (size_t)lld);
  int* ipiv = malloc(sizeof(int) * (size_t)(mloc + nb));
  for (int il = 0; il < mloc; ++il) {
    const int l1 = il + 1;
    const int ig = indxl2g_(&l1, &nb, &myrow, &zero, &nprow) - 1;
    double bi = 0.0; /* b = A x_true, row ig, computed in full on every owner */
    for (int j = 0; j < n; ++j) bi += (entry(ig, j) + (ig == j ? n : 0.0)) * (1.0 + (double)j / n);
    if (bloc > 0) b[il] = bi;
    for (int jl = 0; jl < nloc; ++jl) {
      const int k1 = jl + 1;
      const int jg = indxl2g_(&k1, &nb, &mycol, &zero, &npcol) - 1;
      a[il + (size_t)jl * lld] = entry(ig, jg) + (ig == jg ? n : 0.0);
    }
  }
  pdgesv_(&n, &one, a, &one, &one, desca, ipiv, b, &one, &one, descb, &info);
  double sums[2] = {0.0, 0.0}; /* sum of x, max error */
  if (bloc > 0) {
    for (int il = 0; il < mloc; ++il) {
      const int l1 = il + 1;
      const int ig = indxl2g_(&l1, &nb, &myrow, &zero, &nprow) - 1;
      sums[0] += b[il];
      const double e = fabs(b[il] - (1.0 + (double)ig / n));
      if (e > sums[1]) sums[1] = e;
    }
  }
  int m1 = 1, ld1 = 1;
  dgsum2d_(&ctxt, "A", " ", &m1, &m1, &sums[0], &ld1, &neg, &neg);
  dgamx2d_(&ctxt, "A", " ", &m1, &m1, &sums[1], &ld1, NULL, NULL, &neg, &neg, &neg);
  if (me == 0)
    printf("RESULT np=%d grid=%dx%d n=%d info=%d xsum=%.15e maxerr=%.3e\n", np, nprow, npcol, n,
           info, sums[0], sums[1]);
  fflush(stdout);
  free(a);
  free(b);
  free(ipiv);
  blacs_gridexit_(&ctxt);
  return info;
}
