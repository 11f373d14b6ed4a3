/* SPDX-License-Identifier: BSD-3-Clause */
/* Checkpoint cadence and resize by restart from C (docs/guide/checkpoint.md, "From C and
 * Fortran"): an N x N block-cyclic matrix A starts as A(i,j) = i + N j and iteration k
 * (1-based) adds k to every element, so after ITERS iterations A(i,j) = i + N j +
 * ITERS (ITERS + 1) / 2 whatever grids, checkpoints and restarts happened on the way; an
 * iteration lost or repeated by a restart changes every element. The session checkpoints
 * every --every iterations into --checkpoint DIR and carries out the scripted resizes by
 * restart (--mechanism restart) or in place (spawn); malleable-run relaunches it
 * with "-g PxQ --restart FILE" appended.
 *   malleable-run -n 4 -- by_restart_c N ITERS --checkpoint DIR --every 2 \
 *                 --schedule 3:expand:2x3 --mechanism restart
 * --final DIR2: after the check, one more checkpoint by resize_checkpoint_in into DIR2.
 * Checkpoint levels: --local E / --partner E (every E iterations) into
 * --local-dir DIR3 (resize_set_level_checkpointing); --restart-levels: start from the
 * levels in DIR3 (resize_restart_from_levels) on -g PxQ.
 * Exit 0 with "result check: ... OK" on world rank 0; 1 on a wrong result; 4 when leaving
 * for a resize by restart; 5 when a checkpoint could not be written. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "malleable/resize/resize.h"

int numroc_(const int* n, const int* nb, const int* iproc, const int* isrc, const int* np);

static int global_index(int l, int nb, int p, int np) { return (l / nb * np + p) * nb + l % nb; }

/* Applies f to every local element of A: f(value, i, j) with global 0-based indices. */
typedef void (*visit_fn)(double* a, int i, int j, long long* bad, double extra);
static void visit(resize_session* s, const int* desc, double* a, visit_fn f, double extra, long long* bad) {
  int ctxt, nprow, npcol, myrow, mycol, zero = 0;
  resize_grid(s, &ctxt, &nprow, &npcol, &myrow, &mycol);
  if (ctxt < 0) return;
  const int ml = numroc_(&desc[2], &desc[4], &myrow, &zero, &nprow);
  const int nl = numroc_(&desc[3], &desc[5], &mycol, &zero, &npcol);
  for (int lj = 0; lj < nl; ++lj)
    for (int li = 0; li < ml; ++li)
      f(&a[li + (long long)lj * desc[8]], global_index(li, desc[4], myrow, nprow),
        global_index(lj, desc[5], mycol, npcol), bad, extra);
}

static int n_global;
static void fill(double* a, int i, int j, long long* bad, double extra) {
  (void)bad, (void)extra;
  *a = i + (double)n_global * j;
}
static void add(double* a, int i, int j, long long* bad, double k) {
  (void)i, (void)j, (void)bad;
  *a += k;
}
static void check(double* a, int i, int j, long long* bad, double sum) {
  if (*a != i + (double)n_global * j + sum) ++*bad;
}

