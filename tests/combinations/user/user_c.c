/* SPDX-License-Identifier: BSD-3-Clause */
/* The running-sum user program of user_cxx.cpp in C, against the session's C API
 * (malleable/resize/resize.h): A of type s, d, c or z grows by k * W in iteration k (W
 * constant), every process keeps S += sum(A); S goes to newcomers through
 * resize_set_app_state. Every process's S must equal the closed form exactly.
 *   mpiexec -n 4 user_c [--type s|d|c|z] [--schedule S] [--mover redist|pdgemr2d]
 *                       [--background off|wait|continue] [--iters K] [-n N]
 *                       [--newcomer-mistake refill|forget]   (controls: the check must fail) */
#include <complex.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "malleable/redist/scalapack_api.h"
#include "malleable/resize/resize.h"

static double a0(int i, int j, int part) { return ((i + 2 * j + 3 * part) % 7) + 1; }
static double w0(int i, int j, int part) { return ((3 * i + j + part) % 5) + 1; }

static int rank0;
static int usage(const char* what, const char* value) {
  if (rank0 == 0) fprintf(stderr, "user_c: %s%s\n", what, value);
  return 2;
}

struct opts {
  char type;
  const char *schedule, *mover, *background, *mistake;
  int iters, n;
};

static int parse(int argc, char** argv, struct opts* o) {
  for (int k = 1; k < argc; k += 2) {
    if (k + 1 >= argc) return usage("an option without its value: ", argv[k]);
    const char *a = argv[k], *v = argv[k + 1];
    if (!strcmp(a, "--type")) {
      if (strlen(v) != 1 || !strchr("sdcz", v[0])) return usage("the element type is one of s, d, c, z; --type ", v);
      o->type = v[0];
    } else if (!strcmp(a, "--schedule")) o->schedule = v;
    else if (!strcmp(a, "--mover")) o->mover = v;
    else if (!strcmp(a, "--background")) o->background = v;
    else if (!strcmp(a, "--iters")) o->iters = atoi(v);
    else if (!strcmp(a, "-n")) o->n = atoi(v);
    else if (!strcmp(a, "--newcomer-mistake")) o->mistake = v;
    else return usage("unknown option ", a);
  }
  if (strcmp(o->background, "off") && strcmp(o->background, "wait") && strcmp(o->background, "continue"))
    return usage("--background is one of off, wait, continue, not ", o->background);
  if (strcmp(o->mover, "redist") && strcmp(o->mover, "pdgemr2d")) return usage("--mover is redist or pdgemr2d, not ", o->mover);
  if (o->iters < 1 || o->n < 1) return usage("--iters and -n must be at least 1", "");
  if (o->mistake[0] && strcmp(o->mistake, "refill") && strcmp(o->mistake, "forget"))
    return usage("--newcomer-mistake is refill or forget, not ", o->mistake);
  return -1;
}

static void die(const char* what) {
  fprintf(stderr, "user_c (rank %d): %s failed: %s\n", rank0, what, resize_last_error());
  MPI_Abort(MPI_COMM_WORLD, 2);
}

/* Element k of a buffer of type t, as (re, im); and setting it. */
static void get(char t, const void* buf, size_t k, double* re, double* im) {
  switch (t) {
    case 's': *re = ((const float*)buf)[k]; *im = 0; break;
    case 'd': *re = ((const double*)buf)[k]; *im = 0; break;
    case 'c': *re = crealf(((const float _Complex*)buf)[k]); *im = cimagf(((const float _Complex*)buf)[k]); break;
    default: *re = creal(((const double _Complex*)buf)[k]); *im = cimag(((const double _Complex*)buf)[k]); break;
  }
}
static void set(char t, void* buf, size_t k, double re, double im) {
  switch (t) {
    case 's': ((float*)buf)[k] = (float)re; break;
    case 'd': ((double*)buf)[k] = re; break;
    case 'c': ((float _Complex*)buf)[k] = (float)re + (float)im * I; break;
    default: ((double _Complex*)buf)[k] = re + im * I; break;
  }
}

static void reg(resize_session* s, char t, const char* name, int n, int* desc, void** buf) {
  int rc;
  switch (t) {
    case 's': rc = resize_register_s(s, name, n, n, 8, 8, RESIZE_DIST_BLOCK_CYCLIC, desc, (float**)buf); break;
    case 'd': rc = resize_register_d(s, name, n, n, 8, 8, RESIZE_DIST_BLOCK_CYCLIC, desc, (double**)buf); break;
    case 'c': rc = resize_register_c(s, name, n, n, 8, 8, RESIZE_DIST_BLOCK_CYCLIC, desc, (resize_complex_float**)buf); break;
    default: rc = resize_register_z(s, name, n, n, 8, 8, RESIZE_DIST_BLOCK_CYCLIC, desc, (resize_complex_double**)buf); break;
  }
  if (rc != RESIZE_OK) die("register");
}

