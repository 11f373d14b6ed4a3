// SPDX-License-Identifier: BSD-3-Clause
// One core's DGEMM and DGETRF rates (Gflop/s), for scale_payoff.py's iteration-time model
// (docs/measurements/scale.md, "Payoff at 1,024 -> 4,096"). OpenBLAS on one thread (the caller sets
// OPENBLAS_NUM_THREADS=1); best of `reps` runs at order n, timed in the process's CPU time
// (on a shared machine the wall clock counts other processes' turns on the core).
//   cc -O2 core_rate.c -o core_rate -lopenblas -llapacke && ./core_rate [n] [reps]
#include <cblas.h>
#include <lapacke.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);  // CPU time: a loaded machine shares the core
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char** argv) {
  const int n = argc > 1 ? atoi(argv[1]) : 1500;
  const int reps = argc > 2 ? atoi(argv[2]) : 3;
  const size_t nn = (size_t)n * (size_t)n;
  double* a = malloc(nn * sizeof(double));
  double* b = malloc(nn * sizeof(double));
  double* c = malloc(nn * sizeof(double));
  double* lu = malloc(nn * sizeof(double));
  lapack_int* ipiv = malloc((size_t)n * sizeof(lapack_int));
  if (!a || !b || !c || !lu || !ipiv) return 1;
  unsigned s = 12345;
  for (size_t k = 0; k < nn; ++k) {
    s = s * 1103515245u + 12345u;
    a[k] = (double)(s >> 8) / 16777216.0 - 0.5;
    b[k] = a[k] * 0.5 + 0.25;
  }
  for (int i = 0; i < n; ++i) a[(size_t)i * n + i] += n;  // well conditioned for the LU
  double best_mm = 1e30, best_lu = 1e30;
  for (int r = 0; r < reps; ++r) {
    double t0 = now();
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0, a, n, b, n, 0.0, c, n);
    double t1 = now();
    if (t1 - t0 < best_mm) best_mm = t1 - t0;
    memcpy(lu, a, nn * sizeof(double));
    t0 = now();
    if (LAPACKE_dgetrf(LAPACK_COL_MAJOR, n, n, lu, n, ipiv) != 0) return 2;
    t1 = now();
    if (t1 - t0 < best_lu) best_lu = t1 - t0;
  }
  const double fn = (double)n;
  printf("n=%d dgemm_gflops=%.2f dgetrf_gflops=%.2f\n", n, 2.0 * fn * fn * fn / best_mm * 1e-9,
         2.0 / 3.0 * fn * fn * fn / best_lu * 1e-9);
  free(a); free(b); free(c); free(lu); free(ipiv);
  return 0;
}