static const char* arg_after(int argc, char** argv, const char* name, const char* fallback) {
  for (int k = 1; k + 1 < argc; ++k)
    if (strcmp(argv[k], name) == 0) return argv[k + 1];
  return fallback;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  if (argc < 3) {
    fprintf(stderr, "usage: by_restart_c N ITERS [--checkpoint DIR] [--every E] [--keep K] [--schedule S] "
                    "[--mechanism spawn|restart] [-g PxQ] [--restart FILE] [--final DIR2]\n");
    MPI_Finalize();
    return 2;
  }
  n_global = atoi(argv[1]);
  const int iters = atoi(argv[2]);
  const char* dir = arg_after(argc, argv, "--checkpoint", NULL);
  const char* every = arg_after(argc, argv, "--every", "");
  const int keep = atoi(arg_after(argc, argv, "--keep", "0"));
  const char* schedule = arg_after(argc, argv, "--schedule", "");
  const int mechanism = strcmp(arg_after(argc, argv, "--mechanism", "spawn"), "restart") == 0
                            ? RESIZE_MECHANISM_RESTART : RESIZE_MECHANISM_SPAWN;
  const char* restart = arg_after(argc, argv, "--restart", NULL);
  int nprow = 2, npcol = 2;
  sscanf(arg_after(argc, argv, "-g", "2x2"), "%dx%d", &nprow, &npcol);

  resize_session* s = NULL;
  if (resize_create(argc, argv, "by_restart_c", *schedule ? "scripted" : "fixed", schedule, &s) != RESIZE_OK) {
    fprintf(stderr, "by_restart_c: %s\n", resize_last_error());
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  int desc[9];
  double* a = NULL;
  int it = 0, rc = RESIZE_OK;
  resize_register(s, "A", n_global, n_global, 4, 4, RESIZE_DIST_BLOCK_CYCLIC, desc, &a);
  if (resize_is_newcomer(s)) {
    rc = resize_join(s, &it);
  } else if (arg_after(argc, argv, "--restart-levels", NULL) || (argc > 1 && strcmp(argv[argc - 1], "--restart-levels") == 0)) {
    rc = resize_restart_from_levels(s, arg_after(argc, argv, "--local-dir", ""), nprow, npcol, dir, &it);
  } else if (restart) {
    rc = resize_restart(s, restart, nprow, npcol, &it);
  } else {
    rc = resize_start(s, nprow, npcol);
    visit(s, desc, a, fill, 0, NULL);
  }
  if (rc != RESIZE_OK) {
    fprintf(stderr, "by_restart_c: start: %s\n", resize_last_error());
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  if (dir && resize_set_checkpointing(s, dir, every, 0.0, keep) != RESIZE_OK) {
    fprintf(stderr, "by_restart_c: %s\n", resize_last_error());
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const char* local_every = arg_after(argc, argv, "--local", "");
  const char* partner_every = arg_after(argc, argv, "--partner", "");
  const int levels = *local_every || *partner_every;
  if (levels && resize_set_level_checkpointing(s, arg_after(argc, argv, "--local-dir", ""), local_every, partner_every,
                                               0.0, 0.0, 2) != RESIZE_OK) {
    fprintf(stderr, "by_restart_c: %s\n", resize_last_error());
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  while (it < iters) {
    resize_begin_iteration(s);
    visit(s, desc, a, add, (double)(it + 1), NULL);
    resize_end_iteration(s);
    ++it;
    if (dir && resize_checkpoint_if_due(s, it == iters, NULL) != RESIZE_OK) {
      fprintf(stderr, "by_restart_c: checkpoint failed: %s\n", resize_last_error());
      resize_destroy(s);
      MPI_Finalize();
      return 5;
    }
    int written = 0;
    if (levels && resize_level_checkpoint_if_due(s, it == iters, &written) != RESIZE_OK) {
      fprintf(stderr, "by_restart_c: level checkpoint failed: %s\n", resize_last_error());
      resize_destroy(s);
      MPI_Finalize();
      return 5;
    }
    if (it == iters) break;
    int step = RESIZE_STEP_CONTINUE, action = RESIZE_NONE;
    rc = resize_remap_or_restart(s, mechanism, &step, &action);
    if (rc == RESIZE_ERR_CHECKPOINT) {
      fprintf(stderr, "by_restart_c: checkpoint failed: %s\n", resize_last_error());
      resize_destroy(s);
      MPI_Finalize();
      return 5;
    }
    if (rc != RESIZE_OK && resize_world_rank(s) == 0) fprintf(stderr, "by_restart_c: resize failed: %s\n", resize_last_error());
    if (step == RESIZE_STEP_EXIT_FOR_RESTART) {
      resize_destroy(s);
      MPI_Finalize();
      return RESIZE_EXIT_RESIZE_BY_RESTART;
    }
  }
  long long bad = 0, all = 0;
  visit(s, desc, a, check, (double)iters * (iters + 1) / 2, &bad);
  MPI_Allreduce(&bad, &all, 1, MPI_LONG_LONG, MPI_SUM, resize_world(s));
  /* resize_checkpoint_in makes its directory (nested, not there yet) and names the file. */
  const char* final_dir = arg_after(argc, argv, "--final", NULL);
  char file[512] = "";
  if (final_dir && resize_checkpoint_in(s, final_dir, 1, file, (int)sizeof file) != RESIZE_OK) {
    fprintf(stderr, "by_restart_c: checkpoint_in %s: %s\n", final_dir, resize_last_error());
  }
  if (final_dir && resize_world_rank(s) == 0) printf("final checkpoint %s\n", file);
  char text[160];
  snprintf(text, sizeof text, "A = A0 + %d*%d/2 after %d iterations (%lld elements wrong)%s: %s", iters, iters + 1,
           iters, all, *file || !final_dir ? "" : ", checkpoint_in failed", all || (final_dir && !*file) ? "FAILED" : "OK");
  const int ok = all == 0 && (!final_dir || *file);
  resize_print_summary(s, NULL, text, ok);
  resize_destroy(s);
  MPI_Finalize();
  return ok ? 0 : 1;
}
