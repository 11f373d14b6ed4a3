/* SPDX-License-Identifier: BSD-3-Clause */
/* The session's C API registers float, double, float complex and double complex
 * matrices (resize_register_s / resize_register / _c / _z) and moves them bit for bit
 * at an expansion 2x2 -> 2x3 and a shrink back to 2x2 (scripted remap points; the mover
 * comes from RESIZE_MOVER). After start, join and every remap point each process
 * compares every local element with a formula of its global indices (memcmp) and the
 * local parts must add up to M x N; a difference ends the job with a non-zero status.
 *   mpiexec -n 4 resize_types_c_test */
#include <complex.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "malleable/resize/resize.h"

int numroc_(const int* n, const int* nb, const int* iproc, const int* isrc, const int* np);

static int global_index(int l, int nb, int p, int np) { return (l / nb * np + p) * nb + l % nb; }

static float s_entry(int i, int j) { return 1.0f / (3.0f + (float)i + 51.0f * (float)j); }
static double d_entry(int i, int j) { return 1.0 / (1.0 + i + 97.0 * j) - 0.001 * j; }
static float complex c_entry(int i, int j) { return 1.0f / (1.0f + (float)(i + j)) - (float)i * 0.5f * I; }
static double complex z_entry(int i, int j) { return (1.0 / (j + 1.0) - i) + (double)i / (j + 3.0) * I; }

enum { S, D, C, Z, NMAT };
static const char* names[NMAT] = {"S", "D", "C", "Z"};
static const int shape[NMAT][4] = {{50, 23, 5, 7}, {37, 29, 4, 3}, {31, 41, 1, 1}, {45, 38, 8, 2}};
static const int dist[NMAT] = {0, 0, 1, 0}; /* C: one block per process row/column */
static const size_t elem[NMAT] = {sizeof(float), sizeof(double), sizeof(float complex), sizeof(double complex)};

static void entry(int k, int i, int j, void* out) {
  switch (k) {
    case S: *(float*)out = s_entry(i, j); break;
    case D: *(double*)out = d_entry(i, j); break;
    case C: *(float complex*)out = c_entry(i, j); break;
    default: *(double complex*)out = z_entry(i, j); break;
  }
}

