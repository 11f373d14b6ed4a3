/* SPDX-License-Identifier: BSD-3-Clause */
/* A PBLAS program on an installed malleable, for tests/install/mpi_flavour_test.sh, built
 * by each flavour's documented lines (CMake package, malleable-config, pkg-config): MPI,
 * ScaLAPACK (PDGEMM on a 2 x P/2 grid), the library (redist_Cpdgemr2d onto 1 x P) and
 * LAPACKE (the norm of the error) must all link from those lines alone. Rank 0 prints one
 * line with the world's size and the MPI's name: launched by the wrong MPI's mpiexec, P
 * separate one-process worlds would each print "world of 1". */
#include <lapacke.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "malleable/redist/redist.h"

void Cblacs_pinfo(int* me, int* np);
void Cblacs_get(int ctxt, int what, int* val);
void Cblacs_gridinit(int* ctxt, const char* order, int nprow, int npcol);
void Cblacs_gridinfo(int ctxt, int* nprow, int* npcol, int* myrow, int* mycol);
void Cblacs_gridexit(int ctxt);
int numroc_(const int* n, const int* nb, const int* iproc, const int* isrc, const int* np);
void descinit_(int* desc, const int* m, const int* n, const int* mb, const int* nb, const int* irsrc,
               const int* icsrc, const int* ctxt, const int* lld, int* info);
void pdgemm_(const char* ta, const char* tb, const int* m, const int* n, const int* k, const double* alpha,
             const double* a, const int* ia, const int* ja, const int* desca, const double* b,
             const int* ib, const int* jb, const int* descb, const double* beta, double* c,
             const int* ic, const int* jc, const int* descc);

static double av(int i, int j) { return (double)((i + 2 * j) % 7) - 3.0; }
static double bv(int i, int j) { return (double)((3 * i + j) % 5) * 0.5; }
static double ref(int n, int i, int j) {
  double s = 0;
  for (int k = 0; k < n; ++k) s += av(i, k) * bv(k, j);
  return s;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int world = 0, rank = 0, me = 0, np = 0, info = 0, zero = 0, one = 1, ctxt = 0, ctxt2 = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &world);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  Cblacs_pinfo(&me, &np);
  const int n = 48, nb = 8, nb2 = 16;
  int nprow, npcol, myrow, mycol, pr2, pc2, myrow2, mycol2;
  Cblacs_get(0, 0, &ctxt);
  Cblacs_gridinit(&ctxt, "R", np >= 2 ? 2 : 1, np >= 2 ? np / 2 : 1);
  Cblacs_gridinfo(ctxt, &nprow, &npcol, &myrow, &mycol);
  Cblacs_get(0, 0, &ctxt2);
  Cblacs_gridinit(&ctxt2, "R", 1, np);
  Cblacs_gridinfo(ctxt2, &pr2, &pc2, &myrow2, &mycol2);
  int desc[9] = {0}, desc2[9] = {0};
  double *a = NULL, *b = NULL, *c = NULL;
  int mloc = 0, nloc = 0, lld = 1;
  if (myrow >= 0) {
    mloc = numroc_(&n, &nb, &myrow, &zero, &nprow);
    nloc = numroc_(&n, &nb, &mycol, &zero, &npcol);
    lld = mloc > 1 ? mloc : 1;
    descinit_(desc, &n, &n, &nb, &nb, &zero, &zero, &ctxt, &lld, &info);
  } else {
    desc[1] = -1; /* not in the first grid (odd process count) */
  }
  a = calloc((size_t)lld * nloc + 1, sizeof(double));
  b = calloc((size_t)lld * nloc + 1, sizeof(double));
  c = calloc((size_t)lld * nloc + 1, sizeof(double));
  for (int jl = 0; jl < nloc; ++jl)
    for (int il = 0; il < mloc; ++il) {
      const int i = (il / nb * nprow + myrow) * nb + il % nb, j = (jl / nb * npcol + mycol) * nb + jl % nb;
      a[il + jl * lld] = av(i, j);
      b[il + jl * lld] = bv(i, j);
    }
  const double alpha = 1.0, beta = 0.0;
  if (myrow >= 0)
    pdgemm_("N", "N", &n, &n, &n, &alpha, a, &one, &one, desc, b, &one, &one, desc, &beta, c, &one, &one, desc);
  const int nloc2 = numroc_(&n, &nb2, &mycol2, &zero, &pc2);
  descinit_(desc2, &n, &n, &nb2, &nb2, &zero, &zero, &ctxt2, &n, &info);
  double* c2 = calloc((size_t)n * nloc2 + 1, sizeof(double));
  const int rc = redist_Cpdgemr2d(n, n, c, 1, 1, desc, c2, 1, 1, desc2, ctxt2, REDIST_CATERPILLAR);
  if (rc != REDIST_SUCCESS) {
    fprintf(stderr, "rank %d: redist_Cpdgemr2d: %s\n", rank, redist_strerror(rc));
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  for (int jl = 0; jl < nloc2; ++jl)
    for (int i = 0; i < n; ++i) c2[i + jl * n] -= ref(n, i, (jl / nb2 * pc2 + mycol2) * nb2 + jl % nb2);
  double err = nloc2 > 0 ? LAPACKE_dlange(LAPACK_COL_MAJOR, 'M', n, nloc2, c2, n) : 0.0;
  double max_err = 0;
  MPI_Reduce(&err, &max_err, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  char version[MPI_MAX_LIBRARY_VERSION_STRING];
  int len = 0;
  MPI_Get_library_version(version, &len);
  for (int i = 0; i < len; ++i)
    if (version[i] == '\n' || version[i] == ',') version[i] = ' ';
  if (rank == 0)
    printf("flavour consumer: world of %d processes, PDGEMM + redist_Cpdgemr2d max error %g, MPI: %.24s\n",
           world, max_err, version);
  free(a);
  free(b);
  free(c);
  free(c2);
  if (myrow >= 0) Cblacs_gridexit(ctxt);
  Cblacs_gridexit(ctxt2);
  MPI_Finalize();
  return max_err == 0.0 ? 0 : 1;
}
