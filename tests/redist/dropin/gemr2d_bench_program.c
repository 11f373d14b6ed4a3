/* SPDX-License-Identifier: BSD-3-Clause */
/* A PDGEMR2D-heavy ScaLAPACK program that knows nothing of malleable: an N x N matrix
 * moved back and forth between a 2x2 and a 1x4 grid (block size NB) REPS times. Prints
 * the fastest round trip (slowest process) and a checksum of the result, so the drop-in
 * benchmark can run the same binary stock and with libmalleable_redist_gemr2d preloaded.
 *
 * Usage: mpiexec -n 4 gemr2d_bench_program [N [NB [REPS]]] */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void Cblacs_get(int icontxt, int what, int* val);
void Cblacs_gridinit(int* icontxt, char* order, int nprow, int npcol);
void Cblacs_gridinfo(int icontxt, int* nprow, int* npcol, int* myprow, int* mypcol);
void Cblacs_gridexit(int icontxt);
void Cblacs_exit(int notdone);
int numroc_(int* n, int* nb, int* iproc, int* isrcproc, int* nprocs);
void Cpdgemr2d(int m, int n, double* a, int ia, int ja, int* desca, double* b, int ib, int jb, int* descb,
               int gcontext);

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int me = 0, np = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  int n = argc > 1 ? atoi(argv[1]) : 4000, nb = argc > 2 ? atoi(argv[2]) : 64, reps = argc > 3 ? atoi(argv[3]) : 5;
  if (np != 4 || n < 1 || nb < 1 || reps < 1) {
    if (me == 0) fprintf(stderr, "usage: mpiexec -n 4 %s [N [NB [REPS]]]\n", argv[0]);
    MPI_Finalize();
    return 2;
  }
  int sys = 0, g22 = 0, g14 = 0, zero = 0;
  Cblacs_get(-1, 0, &sys);
  g22 = sys;
  Cblacs_gridinit(&g22, "Row", 2, 2);
  g14 = sys;
  Cblacs_gridinit(&g14, "Row", 1, 4);
  int pr, pc, r, c, pr2, pc2, r2, c2;
  Cblacs_gridinfo(g22, &pr, &pc, &r, &c);
  Cblacs_gridinfo(g14, &pr2, &pc2, &r2, &c2);
  const int ar = numroc_(&n, &nb, &r, &zero, &pr), ac = numroc_(&n, &nb, &c, &zero, &pc);
  const int br = numroc_(&n, &nb, &r2, &zero, &pr2), bc = numroc_(&n, &nb, &c2, &zero, &pc2);
  int desca[9] = {1, g22, n, n, nb, nb, 0, 0, ar > 1 ? ar : 1};
  int descb[9] = {1, g14, n, n, nb, nb, 0, 0, br > 1 ? br : 1};
  double* a = malloc(sizeof(double) * (size_t)desca[8] * (size_t)(ac > 1 ? ac : 1));
  double* b = malloc(sizeof(double) * (size_t)descb[8] * (size_t)(bc > 1 ? bc : 1));
  for (size_t k = 0; k < (size_t)ar * (size_t)ac; ++k) a[k] = (double)(k % 1000003) / 3.0 + me;
  memset(b, 0, sizeof(double) * (size_t)br * (size_t)bc);

  double best = 1e300;
  for (int rep = 0; rep < reps; ++rep) {
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();
    Cpdgemr2d(n, n, a, 1, 1, desca, b, 1, 1, descb, g22);
    Cpdgemr2d(n, n, b, 1, 1, descb, a, 1, 1, desca, g22);
    double t = MPI_Wtime() - t0, tmax = 0;
    MPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (tmax < best) best = tmax;
  }
  /* Bitwise checksum (FNV-1a over the local words), combined over the processes. */
  uint64_t h = 1469598103934665603ull, all = 0;
  for (size_t k = 0; k < (size_t)ar * (size_t)ac; ++k) {
    uint64_t w;
    memcpy(&w, &a[k], sizeof w);
    h = (h ^ w) * 1099511628211ull;
  }
  for (size_t k = 0; k < (size_t)br * (size_t)bc; ++k) {
    uint64_t w;
    memcpy(&w, &b[k], sizeof w);
    h = (h ^ w) * 1099511628211ull;
  }
  MPI_Allreduce(&h, &all, 1, MPI_UINT64_T, MPI_BXOR, MPI_COMM_WORLD);
  if (me == 0)
    printf("gemr2d_bench: N=%d NB=%d 2x2 <-> 1x4 reps=%d round_trip_s=%.6f checksum=%016llx\n", n, nb, reps, best,
           (unsigned long long)all);
  free(a);
  free(b);
  Cblacs_gridexit(g22);
  Cblacs_gridexit(g14);
  Cblacs_exit(1);
  MPI_Finalize();
  return 0;
}