static void fail_rc(int rc, const char* what) {
  if (rc != RESIZE_OK) {
    fprintf(stderr, "resize_types_c_test: FAILED: %s: %s\n", what, resize_last_error());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
}

/* fill = 1: write the formula; fill = 0: compare with it. */
static void visit(resize_session* s, int desc[NMAT][9], void* buf[NMAT], int fill, const char* phase) {
  int ctxt, nprow, npcol, myrow, mycol, zero = 0;
  long long errors = 0;
  resize_grid(s, &ctxt, &nprow, &npcol, &myrow, &mycol);
  for (int k = 0; k < NMAT; ++k) {
    long long local = 0, all = 0;
    if (ctxt >= 0) {
      const int* d = desc[k];
      const int ml = numroc_(&d[2], &d[4], &myrow, &zero, &nprow), nl = numroc_(&d[3], &d[5], &mycol, &zero, &npcol);
      if (d[1] != ctxt || d[8] < (ml > 1 ? ml : 1) || buf[k] == NULL) {
        fprintf(stderr, "%s: matrix %s: descriptor (ctxt %d, lld %d) or buffer wrong\n", phase, names[k], d[1], d[8]);
        ++errors;
        continue;
      }
      for (int jl = 0; jl < nl; ++jl)
        for (int il = 0; il < ml; ++il) {
          const int i = global_index(il, d[4], myrow, nprow), j = global_index(jl, d[5], mycol, npcol);
          char* at = (char*)buf[k] + elem[k] * ((size_t)il + (size_t)jl * (size_t)d[8]);
          double complex want; /* the largest element type */
          entry(k, i, j, &want);
          if (fill) {
            memcpy(at, &want, elem[k]);
          } else if (memcmp(at, &want, elem[k]) != 0 && ++errors <= 5) {
            fprintf(stderr, "%s: rank %d: matrix %s (%d, %d) differs from the formula\n", phase,
                    resize_world_rank(s), names[k], i, j);
          }
        }
      local = (long long)ml * nl;
    }
    MPI_Allreduce(&local, &all, 1, MPI_LONG_LONG, MPI_SUM, resize_world(s));
    if (all != (long long)shape[k][0] * shape[k][1]) {
      fprintf(stderr, "%s: matrix %s: the local parts hold %lld elements\n", phase, names[k], all);
      ++errors;
    }
  }
  long long total = 0;
  MPI_Allreduce(&errors, &total, 1, MPI_LONG_LONG, MPI_SUM, resize_world(s));
  if (total != 0) {
    if (resize_world_rank(s) == 0) fprintf(stderr, "resize_types_c_test: FAILED %s: %lld differences\n", phase, total);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  if (!fill && resize_world_rank(s) == 0) printf("resize_types_c_test: %s on %dx%d: all elements exact\n", phase, nprow, npcol);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  resize_session* s = NULL;
  fail_rc(resize_create(argc, argv, "resize_types_c_test", "scripted", "1:expand:2x3,2:shrink:2x2", &s), "create");
  int desc[NMAT][9];
  float* a_s = NULL;
  double* a_d = NULL;
  float complex* a_c = NULL;
  double complex* a_z = NULL;
#define REG(fn, k, p) fail_rc(fn(s, names[k], shape[k][0], shape[k][1], shape[k][2], shape[k][3], dist[k], desc[k], &p), #fn)
  REG(resize_register_s, S, a_s);
  REG(resize_register, D, a_d);
  REG(resize_register_c, C, a_c);
  REG(resize_register_z, Z, a_z);
#undef REG
  int it = 0, expansions = 0, shrinks = 0;
  if (resize_is_newcomer(s)) {
    fail_rc(resize_join(s, &it), "join");
    /* still a newcomer after the join, so `if (!resize_is_newcomer(s)) fill` skips it */
    fail_rc(resize_is_newcomer(s) == 1 ? RESIZE_OK : RESIZE_ERR_STATE, "resize_is_newcomer after resize_join");
    void* bufs[NMAT] = {a_s, a_d, a_c, a_z};
    visit(s, desc, bufs, 0, "after join");
    expansions = 1;
  } else {
    fail_rc(resize_start(s, 2, 2), "start");
    fail_rc(resize_is_newcomer(s) == 0 ? RESIZE_OK : RESIZE_ERR_STATE, "resize_is_newcomer after resize_start");
    void* bufs[NMAT] = {a_s, a_d, a_c, a_z};
    visit(s, desc, bufs, 1, "fill");
    visit(s, desc, bufs, 0, "after start");
  }
  while (it < 3) {
    resize_begin_iteration(s);
    resize_end_iteration(s);
    ++it;
    int action = RESIZE_NONE;
    fail_rc(resize_remap_point(s, &action), "remap point");
    expansions += action == RESIZE_EXPAND;
    shrinks += action == RESIZE_SHRINK;
    void* bufs[NMAT] = {a_s, a_d, a_c, a_z}; /* the session may have reallocated them */
    visit(s, desc, bufs, 0, action == RESIZE_EXPAND ? "after the expansion" : action == RESIZE_SHRINK ? "after the shrink" : "after a remap point");
  }
  if (expansions != 1 || shrinks != 1) {
    fprintf(stderr, "resize_types_c_test: FAILED: %d expansions and %d shrinks, expected one each\n", expansions, shrinks);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  const int rank0 = resize_world_rank(s) == 0;
  resize_destroy(s);
  /* the session owned the buffers: resize_destroy freed them and cleared the pointers */
  if (a_s || a_d || a_c || a_z) {
    fprintf(stderr, "resize_types_c_test: FAILED: resize_destroy left a buffer pointer set\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  if (rank0) printf("PASS\n");
  free(a_s);
  free(a_d);
  free(a_c);
  free(a_z);
  MPI_Finalize();
  return 0;
}
