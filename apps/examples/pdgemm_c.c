/* SPDX-License-Identifier: BSD-3-Clause */
/* A resizable PDGEMM in plain C against the session's C API (malleable/resize/resize.h):
 * B <- s * (A * B) repeated, on a grid that a schedule grows and shrinks, checked
 * against serial OpenBLAS DGEMM. Usage: pdgemm_c [N] [ITERS] [SCHEDULE]
 * [background|background-complete|background-nocomplete] (starts on 2x2; "background": A is
 * constant, resizes begin in the background, and one still under way after the loop is
 * cancelled by resize_cancel: no iteration would use its grid; "background-complete": the
 * same, but resize_complete completes it after the loop (for a program that goes on
 * computing on the new grid); "background-nocomplete": under MPI_THREAD_MULTIPLE, and the
 * program calls neither, so resize_destroy cancels it: its newcomers leave, the result is
 * the old grid's). Another mode is refused (status 2). */
#include <cblas.h>
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "malleable/resize/resize.h"
#include "malleable/redist/scalapack_api.h"

static double entry(int seed, int i, int j) { return sin(0.37 * i + 1.31 * j + seed) * cos(0.05 * (i - j)); }

static void die(const char* what) {
  fprintf(stderr, "pdgemm_c: %s failed: %s\n", what, resize_last_error());
  MPI_Abort(MPI_COMM_WORLD, 2);
}

