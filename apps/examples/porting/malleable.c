/* SPDX-License-Identifier: BSD-3-Clause */
/* The malleable version of plain.c (docs/guide/porting.md), through the session's C API: the
 * same x <- A x + b with PDGEMV on a grid that grows and shrinks at remap points. Lines
 * marked [port] are the changes.
 *   mpiexec -n 4 porting_malleable_c [schedule|slurm [run.json]]   (default 3:expand:3x3,6:shrink:2x2)
 * Under Slurm by the recipe of docs/guide/slurm.md (RESIZE_POLICY=slurm): any arguments. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "malleable/resize/resize.h" /* [port] */

int numroc_(const int* n, const int* nb, const int* iproc, const int* isrc, const int* np);
void pdgemv_(const char* trans, const int* m, const int* n, const double* alpha, const double* a, const int* ia,
             const int* ja, const int* desca, const double* x, const int* ix, const int* jx, const int* descx,
             const int* incx, const double* beta, double* y, const int* iy, const int* jy, const int* descy,
             const int* incy);

enum { N = 120, NB = 16, ITERS = 8 };
static double a_entry(int i, int j) { return sin(0.3 * i + 0.7 * j) / N; }
static double b_entry(int i) { return cos(0.1 * i); }
static int global_index(int l, int nb, int p, int np) { return (l / nb * np + p) * nb + l % nb; }

static void check(int rc, const char* what) { /* [port] status codes + resize_last_error() */
  if (rc != RESIZE_OK) {
    fprintf(stderr, "porting_malleable_c: %s: %s\n", what, resize_last_error());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  resize_session* s = NULL; /* [port] */
  /* [port] the policy: a schedule, or "slurm" under Slurm (docs/guide/slurm.md), told the
     run's iterations for its payoff test; RESIZE_POLICY=slurm in the environment (the
     recipe) replaces either (the iterations then from RESIZE_SLURM_ITERATIONS) */
  const char* plan = argc > 1 ? argv[1] : "3:expand:3x3,6:shrink:2x2";
  const int slurm = strcmp(plan, "slurm") == 0;
  check(resize_create(argc, argv, "porting_malleable_c", slurm ? "slurm" : "scripted", slurm ? "iterations=8" : plan, &s),
        "create");
  int zero = 0, one = 1, n = N, nb = NB, it = 0, ctxt, nprow, npcol, myrow, mycol;
  int desca[9], descx[9];
  double *a = NULL, *x = NULL; /* [port] owned by the session (malloc'ed, reallocated at resizes) */
  check(resize_register(s, "A", n, n, nb, nb, RESIZE_DIST_BLOCK_CYCLIC, desca, &a), "register A");
  check(resize_register(s, "x", n, 1, nb, 1, RESIZE_DIST_BLOCK_CYCLIC, descx, &x), "register x");
  if (resize_is_newcomer(s)) { /* [port] a newcomer joins, resuming at iteration it */
    check(resize_join(s, &it), "join");
  } else {
    check(resize_start(s, 0, 0), "start"); /* [port] 0x0: every process started, near square */
    resize_grid(s, &ctxt, &nprow, &npcol, &myrow, &mycol);
    if (ctxt >= 0) { /* only the original processes create the data */
      const int ml = numroc_(&n, &nb, &myrow, &zero, &nprow), nl = numroc_(&n, &nb, &mycol, &zero, &npcol);
      for (int jl = 0; jl < nl; ++jl)
        for (int il = 0; il < ml; ++il)
          a[il + (size_t)jl * desca[8]] = a_entry(global_index(il, nb, myrow, nprow), global_index(jl, nb, mycol, npcol));
      if (mycol == 0)
        for (int il = 0; il < ml; ++il) x[il] = b_entry(global_index(il, nb, myrow, nprow));
    }
  }
  const double d_one = 1.0, d_zero = 0.0;
  while (it < ITERS) {
    resize_begin_iteration(s);                              /* [port] */
    resize_grid(s, &ctxt, &nprow, &npcol, &myrow, &mycol);  /* [port] the grid of now */
    if (ctxt >= 0) {
      const int ml = numroc_(&n, &nb, &myrow, &zero, &nprow);
      double* y = calloc((size_t)descx[8], sizeof *y);      /* [port] workspace sized for this grid */
      pdgemv_("N", &n, &n, &d_one, a, &one, &one, desca, x, &one, &one, descx, &one, &d_zero, y, &one, &one,
              descx, &one);
      if (mycol == 0)
        for (int il = 0; il < ml; ++il) x[il] = y[il] + b_entry(global_index(il, nb, myrow, nprow));
      free(y);
    }
    resize_end_iteration(s); /* [port] */
    ++it;
    if (it == ITERS) break; /* [port] no remap point after the last iteration: nothing would use it */
    int action = RESIZE_NONE;
    const int rc = resize_remap_point(s, &action); /* [port] a, x, desca, descx may change */
    if (rc == RESIZE_ERR_RESIZE && resize_world_rank(s) == 0)
      printf("porting_malleable_c: a resize failed (%s); continuing as before\n", resize_last_error());
    else
      check(rc, "remap point");
  }
  double ref[N], tmp[N], err = 0.0, max_err = 0.0;
  for (int i = 0; i < N; ++i) ref[i] = b_entry(i);
  for (int k = 0; k < ITERS; ++k) {
    for (int i = 0; i < N; ++i) {
      double sum = b_entry(i);
      for (int j = 0; j < N; ++j) sum += a_entry(i, j) * ref[j];
      tmp[i] = sum;
    }
    for (int i = 0; i < N; ++i) ref[i] = tmp[i];
  }
  resize_grid(s, &ctxt, &nprow, &npcol, &myrow, &mycol);
  if (ctxt >= 0 && mycol == 0) {
    const int ml = numroc_(&n, &nb, &myrow, &zero, &nprow);
    for (int il = 0; il < ml; ++il) err = fmax(err, fabs(x[il] - ref[global_index(il, nb, myrow, nprow)]));
  }
  MPI_Allreduce(&err, &max_err, 1, MPI_DOUBLE, MPI_MAX, resize_world(s)); /* [port] the session's world */
  char msg[64]; /* [port] the run's summary and JSON (malleable-plot), as the drivers print them */
  snprintf(msg, sizeof msg, "max error %.2e (tol 1e-12)", max_err);
  check(resize_print_summary(s, NULL, msg, max_err < 1e-12), "summary");
  if (argc > 2) check(resize_write_json(s, argv[2]), "write JSON");
  if (resize_world_rank(s) == 0)
    printf("porting_malleable_c: %d iterations, now on %dx%d, max error %.2e: %s\n", ITERS, nprow, npcol, max_err,
           max_err < 1e-12 ? "OK" : "FAILED");
  resize_destroy(s); /* [port] before MPI_Finalize (it frees a and x) */
  MPI_Finalize();
  return max_err < 1e-12 ? 0 : 1;
}