int main(int argc, char** argv) {
  struct opts o = {'d', "", "redist", "off", "", 5, 48};
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank0);
  int rc = parse(argc, argv, &o);
  if (rc >= 0) {
    MPI_Finalize();
    return rc;
  }
  /* The C API takes the mover from the environment. */
  if (setenv("RESIZE_MOVER", o.mover, 1)) die("setenv");
  resize_session* s = NULL;
  if (resize_create(argc, argv, "user_c", o.schedule[0] ? "scripted" : "fixed", o.schedule, &s)) die("create");
  int desca[9], descw[9], nb = 8, izero = 0, it = 0;
  void *a = NULL, *w = NULL;
  reg(s, o.type, "A", o.n, desca, &a);
  reg(s, o.type, "W", o.n, descw, &w);
  if (resize_mark_constant(s, "W")) die("mark_constant");
  if (strcmp(o.background, "off"))
    if (resize_set_background(s, strcmp(o.background, "wait") ? RESIZE_BACKGROUND_CONTINUE : RESIZE_BACKGROUND_WAIT, 1))
      die("set_background");
  double sum[2] = {0, 0}; /* the running sum: this program's own state */
  if (resize_set_app_state(s, sum, sizeof sum)) die("set_app_state");
  int ctxt, nprow, npcol, myrow, mycol;
  const int newcomer = resize_is_newcomer(s); /* asked before resize_join */
  if (newcomer) {
    if (resize_join(s, &it)) die("join"); /* A, W and the sum arrive; nothing to fill */
    if (!strcmp(o.mistake, "forget")) sum[0] = sum[1] = 0; /* a control: the check must fail */
  } else if (resize_start(s, 2, 2)) {
    die("start");
  }
  if (!newcomer || !strcmp(o.mistake, "refill")) {
    resize_grid(s, &ctxt, &nprow, &npcol, &myrow, &mycol);
    if (ctxt >= 0) {
      const int ml = numroc_(&o.n, &nb, &myrow, &izero, &nprow), nl = numroc_(&o.n, &nb, &mycol, &izero, &npcol);
      for (int jl = 1; jl <= nl; ++jl)
        for (int il = 1; il <= ml; ++il) {
          const int i = indxl2g_(&il, &nb, &myrow, &izero, &nprow) - 1, j = indxl2g_(&jl, &nb, &mycol, &izero, &npcol) - 1;
          const size_t k = (size_t)(il - 1) + (size_t)(jl - 1) * (size_t)desca[8];
          set(o.type, a, k, a0(i, j, 0), a0(i, j, 1));
          set(o.type, w, k, w0(i, j, 0), w0(i, j, 1));
        }
    }
  }
  while (it < o.iters) {
    resize_begin_iteration(s);
    ++it;
    double local[2] = {0, 0}, total[2] = {0, 0};
    resize_grid(s, &ctxt, &nprow, &npcol, &myrow, &mycol);
    if (ctxt >= 0) {
      const int ml = numroc_(&o.n, &nb, &myrow, &izero, &nprow), nl = numroc_(&o.n, &nb, &mycol, &izero, &npcol);
      for (int jl = 0; jl < nl; ++jl)
        for (int il = 0; il < ml; ++il) {
          const size_t k = (size_t)il + (size_t)jl * (size_t)desca[8];
          double ar, ai, wr, wi;
          get(o.type, a, k, &ar, &ai);
          get(o.type, w, k, &wr, &wi);
          set(o.type, a, k, ar + it * wr, ai + it * wi);
          local[0] += ar + it * wr;
          local[1] += ai + it * wi;
        }
    }
    MPI_Allreduce(local, total, 2, MPI_DOUBLE, MPI_SUM, resize_world(s));
    sum[0] += total[0];
    sum[1] += total[1];
    resize_end_iteration(s);
    int action = 0;
    if (it < o.iters && resize_remap_point(s, &action) == RESIZE_ERR_RESIZE && resize_world_rank(s) == 0)
      printf("user_c: resize failed (%s); continuing\n", resize_last_error());
  }
  int cancelled = 0;
  if (resize_cancel(s, &cancelled)) die("cancel");
  double ref[2] = {0, 0};
  const int cplx = o.type == 'c' || o.type == 'z';
  for (int part = 0; part < 2; ++part) {
    double sa = 0, sw = 0;
    for (int i = 0; i < o.n; ++i)
      for (int j = 0; j < o.n; ++j) sa += a0(i, j, part), sw += w0(i, j, part);
    for (int k = 1; k <= o.iters; ++k) ref[part] += cplx || part == 0 ? sa + k * (k + 1) / 2.0 * sw : 0.0;
  }
  double err = (sum[0] > ref[0] ? sum[0] - ref[0] : ref[0] - sum[0]) + (sum[1] > ref[1] ? sum[1] - ref[1] : ref[1] - sum[1]);
  double worst = 0;
  MPI_Allreduce(&err, &worst, 1, MPI_DOUBLE, MPI_MAX, resize_world(s));
  const int ok = worst == 0 && it == o.iters;
  char msg[200], problem[64];
  snprintf(msg, sizeof msg, "running sum after %d iterations: (%.1f, %.1f), expected (%.1f, %.1f) on every process: %s", it,
           sum[0], sum[1], ref[0], ref[1], ok ? "OK" : "FAILED");
  snprintf(problem, sizeof problem, "N=%d type %c", o.n, o.type);
  resize_print_summary(s, problem, msg, ok);
  resize_grid(s, &ctxt, &nprow, &npcol, &myrow, &mycol);
  if (resize_world_rank(s) == 0) printf("user_c: type %c, %d iterations, now on %dx%d: %s\n", o.type, it, nprow, npcol, msg);
  resize_destroy(s);
  MPI_Finalize();
  return ok ? 0 : 1;
}