int main(int argc, char** argv) {
  const int nocomplete = argc > 4 && strcmp(argv[4], "background-nocomplete") == 0;
  const int complete = argc > 4 && strcmp(argv[4], "background-complete") == 0;
  if (nocomplete) {
    int provided = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  } else {
    MPI_Init(&argc, &argv);
  }
  if (argc > 4 && strcmp(argv[4], "background") && !complete && !nocomplete) {
    /* An unknown mode is refused, not run as the blocking default. */
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
      fprintf(stderr, "pdgemm_c: unknown mode '%s': the modes are background, background-complete and "
                      "background-nocomplete\n", argv[4]);
    MPI_Finalize();
    return 2;
  }
  const int n = argc > 1 ? atoi(argv[1]) : 300, iters = argc > 2 ? atoi(argv[2]) : 6, nb = 32;
  const char* schedule = argc > 3 ? argv[3] : "2:expand:3x3:local2,4:shrink:2x2";
  const double scale = 1.0 / sqrt((double)n);
  resize_session* s = NULL;
  if (resize_create(argc, argv, "pdgemm_c", "scripted", schedule, &s)) die("create");
  int desca[9], descb[9], it = 0, izero = 0, ione = 1;
  double *a = NULL, *b = NULL;
  if (resize_register(s, "A", n, n, nb, nb, RESIZE_DIST_BLOCK_CYCLIC, desca, &a) ||
      resize_register(s, "B", n, n, nb, nb, RESIZE_DIST_BLOCK_CYCLIC, descb, &b))
    die("register");
  /* A never changes: with "background" a resize moves it while the old grid computes. */
  if (argc > 4 && (strcmp(argv[4], "background") == 0 || complete || nocomplete))
    if (resize_mark_constant(s, "A") || resize_set_background(s, RESIZE_BACKGROUND_WAIT, 1)) die("background");
  int ctxt, nprow, npcol, myrow, mycol;
  if (resize_is_newcomer(s)) {
    if (resize_join(s, &it)) die("join");
  } else {
    if (resize_start(s, 2, 2)) die("start");
    resize_grid(s, &ctxt, &nprow, &npcol, &myrow, &mycol);
    if (ctxt >= 0) {
      const int ml = numroc_(&n, &nb, &myrow, &izero, &nprow), nl = numroc_(&n, &nb, &mycol, &izero, &npcol);
      for (int jl = 1; jl <= nl; ++jl)
        for (int il = 1; il <= ml; ++il) {
          const int ig = indxl2g_(&il, &nb, &myrow, &izero, &nprow) - 1;
          const int jg = indxl2g_(&jl, &nb, &mycol, &izero, &npcol) - 1;
          a[(il - 1) + (size_t)(jl - 1) * desca[8]] = entry(1, ig, jg);
          b[(il - 1) + (size_t)(jl - 1) * descb[8]] = entry(2, ig, jg);
        }
    }
  }
  while (it < iters) {
    resize_begin_iteration(s);
    resize_grid(s, &ctxt, &nprow, &npcol, &myrow, &mycol);
    if (ctxt >= 0) {
      const int nl = numroc_(&n, &nb, &mycol, &izero, &npcol);
      const size_t len = (size_t)descb[8] * (size_t)(nl > 0 ? nl : 1);
      double* c = calloc(len, sizeof *c);
      const double one = 1.0, zero = 0.0;
      const double t0 = MPI_Wtime();
      pdgemm_("N", "N", &n, &n, &n, &one, a, &ione, &ione, desca, b, &ione, &ione, descb, &zero, c, &ione,
              &ione, descb);
      /* This process's share of the flops and the time it took (PDGEMM's own messages
       * included): the measured speed an adaptive policy would weigh processes by. */
      const int ml = numroc_(&n, &nb, &myrow, &izero, &nprow);
      if (resize_report_compute(s, 2.0 * n * (double)ml * (double)nl, MPI_Wtime() - t0) != RESIZE_OK)
        fprintf(stderr, "resize_report_compute: %s\n", resize_last_error());
      for (size_t k = 0; k < len; ++k) b[k] = scale * c[k];
      free(c);
    }
    resize_end_iteration(s);
    ++it;
    int action = 0;
    if (it < iters && resize_remap_point(s, &action) == RESIZE_ERR_RESIZE)
      if (resize_world_rank(s) == 0) printf("pdgemm_c: resize failed (%s); continuing\n", resize_last_error());
  }
  /* A resize still under way in the background after the loop: cancelled (its newcomers
   * exit), or with "background-complete" completed. */
  if (complete && resize_complete(s, NULL)) die("complete");
  if (!complete && !nocomplete) {
    int cancelled = RESIZE_NONE;
    if (resize_cancel(s, &cancelled)) die("cancel");
    if (cancelled != RESIZE_NONE && resize_world_rank(s) == 0)
      printf("pdgemm_c: the %s under way at the end was cancelled\n", cancelled == RESIZE_EXPAND ? "expansion" : "shrink");
  }
  /* Serial reference on world rank 0. */
  MPI_Comm world = resize_world(s);
  double* ref = malloc((size_t)n * n * sizeof *ref);
  if (resize_world_rank(s) == 0) {
    double* ga = malloc((size_t)n * n * sizeof *ga);
    double* t = malloc((size_t)n * n * sizeof *t);
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i) {
        ga[i + (size_t)j * n] = entry(1, i, j);
        ref[i + (size_t)j * n] = entry(2, i, j);
      }
    for (int k = 0; k < iters; ++k) {
      cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, n, n, n, scale, ga, n, ref, n, 0.0, t, n);
      memcpy(ref, t, (size_t)n * n * sizeof *ref);
    }
    free(ga);
    free(t);
  }
  MPI_Bcast(ref, n * n, MPI_DOUBLE, 0, world);
  double err = 0.0, gerr = 0.0, refmax = 0.0;
  for (size_t k = 0; k < (size_t)n * n; ++k) refmax = fmax(refmax, fabs(ref[k]));
  resize_grid(s, &ctxt, &nprow, &npcol, &myrow, &mycol);
  if (ctxt >= 0) {
    const int ml = numroc_(&n, &nb, &myrow, &izero, &nprow), nl = numroc_(&n, &nb, &mycol, &izero, &npcol);
    for (int jl = 1; jl <= nl; ++jl)
      for (int il = 1; il <= ml; ++il) {
        const int ig = indxl2g_(&il, &nb, &myrow, &izero, &nprow) - 1;
        const int jg = indxl2g_(&jl, &nb, &mycol, &izero, &npcol) - 1;
        err = fmax(err, fabs(b[(il - 1) + (size_t)(jl - 1) * descb[8]] - ref[ig + (size_t)jg * n]));
      }
  }
  MPI_Allreduce(&err, &gerr, 1, MPI_DOUBLE, MPI_MAX, world);
  const double tol = 1e-12 * n * iters * refmax; /* relative: the scale of B drifts */
  char msg[160], problem[64];
  snprintf(msg, sizeof msg, "B = (sA)^%d B0: max |B - B_openblas| = %.3e (tol %.1e, max|B| %.2e): %s", iters, gerr, tol, refmax,
           gerr <= tol ? "OK" : "FAILED");
  snprintf(problem, sizeof problem, "N=%d NB=%d", n, nb);
  resize_print_summary(s, problem, msg, gerr <= tol);
  free(ref);
  resize_destroy(s);
  MPI_Finalize();
  return gerr <= tol ? 0 : 1;
}
